import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDatabase, type Database } from '../../src/db/client.js';
import { createEmptyTestDatabase, type EmptyTestDatabase } from '../helpers/database.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { cliEnv, killRunningClis, randomEncryptionKey, runCli, spawnCli } from './cli-process.js';

const account = { apiKey: 'cli-secret-service-key-0001', appName: 'cli-store', plan: 'Pro', balance: 250 };
const noSslAccount = { apiKey: 'cli-secret-nossl-key-0002', appName: 'plain-http-store', https: false };
const shop = 'cli-shop.myshopify.com';

let emulator: TestEmulator;
let database: EmptyTestDatabase;
let env: Record<string, string>;
let db: Database | undefined;

beforeAll(async () => {
  emulator = await startTestEmulator({
    accounts: [
      { ...account, https: true },
      { ...noSslAccount, plan: 'Free', balance: 10 },
    ],
  });
  // Never migrated: the CLI applies the migrations itself.
  database = await createEmptyTestDatabase();
  env = cliEnv({
    databaseUrl: database.url,
    trackingApiBaseUrl: emulator.baseUrl,
    encryptionKey: randomEncryptionKey(),
  });
}, 60_000);

afterAll(async () => {
  killRunningClis();
  await db?.close();
  await database?.cleanup();
  await emulator?.close();
});

function expectNoSecret(run: { stdout: string; stderr: string }, secret: string) {
  expect(run.stdout).not.toContain(secret);
  expect(run.stderr).not.toContain(secret);
}

describe('shop:connect', { timeout: 60_000 }, () => {
  // The one test that runs the real process (node --import tsx src/cli/main.ts), end to end.
  it('checks the credentials with the service, stores the key encrypted, never prints it', async () => {
    const run = await spawnCli(
      ['shop:connect', '--shop', shop, '--api-key', account.apiKey, '--app-name', account.appName],
      env,
    );
    expect(run.stderr).toContain('Applied'); // a fresh database is migrated first
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(`Connected ${shop} to the tracking service as app "cli-store"`);
    expectNoSecret(run, account.apiKey);

    db = await createDatabase(database.url);
    const row = await db.prisma.shop.findUniqueOrThrow({ where: { domain: shop } });
    expect(row.appName).toBe(account.appName);
    expect(row.apiKeyCiphertext).toBeTruthy();
    expect(row.apiKeyCiphertext).not.toContain(account.apiKey);
    expect(Buffer.from(row.apiKeyCiphertext!, 'base64').toString('utf8')).not.toContain(account.apiKey);
    expect(row.apiKeyKeyId).toBe('k1');
    expect(row.pausedReason).toBeNull();

    const checks = await emulator.control.calls({ appName: account.appName });
    expect(checks.map((c) => c.operation)).toEqual(['get']);
  });

  it('reads the key from stdin with --api-key -', async () => {
    const run = await runCli(
      ['shop:connect', '--shop', 'stdin-shop.myshopify.com', '--api-key', '-', '--app-name', account.appName],
      env,
      { stdin: `${account.apiKey}\n` },
    );
    expect(run.code).toBe(0);
    expectNoSecret(run, account.apiKey);
  });

  it('exits 1 with the cause when the service does not know the key (unauthorized)', async () => {
    const wrongKey = 'cli-secret-wrong-key-9999';
    const run = await runCli(
      [
        'shop:connect',
        '--shop',
        'other-shop.myshopify.com',
        '--api-key',
        wrongKey,
        '--app-name',
        'cli-store',
      ],
      env,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('(unauthorized)');
    expect(run.stderr).toContain('wrong key');
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expectNoSecret(run, wrongKey);
    expect(await db!.prisma.shop.findUnique({ where: { domain: 'other-shop.myshopify.com' } })).toBeNull();
  });

  it('exits 1 saying the store URL must be HTTPS when the service answers ssl_error', async () => {
    const run = await runCli(
      [
        'shop:connect',
        '--shop',
        'http-shop.myshopify.com',
        '--api-key',
        noSslAccount.apiKey,
        '--app-name',
        noSslAccount.appName,
      ],
      env,
    );
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('the store URL must be HTTPS (ssl_error)');
    expectNoSecret(run, noSslAccount.apiKey);
  });

  it('exits 2 on an invalid domain, before any call to the service', async () => {
    await emulator.control.clearCalls();
    const run = await runCli(
      ['shop:connect', '--shop', 'https://shop.example.com', '--api-key', account.apiKey, '--app-name', 'x'],
      env,
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--shop: must be a *.myshopify.com domain');
    expectNoSecret(run, account.apiKey);
    expect(await emulator.control.calls()).toEqual([]);
  });

  it('exits 2 on a key too short, without echoing it', async () => {
    const run = await runCli(['shop:connect', '--shop', shop, '--api-key', 'abc', '--app-name', 'x'], env);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--api-key: looks too short for an API key');
  });
});

describe('shop:list', { timeout: 60_000 }, () => {
  it('shows each shop with its connection, pause and tracker counts', async () => {
    await db!.prisma.shop.create({
      data: { domain: 'waiting-shop.myshopify.com', pausedReason: 'not_connected', pausedAt: new Date() },
    });
    const connected = await db!.prisma.shop.findUniqueOrThrow({ where: { domain: shop } });
    await db!.prisma.shop.update({
      where: { id: connected.id },
      data: { trackersBalance: 249, userPlan: 'Pro' },
    });
    for (const [n, syncState] of [
      ['A1', 'synced'],
      ['A2', 'synced'],
      ['A3', 'failed'],
    ] as const) {
      await db!.prisma.tracker.create({
        data: { shopId: connected.id, trackingNumber: n, provider: 'ups', orderKey: '1', syncState },
      });
    }

    const run = await runCli(['shop:list'], env);
    expect(run.code).toBe(0);
    const lines = run.stdout.trim().split('\n');
    expect(lines[0]).toMatch(
      /^SHOP\s+APP NAME\s+CONNECTED\s+BALANCE\s+PLAN\s+PAUSED\s+PENDING\s+SYNCED\s+FAILED\s+DEAD$/,
    );
    const row = lines.find((l) => l.startsWith(`${shop} `));
    expect(row?.split(/\s+/)).toEqual([shop, 'cli-store', 'yes', '249', 'Pro', '-', '0', '2', '1', '0']);
    const waiting = lines.find((l) => l.startsWith('waiting-shop.myshopify.com '));
    expect(waiting?.split(/\s+/).slice(0, 6)).toEqual([
      'waiting-shop.myshopify.com',
      '-',
      'no',
      '-',
      '-',
      'not_connected',
    ]);
    // Columns line up under their headers.
    expect(row!.indexOf(' Pro ') + 1).toBe(lines[0]!.indexOf('PLAN'));
    expect(waiting!.indexOf('not_connected')).toBe(lines[0]!.indexOf('PAUSED'));
  });

  it('--json gives the same for scripts', async () => {
    const run = await runCli(['shop:list', '--json'], env);
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout) as { shops: Array<Record<string, unknown>> };
    expect(body.shops.find((s) => s.domain === shop)).toMatchObject({
      appName: 'cli-store',
      connected: true,
      trackersBalance: 249,
      userPlan: 'Pro',
      pausedReason: null,
      trackers: { pending: 0, synced: 2, failed: 1, dead: 0 },
    });
    expect(run.stdout).not.toContain(account.apiKey);
    expect(run.stdout).not.toContain('apiKeyCiphertext');
    // The status push URL in full, the same the page shows (the token is the shop's).
    const row = await db!.prisma.shop.findUniqueOrThrow({ where: { domain: shop } });
    const listed = body.shops.find((s) => s.domain === shop)!;
    expect(listed.statusPushUrl).toBe(`${env.SHOPIFY_APP_URL}/status-webhooks/${row.statusPushToken}`);
    expect(row.statusPushToken).toMatch(/^[A-Za-z0-9_-]{32}$/);
  });

  it('shop:rotate-push-url replaces the URL; shop:list shows the new one', async () => {
    const before = (await db!.prisma.shop.findUniqueOrThrow({ where: { domain: shop } })).statusPushToken;
    const run = await runCli(['shop:rotate-push-url', '--shop', shop, '--json'], env);
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout) as { domain: string; statusPushUrl: string };
    const after = (await db!.prisma.shop.findUniqueOrThrow({ where: { domain: shop } })).statusPushToken;
    expect(after).not.toBe(before);
    expect(body).toEqual({ domain: shop, statusPushUrl: `${env.SHOPIFY_APP_URL}/status-webhooks/${after}` });
    const unknown = await runCli(['shop:rotate-push-url', '--shop', 'nobody.myshopify.com'], env);
    expect(unknown.code).toBe(1);
  });

  it('trackers:list exits 1 for a shop it does not know', async () => {
    const run = await runCli(['trackers:list', '--shop', 'unknown-shop.myshopify.com'], env);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toBe('error: No shop unknown-shop.myshopify.com is known. See shop:list.');
  });
});
