import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestDatabase } from '../helpers/database.js';
import { cliEnv, killRunningClis, randomEncryptionKey, runCli } from './cli-process.js';

const shopA = 'jobs-a.myshopify.com';
const shopB = 'jobs-b.myshopify.com';

const database = useTestDatabase();
let env: Record<string, string>;
const ids = { failed: '', dead: '', synced: '', otherShop: '', retryable: '', emptied: '' };

beforeAll(async () => {
  // Nothing here calls the service: an address that answers nothing is enough.
  env = cliEnv({
    databaseUrl: database.url,
    trackingApiBaseUrl: 'http://127.0.0.1:9/v1',
    encryptionKey: randomEncryptionKey(),
  });
  const { prisma } = database;
  const a = await prisma.shop.create({ data: { domain: shopA } });
  const b = await prisma.shop.create({ data: { domain: shopB } });
  const tracker = (shopId: string, trackingNumber: string, extra: Record<string, unknown>) =>
    prisma.tracker.create({
      data: { shopId, trackingNumber, provider: 'ups', orderKey: '1001', ...extra },
    });
  const at = new Date('2026-11-20T10:00:00Z');
  ids.failed = (
    await tracker(a.id, 'FAIL-1', {
      syncState: 'failed',
      attempts: 1,
      lastErrorReason: 'provider_not_found',
      lastError: 'Provider not found',
      lastErrorAt: at,
      version: 7,
    })
  ).id;
  ids.dead = (
    await tracker(a.id, 'DEAD-1', {
      syncState: 'dead',
      attempts: 8,
      lastErrorReason: 'server_error',
      lastError: 'Internal server error',
      lastErrorAt: at,
    })
  ).id;
  ids.synced = (await tracker(a.id, 'OK-1', { syncState: 'synced', remote: 'present' })).id;
  ids.otherShop = (
    await tracker(b.id, 'FAIL-B', { syncState: 'failed', lastErrorReason: 'unknown', lastErrorAt: at })
  ).id;
  const delivery = (payload: string, eventId: string) =>
    prisma.webhookDelivery.create({
      data: {
        shopDomain: shopA,
        topic: 'fulfillments/create',
        eventId,
        webhookId: eventId,
        payload,
        state: 'failed',
        attempts: 10,
        error: 'fulfilment payload: id: not a numeric id',
      },
    });
  ids.retryable = (await delivery('{"id":"x"}', 'ev-1')).id;
  ids.emptied = (await delivery('', 'ev-2')).id;
}, 60_000);

afterAll(async () => {
  killRunningClis();
});

describe('jobs:failed', { timeout: 60_000 }, () => {
  it('lists failed and dead trackers and failed deliveries as tables', async () => {
    const run = await runCli(['jobs:failed'], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Failed trackers: 3');
    expect(run.stdout).toMatch(
      new RegExp(
        `${ids.failed}\\s+${shopA}\\s+FAIL-1\\s+ups\\s+failed\\s+1\\s+provider_not_found\\s+2026-11-20T10:00:00Z\\s+Provider not found`,
      ),
    );
    expect(run.stdout).toMatch(
      new RegExp(`${ids.dead}\\s+${shopA}\\s+DEAD-1\\s+ups\\s+dead\\s+8\\s+server_error`),
    );
    expect(run.stdout).not.toContain(ids.synced);
    expect(run.stdout).toContain('Failed webhook deliveries: 2');
    expect(run.stdout).toMatch(
      new RegExp(`${ids.retryable}\\s+${shopA}\\s+fulfillments/create\\s+\\S+\\s+yes`),
    );
    expect(run.stdout).toMatch(new RegExp(`${ids.emptied}\\s+${shopA}\\s+fulfillments/create\\s+\\S+\\s+no`));
    expect(run.stdout).toContain('Retry with: npm run cli -- jobs:retry');
  });

  it('--shop narrows to one shop; --json is for scripts', async () => {
    const run = await runCli(['jobs:failed', '--shop', shopB, '--json'], env);
    expect(run.code).toBe(0);
    const body = JSON.parse(run.stdout) as { trackers: Array<{ id: string }>; deliveries: unknown[] };
    expect(body.trackers.map((t) => t.id)).toEqual([ids.otherShop]);
    expect(body.deliveries).toEqual([]);
  });
});

describe('jobs:retry', { timeout: 60_000 }, () => {
  it('retries the trackers named, bumping their version, and leaves the others alone', async () => {
    const run = await runCli(['jobs:retry', '--tracker', ids.failed], env);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Reset 1 tracker(s) and 0 webhook delivery(ies) to pending.');
    const failed = await database.prisma.tracker.findUniqueOrThrow({ where: { id: ids.failed } });
    expect(failed).toMatchObject({ syncState: 'pending', attempts: 0, version: 8 });
    expect(failed.nextAttemptAt.getTime()).toBeLessThanOrEqual(Date.now());
    const dead = await database.prisma.tracker.findUniqueOrThrow({ where: { id: ids.dead } });
    expect(dead.syncState).toBe('dead');
  });

  it('exits 1 naming an id that is not failed', async () => {
    const run = await runCli(['jobs:retry', '--tracker', ids.synced, '--tracker', ids.failed], env);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`not failed (or not found), left alone: ${ids.synced}, ${ids.failed}`);
    const synced = await database.prisma.tracker.findUniqueOrThrow({ where: { id: ids.synced } });
    expect(synced.syncState).toBe('synced');
  });

  it('retries everything failed of one shop; a delivery whose body is gone is skipped and counted', async () => {
    const run = await runCli(['jobs:retry', '--shop', shopA, '--json'], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({
      trackersReset: 1,
      deliveriesReset: 1,
      deliveriesSkipped: 1,
      notFailed: [],
    });
    expect(await database.prisma.tracker.findUniqueOrThrow({ where: { id: ids.dead } })).toMatchObject({
      syncState: 'pending',
      attempts: 0,
    });
    expect(
      await database.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: ids.retryable } }),
    ).toMatchObject({ state: 'pending', attempts: 0 });
    expect(
      (await database.prisma.webhookDelivery.findUniqueOrThrow({ where: { id: ids.emptied } })).state,
    ).toBe('failed');
    // The other shop's failed tracker is untouched.
    expect(
      (await database.prisma.tracker.findUniqueOrThrow({ where: { id: ids.otherShop } })).syncState,
    ).toBe('failed');
  });

  it('trackers:list --state shows the retried trackers as pending', async () => {
    const run = await runCli(['trackers:list', '--shop', shopA, '--state', 'pending'], env);
    expect(run.code).toBe(0);
    const numbers = run.stdout
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(/\s+/)[0])
      .sort();
    expect(numbers).toEqual(['DEAD-1', 'FAIL-1']);
  });
});
