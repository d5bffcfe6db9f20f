import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, TEST_ACCOUNT, TEST_SECRET, TEST_SHOP, type TestApp, waitFor } from '../helpers/app.js';
import { deliver, fixture } from '../helpers/webhooks.js';
import { cliEnv, killRunningClis, runCli } from './cli-process.js';

/** A carrier name no automatic match knows: its line waits for a mapping. */
const speedy = 'Speedy Parcels Ltd';
const speedyNumber = 'SPD-000111222';

let app: TestApp;
let env: Record<string, string>;

beforeAll(async () => {
  app = await startTestApp();
  // The CLI works on the running app's database, with the app's own key.
  env = cliEnv({
    databaseUrl: app.database.url,
    trackingApiBaseUrl: app.emulator.baseUrl,
    encryptionKey: app.config.encryptionKey,
  });
  const body = {
    ...fixture('fulfillments-create.ups'),
    id: 5521099990001,
    order_id: 6120000009001,
    tracking_company: speedy,
    tracking_number: speedyNumber,
    tracking_numbers: [speedyNumber],
  };
  const response = await deliver(app.url, {
    topic: 'fulfillments/create',
    shop: TEST_SHOP,
    body,
    secret: TEST_SECRET,
  });
  expect(response.status).toBe(200);
  await waitFor('the Speedy line to wait for a carrier', async () => {
    const line = await app.database.prisma.trackingLine.findFirst({
      where: { trackingNumber: speedyNumber },
    });
    return line !== null && line.trackerId === null;
  });
}, 60_000);

afterAll(async () => {
  killRunningClis();
  await app?.close();
});

describe('carriers', { timeout: 60_000 }, () => {
  it('trackers:list shows the line waiting for a carrier mapping', async () => {
    const run = await runCli(['trackers:list', '--shop', TEST_SHOP], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('No trackers match.');
    expect(run.stdout).toContain('Lines waiting for a carrier mapping:');
    expect(run.stdout).toMatch(/Speedy Parcels Ltd\s+1\n/);
    expect(run.stdout).toContain(`carriers:map --shop ${TEST_SHOP} --name "<carrier name>" --slug <slug>`);

    const json = JSON.parse((await runCli(['trackers:list', '--shop', TEST_SHOP, '--json'], env)).stdout) as {
      waitingForCarrier: unknown[];
    };
    expect(json.waitingForCarrier).toEqual([{ carrierName: speedy, lines: 1 }]);
  });

  it('carriers:refresh fills the cache from the service; the name still matches nothing', async () => {
    await app.emulator.control.clearCalls();
    const run = await runCli(['carriers:refresh'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(
      /^Cached \d{3} carriers from the tracking service; 0 waiting line\(s\) matched\.$/m,
    );
    expect(await app.emulator.control.calls({ operation: 'providers' })).toHaveLength(1);
    expect(await app.database.prisma.carrier.count()).toBeGreaterThan(100);
  });

  it('carriers:list --search finds slugs and labels', async () => {
    const run = await runCli(['carriers:list', '--search', 'DPD'], env);
    expect(run.code).toBe(0);
    const slugs = run.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(/\s+/)[0]);
    expect(slugs).toContain('dpd');
    expect(slugs).toContain('dpd-uk');
    expect(slugs).not.toContain('ups');
    expect(run.stdout).toMatch(/\d+ of \d+ carriers; list refreshed \d{4}-/);
  });

  it('carriers:map refuses an unknown slug, naming close ones (exit 1)', async () => {
    const run = await runCli(['carriers:map', '--shop', TEST_SHOP, '--name', speedy, '--slug', 'dpd-u'], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toMatch(/^error: The tracking service has no carrier "dpd-u"\. Close: .*dpd-uk/);
    expect(await app.database.prisma.carrierMapping.count()).toBe(0);
  });

  it('carriers:map exits 1 for an unknown shop', async () => {
    const run = await runCli(
      ['carriers:map', '--shop', 'nobody.myshopify.com', '--name', speedy, '--slug', 'dpd'],
      env,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('No shop nobody.myshopify.com is known');
  });

  it('carriers:map saves the mapping and releases the waiting line: the worker creates the tracker', async () => {
    const run = await runCli(['carriers:map', '--shop', TEST_SHOP, '--name', speedy, '--slug', 'dpd'], env);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Mapped "${speedy}" to dpd for ${TEST_SHOP}.`);
    expect(run.stdout).toContain('1 line(s) remapped, 0 still waiting');

    await waitFor('the Speedy tracker at the emulator', async () =>
      (await app.emulator.control.trackers(TEST_ACCOUNT.appName)).some(
        (t) => t.tracking_number === speedyNumber,
      ),
    );
    const tracker = (await app.emulator.control.trackers(TEST_ACCOUNT.appName)).find(
      (t) => t.tracking_number === speedyNumber,
    );
    expect(tracker).toMatchObject({ tracking_provider: 'dpd', order_id: '6120000009001' });

    await waitFor('the tracker to be synced', async () => {
      const row = await app.database.prisma.tracker.findFirst({ where: { trackingNumber: speedyNumber } });
      return row?.syncState === 'synced';
    });
    const list = await runCli(['trackers:list', '--shop', TEST_SHOP], env);
    expect(list.stdout).toMatch(/SPD-000111222\s+dpd\s+6120000009001\s+active\s+present\s+synced\s+0/);
    expect(list.stdout).not.toContain('Lines waiting for a carrier mapping');
  });
});
