import { randomBytes } from 'node:crypto';
import type { Tracker } from '../../src/generated/sqlite/client.js';
import { TEST_SECRET, type TestApp, waitFor } from './app.js';
import type { EmulatorTracker, LoggedCall } from './emulator.js';
import { deliver, fixture } from './webhooks.js';
import { installShop } from './install.js';

/**
 * End-to-end scenarios on one running app: each scenario gets its own store (shop) connected to its own
 * account at the emulator, so scenarios in one file never see each other's trackers, calls or rows.
 */

/** A call-log entry with the fault the emulator injected ('script' for a scripted answer, null for none). */
export type ScenarioCall = LoggedCall & {
  fault: 'reset' | 'timeout' | 'rate_limit' | 'error' | 'script' | null;
};

export interface ScenarioShop {
  id: string;
  domain: string;
  appName: string;
  apiKey: string;
  /** POSTs a signed delivery for this shop to the app. */
  send(
    topic: string,
    body: unknown,
    ids?: { eventId?: string; webhookId?: string },
  ): Promise<{ status: number; body: unknown }>;
  /** The trackers the emulator holds for this shop's account. */
  remote(): Promise<EmulatorTracker[]>;
  /** The emulator's call log for this shop's account (optionally one operation). */
  calls(operation?: LoggedCall['operation']): Promise<ScenarioCall[]>;
  /** The shop's Tracker rows. */
  rows(): Promise<Tracker[]>;
  /** Waits until every delivery of the shop is processed (or failed). */
  deliveriesDone(timeoutMs?: number): Promise<void>;
  /**
   * Waits until the worker has nothing left to do for this shop: every delivery handled, no tracker
   * pending, none leased.
   */
  settled(timeoutMs?: number): Promise<void>;
}

function suffix(): string {
  return randomBytes(4).toString('hex');
}

/** A new emulator account and a shop connected to it through the shop repository (as the Settings page does). */
export async function addShop(
  app: TestApp,
  name: string,
  account: { balance?: number; https?: boolean } = {},
): Promise<ScenarioShop> {
  const tag = `${name}-${suffix()}`;
  const domain = `${tag}.myshopify.com`;
  const appName = `store-${tag}`;
  const apiKey = `key-${tag}-${randomBytes(8).toString('hex')}`;
  const control = app.emulator.control;
  await control.addAccount({
    apiKey,
    appName,
    plan: 'Pro',
    balance: account.balance ?? 1000,
    https: account.https ?? true,
  });
  const shop = await app.runtime.context.shops.saveCredentials(domain, { apiKey, appName });
  await installShop(app, domain);
  const prisma = app.database.prisma;

  const deliveriesDone = (timeoutMs = 15_000) =>
    waitFor(
      `deliveries of ${domain} processed`,
      async () =>
        (await prisma.webhookDelivery.count({ where: { shopDomain: domain, state: 'pending' } })) === 0,
      timeoutMs,
    );

  return {
    id: shop.id,
    domain,
    appName,
    apiKey,
    send: (topic, body, ids = {}) =>
      deliver(app.url, { topic, shop: domain, body, secret: TEST_SECRET, ...ids }),
    remote: () => control.trackers(appName),
    calls: async (operation) =>
      (await control.calls({ appName, ...(operation ? { operation } : {}) })) as ScenarioCall[],
    rows: () => prisma.tracker.findMany({ where: { shopId: shop.id }, orderBy: { trackingNumber: 'asc' } }),
    deliveriesDone,
    async settled(timeoutMs = 15_000) {
      await deliveriesDone(timeoutMs);
      await waitFor(
        `the worker to settle for ${domain}`,
        async () => {
          const busy = await prisma.tracker.count({
            where: { shopId: shop.id, OR: [{ syncState: 'pending' }, { leaseOwner: { not: null } }] },
          });
          return busy === 0;
        },
        timeoutMs,
      );
    },
  };
}

/** A fixture with some fields replaced (a variant the platform could send). */
export function variant(name: string, changes: Record<string, unknown>): Record<string, unknown> {
  return { ...fixture(name), ...changes };
}

/** The UPS fixture as the n-th of many distinct fulfilments (own id, order and tracking number). */
export function numberedUpsFulfillment(n: number): Record<string, unknown> {
  const trackingNumber = `1ZE2E${String(n).padStart(10, '0')}`;
  return variant('fulfillments-create.ups', {
    id: 7_700_000_000_000 + n,
    order_id: 8_800_000_000_000 + n,
    name: `#${5000 + n}.1`,
    tracking_number: trackingNumber,
    tracking_numbers: [trackingNumber],
  });
}

/** Tracking numbers of a list of emulator trackers, sorted. */
export function numbersOf(trackers: Array<{ tracking_number: string }>): string[] {
  return trackers.map((t) => t.tracking_number).sort();
}

/** How many calls each tracking number got. */
export function countByNumber(calls: LoggedCall[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const call of calls) {
    const number = (call.body as { tracking_number?: unknown } | null)?.tracking_number;
    if (typeof number !== 'string') continue;
    counts.set(number, (counts.get(number) ?? 0) + 1);
  }
  return counts;
}
