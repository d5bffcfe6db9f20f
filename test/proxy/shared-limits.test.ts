import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Runtime, startRuntime } from '../../src/app/runtime.js';
import { silentLogger } from '../../src/logger.js';
import { TEST_SECRET, type TestApp, testConfig, waitFor } from '../helpers/app.js';
import {
  type ChildApp,
  type ChildAppEnv,
  explainWith,
  killChildApps,
  startChildApp,
} from '../helpers/child-app.js';
import { useTestDatabase } from '../helpers/database.js';
import { startTestEmulator, type TestEmulator } from '../helpers/emulator.js';
import { signedProxyQuery } from '../helpers/proxy.js';
import { addShop, numberedUpsFulfillment, type ScenarioShop } from '../helpers/scenario.js';
import { fixture } from '../helpers/webhooks.js';
import { type FakeAdminGraphql, startFakeAdminGraphql } from '../helpers/fake-admin-graphql.js';

/**
 * The shoppers' page under attack, on two web processes (real `--role web` children, configured only by
 * their environment) sharing one database, behind one load balancer (TRUST_PROXY=1: the test client on
 * 127.0.0.1 plays it) and the platform's app proxy, which appends the shopper's address to
 * X-Forwarded-For. Deliveries and the worker run in this process on the same database.
 */

const database = useTestDatabase();
let emulator: TestEmulator;
let store: FakeAdminGraphql;
let worker: Runtime;
let app: TestApp;
let env: ChildAppEnv;
const webs: { child: ChildApp; url: string }[] = [];
let shop: ScenarioShop;
/** A second shop, not under attack. */
let other: ScenarioShop;

/** The platform's proxy's own address, as the load balancer appends it. */
const platform = '34.120.0.7';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function startWeb(): Promise<{ child: ChildApp; url: string }> {
  const port = await freePort();
  const child = startChildApp('web', { ...env, PORT: String(port) });
  const url = `http://127.0.0.1:${port}`;
  await explainWith(
    child,
    waitFor(
      'the web process to answer',
      async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok === true,
      30_000,
    ),
  );
  return { child, url };
}

/**
 * A lookup on web process `n` by the shopper at `address`, who wrote `spoof` into X-Forwarded-For
 * themselves; the platform appended `address`, the load balancer the platform's.
 */
async function lookup(
  n: number,
  address: string,
  params: Record<string, string>,
  spoof = `10.${n}.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
  domain = shop.domain,
): Promise<{ status: number; body: string; retryAfter: string | null }> {
  const query = signedProxyQuery({ shop: domain, path_prefix: '/apps/track', ...params }, TEST_SECRET);
  const res = await fetch(`${webs[n % webs.length]!.url}/proxy?${query}`, {
    headers: { 'x-forwarded-for': `${spoof}, ${address}, ${platform}` },
  });
  return { status: res.status, body: await res.text(), retryAfter: res.headers.get('retry-after') };
}

beforeAll(async () => {
  emulator = await startTestEmulator();
  store = await startFakeAdminGraphql();
  const encryptionKey = `t1:${randomBytes(32).toString('base64')}`;
  const config = testConfig(database.url, emulator.baseUrl, { encryptionKey });
  worker = await startRuntime(config, { logger: silentLogger, migrate: false, idlePollMs: 25 });
  app = { runtime: worker, url: worker.url!, emulator, database, config, store, close: async () => {} };
  env = {
    DATABASE_URL: database.url,
    TRACKING_API_BASE_URL: emulator.baseUrl,
    ENCRYPTION_KEY: encryptionKey,
    TRUST_PROXY: '1',
    FAKE_STORE_URL: store.baseUrl,
    TRACKING_PAGE_FAILED_LOOKUPS: '3',
    TRACKING_PAGE_SHOP_FAILED_LOOKUPS_PER_MINUTE: '200',
    TRACKING_PAGE_REFRESHES_PER_MINUTE: '3',
  };
  webs.push(await startWeb(), await startWeb());
  shop = await addShop(app, 'shared-limits');
  await shop.send('fulfillments/create', fixture('fulfillments-create.ups'));
  await shop.settled();
}, 90_000);

afterAll(async () => {
  await killChildApps();
  await worker?.close();
  await store?.close();
  await emulator?.close();
});

describe('the tracking page’s limits, shared by two web processes', () => {
  it('a visitor’s failures count on both processes, and no spoofed X-Forwarded-For resets them', async () => {
    const visitor = '203.0.113.21';
    // Three failures (the allowance) alternate between the processes, each with another made-up address.
    for (let i = 0; i < 3; i++) {
      const page = await lookup(i, visitor, { tracking: `NOPE${i}` });
      expect(page.status).toBe(200);
      expect(page.body).toContain('ts-not-found');
    }
    // The fourth is answered and holds the visitor back, on either process, however it is spoofed.
    expect((await lookup(1, visitor, { tracking: 'NOPE3' })).status).toBe(200);
    for (const n of [0, 1]) {
      const held = await lookup(n, visitor, { tracking: '1Z999AA10123456784' });
      expect(held.status).toBe(429);
      expect(Number(held.retryAfter)).toBeGreaterThanOrEqual(1);
    }
    // Another shopper is answered.
    expect((await lookup(0, '203.0.113.22', { tracking: '1Z999AA10123456784' })).status).toBe(200);
  });

  it('1 000 failed lookups from rotating addresses: a real shopper is still answered; each guesser waits after a second failure', async () => {
    let next = 0;
    const statuses: number[] = [];
    await Promise.all(
      Array.from({ length: 20 }, async () => {
        while (next < 1000) {
          const i = next++;
          const page = await lookup(i, `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}`, {
            order: String(9000 + i),
            email: `guess${i}@example.com`,
          });
          statuses.push(page.status);
        }
      }),
    );
    expect(statuses).toHaveLength(1000);
    expect(statuses.every((s) => s === 200)).toBe(true);
    // The shopper of order #1001, new to the page, by order and email and by number, on both processes.
    for (const n of [0, 1]) {
      const byOrder = await lookup(n, `192.0.2.${40 + n}`, { order: '1001', email: 'jane.doe@example.com' });
      expect(byOrder.status).toBe(200);
      expect(byOrder.body).toContain('1Z999AA10123456784');
      const byNumber = await lookup(n, `192.0.2.${50 + n}`, { tracking: '1Z999AA10123456784' });
      expect(byNumber.status).toBe(200);
      expect(byNumber.body).not.toContain('ts-not-found');
    }
    // Under attack one failure is the allowance: a guesser's second gets its answer, the third waits.
    expect((await lookup(0, '198.18.0.1', { order: '9999', email: 'again@example.com' })).status).toBe(200);
    expect((await lookup(1, '198.18.0.1', { order: '9998', email: 'again@example.com' })).status).toBe(429);
  }, 60_000);

  it('the service calls lookups cause stay within the shop’s limit a minute, whichever process answers', async () => {
    other = await addShop(app, 'shared-limits-calls');
    for (let n = 1; n <= 8; n++) await other.send('fulfillments/create', numberedUpsFulfillment(n));
    await other.settled();
    // Every order stale and under way: each lookup would read its order again at the service.
    await database.prisma.tracker.updateMany({
      where: { shopId: other.id },
      data: { statusCheckedAt: null, status: 'in_transit' },
    });
    await emulator.control.clearCalls();
    const pages = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        lookup(
          i,
          `192.0.2.${100 + i}`,
          { tracking: `1ZE2E${String(i + 1).padStart(10, '0')}` },
          undefined,
          other.domain,
        ),
      ),
    );
    // Every shopper answered, from stored data where the budget was spent.
    expect(pages.map((p) => p.status)).toEqual(Array(8).fill(200));
    expect(pages.every((p) => !p.body.includes('ts-not-found'))).toBe(true);
    expect(await other.calls('by-order-id')).toHaveLength(3);
  });

  it('the limits hold across a restart of both processes', async () => {
    // At the shop not under attack, where the allowance is three failures.
    const visitor = '203.0.113.77';
    const fail = (n: number, tracking: string) => lookup(n, visitor, { tracking }, undefined, other.domain);
    for (let i = 0; i < 3; i++) expect((await fail(i, `GONE${i}`)).status).toBe(200);
    for (const web of webs.splice(0)) {
      web.child.process.kill('SIGKILL');
      await web.child.exited;
    }
    webs.push(await startWeb(), await startWeb());
    // The streak was kept: the next failure is over the allowance and holds the visitor back.
    expect((await fail(0, 'GONE3')).status).toBe(200);
    expect((await fail(1, 'GONE4')).status).toBe(429);
    // So was the first visitor's, whose hold (2 s, doubling) may be over: one failure holds it again.
    const first = await lookup(0, '203.0.113.21', { tracking: 'NOPE9' });
    if (first.status === 200)
      expect((await lookup(1, '203.0.113.21', { tracking: 'NOPE10' })).status).toBe(429);
    else expect(first.status).toBe(429);
  }, 60_000);
});
