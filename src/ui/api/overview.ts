import type { AppContext } from '../../context/app-context.js';
import type { DatabaseClient } from '../../db/client.js';
import { storeProxyPath } from '../../lib/proxy-paths.js';
import type { HealthKey } from '../vocabulary.js';
import { countRefusedWrites } from '../../shipments/queries/refused-writes.js';
import { hasAnyTracker, trackingLinkProgress } from '../../shipments/queries/overview.js';
import { type BalanceForecast, balanceForecast } from '../../shipments/balance-forecast.js';
import type { ProblemKind } from '../../shipments/problem-words.js';
import { countOpenProblems } from '../../shipments/queries/problems.js';
import { currentShop } from './current-shop.js';
import { countFailed } from '../../jobs/retry-failed.js';
import { countShopShipments } from './shipment-list.js';
import { overviewOf, type ShopOverview } from './shop-overview.js';

/** The page a health line or a setup step leads to, and its filters there. */
export type PageLink = { page: 'shipments' | 'activity' | 'settings'; params?: Record<string, string> };

export interface SetupStep extends PageLink {
  key: 'connect' | 'carriers' | 'first_tracker';
  title: string;
  description: string;
  done: boolean;
}

export interface HealthItem {
  key: HealthKey;
  count: number;
  tone: 'success' | 'warning' | 'critical';
  page: PageLink['page'];
  /** The filters that list exactly these `count` rows on that page. */
  filter?: Record<string, string>;
}

export interface Overview extends ShopOverview {
  setup: { done: boolean; steps: SetupStep[] };
  health: HealthItem[];
  /** The shoppers' tracking page in the store, how many lookups it answered, and the links to it. */
  trackingPage: { url: string; lookups: number; links: TrackingLinks };
  /** Open shipment problems (the Needs attention view), per kind, snoozed ones left out. */
  problems: { total: number; byKind: Record<ProblemKind, number> };
  /** How long the tracking balance lasts at the current volume; null until the service reports one. */
  balance: BalanceForecast | null;
}

/** The tracking-page links setting's progress: fulfilments set, waiting, refused (with the latest reason). */
export interface TrackingLinks {
  on: boolean;
  set: number;
  waiting: number;
  failed: number;
  /** The store's latest refusal or retry reason, as it said it. */
  problem: string | null;
}

async function trackingLinks(prisma: DatabaseClient, shopId: string, on: boolean): Promise<TrackingLinks> {
  const { byState, problem } = await trackingLinkProgress(prisma, shopId, on ? 'store' : 'carrier');
  const count = (state: string) => byState.get(state) ?? 0;
  return { on, set: count('sent'), waiting: count('pending'), failed: count('failed'), problem };
}

/** The Shipments filter of tracked parcels the tracking service cannot follow (the model's not_followed). */
const notFollowedFilter = { parcel: 'not_followed', sync: 'tracked' } as const;

/**
 * What the Overview shows. Every health count is taken from the function that builds the list it links
 * to (failed work, refused writes, the shipments filter), so a line can never say "all written"
 * while that list holds refused writes.
 */
export async function getOverview(
  ctx: Pick<AppContext, 'prisma' | 'shops' | 'carriers'>,
  domain: string,
): Promise<Overview> {
  // The shop is read once; every count below is one statement on an index or a rollup.
  const current = await currentShop(ctx.shops, domain);
  const shop = overviewOf(current);
  const [failed, refusedWrites, waiting, notFollowed, anyTracker, links, problems, balance] =
    await Promise.all([
      countFailed(ctx.prisma, { shopId: current.id, shopDomain: current.domain }),
      countRefusedWrites(ctx.prisma, current.id),
      countShopShipments(ctx.prisma, current.id, { sync: 'waiting_carrier' }),
      // Tracked parcels the service cannot follow (a wrong carrier or number): they need the merchant too.
      countShopShipments(ctx.prisma, current.id, notFollowedFilter),
      hasAnyTracker(ctx.prisma, current.id),
      trackingLinks(ctx.prisma, current.id, current.linkToTrackingPage),
      countOpenProblems(ctx.prisma, current.id),
      balanceForecast(ctx.prisma, current),
    ]);
  const problem = (n: number, tone: 'warning' | 'critical') => (n === 0 ? 'success' : tone);
  const health: HealthItem[] = [
    {
      key: 'failed_trackers',
      count: failed.trackers,
      tone: problem(failed.trackers, 'critical'),
      page: 'activity',
    },
    {
      key: 'failed_deliveries',
      count: failed.deliveries,
      tone: problem(failed.deliveries, 'critical'),
      page: 'activity',
    },
    {
      key: 'store_writes_refused',
      count: refusedWrites,
      tone: problem(refusedWrites, 'warning'),
      page: 'activity',
    },
    {
      key: 'waiting_carrier',
      count: waiting,
      tone: problem(waiting, 'warning'),
      page: 'shipments',
      filter: { sync: 'waiting_carrier' },
    },
    {
      key: 'not_followed',
      count: notFollowed,
      tone: problem(notFollowed, 'warning'),
      page: 'shipments',
      filter: notFollowedFilter,
    },
  ];
  const connected = shop.connection.hasApiKey && shop.connection.paused?.reason !== 'not_connected';
  const steps: SetupStep[] = [
    {
      key: 'connect',
      title: 'Connect your tracking service account',
      description: 'Enter the app name and API key of your tracking service account.',
      done: connected,
      page: 'settings',
      params: { section: 'connection' },
    },
    {
      key: 'carriers',
      title: 'Match your carriers',
      description: 'Choose the tracking service carrier for each carrier name your store uses.',
      // Matched means followed: a carrier the service cannot follow (invalid_carrier) is not matched yet.
      done: waiting === 0 && notFollowed === 0,
      page: 'settings',
      params: { section: 'carriers' },
    },
    {
      key: 'first_tracker',
      title: 'Create your first tracker',
      description: 'Fulfil an order with a tracking number, or import recent fulfilments.',
      done: anyTracker,
      page: 'activity',
      params: { section: 'backfill' },
    },
  ];
  return {
    ...shop,
    problems: { total: Object.values(problems).reduce((a, b) => a + b, 0), byKind: problems },
    balance,
    setup: { done: steps.every((s) => s.done), steps },
    health,
    trackingPage: {
      url: `https://${current.domain}${storeProxyPath}`,
      lookups: current.trackingPageLookups,
      links,
    },
  };
}
