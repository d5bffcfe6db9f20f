import { z } from 'zod';
import type { CarrierRepository } from '../../carriers/carrier-repository.js';
import type { DatabaseClient } from '../../db/client.js';
import type { Prisma, Tracker, TrackingLine } from '../../generated/sqlite/client.js';
import type { ShopRepository } from '../../shops/shop-repository.js';
import {
  describeFailure,
  groupByDetail,
  movingStatuses,
  type ParcelGroup,
  parcelGroupOf,
  parcelGroups,
  parcelGroupStatuses,
  problemSyncStates,
  type SyncFilter,
  syncFilters,
  syncLabels,
  type SyncState,
  syncStateOf,
} from '../vocabulary.js';
import { currentShop } from './current-shop.js';
import { type LastEventView, lastEventOf, type StatusTone, statusView } from './shipment-status.js';

/** Rows on one page of the list. */
export const shipmentsPerPage = 50;

const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD')
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)), 'must be a real date');

export const shipmentsQuery = z
  .object({
    search: z.string().trim().max(100).optional(),
    parcel: z.enum(parcelGroups).optional(),
    sync: z.enum(syncFilters).optional(),
    from: day.optional(),
    to: day.optional(),
    page: z.coerce.number().int().min(1).max(100_000).default(1),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, {
    message: 'from must be on or before to',
    path: ['from'],
  });
export type ShipmentsQuery = z.output<typeof shipmentsQuery>;

/** One shipment: a tracking number on one of the store's fulfilments. */
export interface ShipmentListRow {
  /** The line's id: stable across pages. */
  key: string;
  /** Null while the line waits for its carrier to be mapped. */
  trackerId: string | null;
  orderId: string;
  orderName: string | null;
  /** #1002.1 */
  fulfillmentName: string | null;
  trackingNumber: string;
  /** The carrier's own tracking page, from the store's fulfilment (http/https only). */
  trackingUrl: string | null;
  /** The store's free-text carrier name. */
  carrierName: string | null;
  /** The tracking service's carrier (slug) and its label from the carrier list. */
  provider: string | null;
  providerLabel: string | null;
  parcel: {
    group: ParcelGroup;
    /** The service's status code and detail; null before the first read. */
    code: string | null;
    detail: string | null;
    label: string;
    tone: StatusTone;
    /** For the service's own tracker states (invalid carrier…): what the merchant can do. */
    action: string | null;
  };
  /**
   * Every parcel of this row's order still wanted is delivered (a line waiting for its carrier is not);
   * always false when the shop turned showOrderDelivered off.
   */
  orderDelivered: boolean;
  sync: {
    state: SyncState;
    label: string;
    /** Needs the merchant (failed, or waiting for a carrier). */
    problem: boolean;
    /** What happened, for a failure (once). */
    reason: string | null;
    /** What to do about it. */
    action: string | null;
  };
  estimatedDelivery: string | null;
  lastEvent: LastEventView | null;
  statusCheckedAt: string | null;
  createdAt: string;
}

export interface ShipmentsList {
  rows: ShipmentListRow[];
  page: number;
  pageCount: number;
  /** Rows matching every filter (all pages). */
  total: number;
  /**
   * How many rows each filter value would give with the other filters as they are (each facet ignores its
   * own filter): counted by the same conditions as the rows.
   */
  counts: { parcel: Record<ParcelGroup, number>; sync: Record<SyncFilter, number> };
}

type Where = Prisma.TrackingLineWhereInput;

/** The lines shown: those still wanted, and those whose tracker exists (even once removed). */
function visible(shopId: string): Where {
  return { shopId, OR: [{ active: true }, { trackerId: { not: null } }] };
}

function searchWhere(search: string): Where {
  // SQLite compares ASCII case-insensitively, PostgreSQL does not: try the usual spellings.
  const spellings = [...new Set([search, search.toUpperCase(), search.toLowerCase()])];
  return {
    OR: [
      { orderId: search },
      ...spellings.map((s) => ({ orderName: { contains: s } })),
      ...spellings.map((s) => ({ fulfillmentName: { contains: s } })),
      ...spellings.map((s) => ({ trackingNumber: { contains: s } })),
    ],
  };
}

function dateWhere(from: string | undefined, to: string | undefined): Where | null {
  if (!from && !to) return null;
  return {
    createdAt: {
      ...(from ? { gte: new Date(`${from}T00:00:00.000Z`) } : {}),
      ...(to ? { lt: new Date(Date.parse(`${to}T00:00:00.000Z`) + 86_400_000) } : {}),
    },
  };
}

const detailsOf = (group: ParcelGroup) =>
  Object.entries(groupByDetail)
    .filter(([, g]) => g === group)
    .map(([detail]) => detail);

/** Every status code named by a group other than in transit. */
const namedStatuses = Object.values(parcelGroupStatuses).flat();
/** Details that move a moving status into another group. */
const tellingDetails = Object.keys(groupByDetail);

/** The lines whose parcel is in `group`: the same rule as parcelGroupOf, in SQL. */
function parcelWhere(group: ParcelGroup): Where {
  const moving = { status: { in: [...movingStatuses] } };
  if (group === 'in_transit') {
    // Read, not named by any other group, and not a moving status whose detail names another group.
    // (Written without NOT over a nullable column: SQL's NOT of a NULL comparison is not true.)
    return {
      tracker: {
        is: {
          OR: [
            { status: { not: null, notIn: [...namedStatuses, ...movingStatuses] } },
            { ...moving, OR: [{ statusDetail: null }, { statusDetail: { notIn: tellingDetails } }] },
          ],
        },
      },
    };
  }
  const named = parcelGroupStatuses[group];
  const byDetail = detailsOf(group);
  const trackerMatches: Prisma.TrackerWhereInput[] = [{ status: { in: [...named] } }];
  if (byDetail.length > 0) trackerMatches.push({ ...moving, statusDetail: { in: byDetail } });
  if (group === 'not_scanned') {
    trackerMatches.push({ status: null });
    return { OR: [{ trackerId: null }, { tracker: { is: { OR: trackerMatches } } }] };
  }
  return { tracker: { is: { OR: trackerMatches } } };
}

const failedStates = ['failed', 'dead'];

/** The lines whose sync state is `state`: the same rule as syncStateOf, in SQL. */
function syncWhere(state: SyncFilter): Where {
  const live = { syncState: { notIn: failedStates } };
  switch (state) {
    case 'problem':
      return { OR: problemSyncStates.map((s) => syncWhere(s)) };
    case 'waiting_carrier':
      return { trackerId: null };
    case 'failed':
      return { tracker: { is: { syncState: { in: failedStates } } } };
    case 'tracked':
      return { tracker: { is: { desired: 'active', syncState: 'synced', remote: 'present' } } };
    case 'syncing':
      return {
        tracker: {
          is: { ...live, desired: 'active', NOT: { syncState: 'synced', remote: 'present' } },
        },
      };
    case 'removing':
      return { tracker: { is: { ...live, desired: 'removed', remote: { not: 'absent' } } } };
    case 'removed':
      return {
        tracker: { is: { ...live, desired: 'removed', remote: 'absent' } },
        OR: [
          { endedReason: null },
          { endedReason: { notIn: ['order_cancelled', 'fulfillment_cancelled', 'number_removed'] } },
        ],
      };
    default:
      return {
        tracker: { is: { ...live, desired: 'removed', remote: 'absent' } },
        endedReason: state,
      };
  }
}

/** Every condition of the query but `omit` (a facet's counts ignore its own filter). */
function listWhere(shopId: string, query: ShipmentsQuery, omit?: 'parcel' | 'sync'): Where {
  const parts: Where[] = [visible(shopId)];
  if (query.search) parts.push(searchWhere(query.search));
  const dates = dateWhere(query.from, query.to);
  if (dates) parts.push(dates);
  if (query.parcel && omit !== 'parcel') parts.push(parcelWhere(query.parcel));
  if (query.sync && omit !== 'sync') parts.push(syncWhere(query.sync));
  return { AND: parts };
}

type LineWithTracker = TrackingLine & { tracker: Tracker | null };

/** One line as the list shows it. */
export function shipmentListRowOf(
  line: LineWithTracker,
  providerLabels: Map<string, string>,
  deliveredOrders: ReadonlySet<string> = new Set(),
): ShipmentListRow {
  const tracker = line.tracker;
  const view = tracker ? statusView(tracker.status, tracker.statusDetail) : null;
  const group = parcelGroupOf(tracker?.status, tracker?.statusDetail);
  const state = syncStateOf(tracker, line.endedReason);
  const failure = state === 'failed' ? describeFailure(tracker!.lastErrorReason, tracker!.lastError) : null;
  return {
    key: line.id,
    trackerId: tracker?.id ?? null,
    orderId: line.orderId,
    orderName: line.orderName,
    fulfillmentName: line.fulfillmentName,
    trackingNumber: line.trackingNumber,
    trackingUrl: line.trackingUrl,
    carrierName: line.carrierName,
    provider: tracker?.provider ?? null,
    providerLabel: tracker ? (providerLabels.get(tracker.provider) ?? null) : null,
    parcel: {
      group,
      code: view?.code ?? null,
      detail: view?.detail ?? null,
      label: view?.label ?? 'No scan yet',
      tone: view?.tone ?? 'pending',
      action: view?.action ?? null,
    },
    orderDelivered: deliveredOrders.has(line.orderId),
    sync: {
      state,
      label: syncLabels[state],
      problem: problemSyncStates.includes(state),
      reason: failure?.what ?? null,
      action:
        failure?.todo ??
        (state === 'waiting_carrier'
          ? `Choose the tracking service's carrier for “${line.carrierName ?? 'no carrier name'}” in Settings → Carrier mapping.`
          : null),
    },
    estimatedDelivery: tracker?.estimatedDelivery ?? null,
    lastEvent: tracker ? lastEventOf(tracker) : null,
    statusCheckedAt: tracker?.statusCheckedAt?.toISOString() ?? null,
    createdAt: line.createdAt.toISOString(),
  };
}

type ListDeps = { prisma: DatabaseClient; shops: ShopRepository; carriers: CarrierRepository };

async function providerLabels(carriers: CarrierRepository): Promise<Map<string, string>> {
  return new Map((await carriers.providers()).map((p) => [p.slug, p.label]));
}

const newestFirst: Prisma.TrackingLineOrderByWithRelationInput[] = [{ createdAt: 'desc' }, { id: 'desc' }];

/**
 * The shop's shipments, one row per tracking number on a fulfilment, newest first, 50 a page, with every
 * filter's counts. Rows and counts are built from the same conditions (listWhere), so a count beside a
 * filter is the number of rows that filter shows.
 */
export async function listShipments(
  deps: ListDeps,
  domain: string,
  query: ShipmentsQuery,
): Promise<ShipmentsList> {
  const shop = await currentShop(deps.shops, domain);
  const where = listWhere(shop.id, query);
  const count = (w: Where) => deps.prisma.trackingLine.count({ where: w });
  const byParcel = listWhere(shop.id, query, 'parcel');
  const bySync = listWhere(shop.id, query, 'sync');
  const [total, lines, labels, parcelCounts, syncCounts] = await Promise.all([
    count(where),
    deps.prisma.trackingLine.findMany({
      where,
      include: { tracker: true },
      orderBy: newestFirst,
      skip: (query.page - 1) * shipmentsPerPage,
      take: shipmentsPerPage,
    }),
    providerLabels(deps.carriers),
    Promise.all(parcelGroups.map((g) => count({ AND: [byParcel, parcelWhere(g)] }))),
    Promise.all(syncFilters.map((s) => count({ AND: [bySync, syncWhere(s)] }))),
  ]);
  const delivered = shop.showOrderDelivered
    ? await ordersAllDelivered(deps.prisma, shop.id, [...new Set(lines.map((l) => l.orderId))])
    : new Set<string>();
  return {
    rows: lines.map((line) => shipmentListRowOf(line, labels, delivered)),
    page: query.page,
    pageCount: Math.max(1, Math.ceil(total / shipmentsPerPage)),
    total,
    counts: {
      parcel: Object.fromEntries(parcelGroups.map((g, i) => [g, parcelCounts[i]!])) as Record<
        ParcelGroup,
        number
      >,
      sync: Object.fromEntries(syncFilters.map((s, i) => [s, syncCounts[i]!])) as Record<SyncFilter, number>,
    },
  };
}

/** How many rows the list gives for these filters (what its `total` would say). */
export async function countShipments(
  deps: Pick<ListDeps, 'prisma' | 'shops'>,
  domain: string,
  query: Omit<ShipmentsQuery, 'page'>,
): Promise<number> {
  const shop = await currentShop(deps.shops, domain);
  return deps.prisma.trackingLine.count({ where: listWhere(shop.id, { ...query, page: 1 }) });
}

/**
 * The orders (of those given) whose every wanted parcel is delivered: lines still wanted, a tracker being
 * removed is not one of the order's parcels, a line waiting for its carrier is not delivered.
 */
async function ordersAllDelivered(
  prisma: DatabaseClient,
  shopId: string,
  orderIds: string[],
): Promise<Set<string>> {
  if (orderIds.length === 0) return new Set();
  const lines = await prisma.trackingLine.findMany({
    where: { shopId, orderId: { in: orderIds }, active: true },
    select: { orderId: true, tracker: { select: { desired: true, status: true } } },
  });
  const wanted = new Map<string, boolean[]>();
  for (const line of lines) {
    if (line.tracker?.desired === 'removed') continue;
    const list = wanted.get(line.orderId) ?? [];
    list.push(parcelGroupOf(line.tracker?.status) === 'delivered');
    wanted.set(line.orderId, list);
  }
  return new Set([...wanted].filter(([, all]) => all.length > 0 && all.every(Boolean)).map(([id]) => id));
}

/** Lines read per query when exporting. */
const exportBatch = 500;

/**
 * Every row the filters give (no page), newest first, read in batches by keyset so a large shop is never
 * loaded at once.
 */
export async function* exportShipments(
  deps: ListDeps,
  domain: string,
  query: Omit<ShipmentsQuery, 'page'>,
): AsyncGenerator<ShipmentListRow[]> {
  const shop = await currentShop(deps.shops, domain);
  const where = listWhere(shop.id, { ...query, page: 1 });
  const labels = await providerLabels(deps.carriers);
  let after: { createdAt: Date; id: string } | null = null;
  for (;;) {
    const keyset: Where | null = after
      ? {
          OR: [{ createdAt: { lt: after.createdAt } }, { createdAt: after.createdAt, id: { lt: after.id } }],
        }
      : null;
    const lines: LineWithTracker[] = await deps.prisma.trackingLine.findMany({
      where: keyset ? { AND: [where, keyset] } : where,
      include: { tracker: true },
      orderBy: newestFirst,
      take: exportBatch,
    });
    if (lines.length === 0) return;
    yield lines.map((line) => shipmentListRowOf(line, labels));
    if (lines.length < exportBatch) return;
    const last = lines[lines.length - 1]!;
    after = { createdAt: last.createdAt, id: last.id };
  }
}
