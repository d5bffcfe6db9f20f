import type { AppContext } from '../../context/app-context.js';
import { z } from 'zod';
import type { DatabaseClient } from '../../db/client.js';
import { encodeCursor, keysetCursorParam } from '../../db/keyset-cursor.js';
import { storableString } from '../../db/storable-text.js';
import { type Estimate, estimateOf } from '../../shipments/estimates.js';
import {
  cursorOf,
  type LineWithTracker,
  ordersAllDelivered,
  pageOfLines,
  type ShipmentCountCell,
  type ShipmentCursor,
  type ShipmentFilter,
  shipmentCounts,
} from '../../shipments/queries/shipment-list.js';
import {
  describeFailure,
  type ParcelGroup,
  needsAction,
  needsActionCells,
  type ParcelAction,
  parcelGroups,
  type SyncFilter,
  syncFilters,
  syncLabels,
  type SyncState,
  syncStateOf,
} from '../vocabulary.js';
import { currentShop } from './current-shop.js';
import { earliestMerchantDay, merchantDay } from './validation.js';
import { type LastEventView, lastEventOf, type StatusTone, statusView } from './shipment-status.js';

/** Rows on one page of the list. */
export const shipmentsPerPage = 50;

/** A filter's day: a real date from 2000 to a year ahead (year 0 would reach the database). */
const day = (field: string) =>
  merchantDay(field, {
    from: earliestMerchantDay,
    fromMessage: `${field} must be ${earliestMerchantDay} or later`,
  });

/** A position in the list (a row's createdAt and id): the app's keyset cursor (src/db/keyset-cursor.ts). */
const cursor = keysetCursorParam.transform((c, ctx): ShipmentCursor => {
  if (c.at === null) {
    ctx.addIssue({ code: 'custom', message: 'Not a page cursor' });
    return z.NEVER;
  }
  return { createdAt: c.at, id: c.id };
});

const encodePosition = (position: ShipmentCursor) =>
  encodeCursor({ at: position.createdAt, id: position.id });

export const shipmentsQuery = z
  .object({
    search: storableString().trim().max(100).optional(),
    parcel: z.enum(parcelGroups).optional(),
    sync: z.enum(syncFilters).optional(),
    from: day('from').optional(),
    to: day('to').optional(),
    /** The page after this position (older rows). */
    after: cursor.optional(),
    /** The page before this position (newer rows). */
    before: cursor.optional(),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, {
    message: 'from must be on or before to',
    path: ['from'],
  })
  .refine((q) => !(q.after && q.before), { message: 'give after or before, not both', path: ['before'] });
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
    /** The parcel model's one piece of advice (a wrong carrier: map it…), and its one action. */
    advice: string | null;
    action: ParcelAction | null;
  };
  /**
   * Every parcel of this row's order still wanted is delivered (a line waiting for its carrier is not);
   * always false when the shop turned showOrderDelivered off.
   */
  orderDelivered: boolean;
  sync: {
    state: SyncState;
    label: string;
    /** Needs the merchant (failed, waiting for a carrier, or a parcel the service cannot follow). */
    problem: boolean;
    /** What happened, for a failure (once). */
    reason: string | null;
    /** What to do about it. */
    action: string | null;
  };
  /** The service's estimated delivery date, as given; none for a tracker the service cannot follow. */
  estimatedDelivery: string | null;
  /** The estimate shown: the service's, else one predicted from the shop's deliveries (`predicted`). */
  estimate: Estimate | null;
  lastEvent: LastEventView | null;
  statusCheckedAt: string | null;
  createdAt: string;
}

export interface ShipmentsList {
  rows: ShipmentListRow[];
  /** The next page (older rows): pass as `after`; null on the last page. */
  nextCursor: string | null;
  /** The previous page (newer rows): pass as `before`; null on the first page. */
  previousCursor: string | null;
  /** Rows matching every filter (all pages). */
  total: number;
  /**
   * How many rows each filter value would give with the other filters as they are (each facet ignores its
   * own filter): counted by the same conditions as the rows.
   */
  counts: { parcel: Record<ParcelGroup, number>; sync: Record<SyncFilter, number> };
}

/** Whether a line in this group and state is in the sync filter's set ("Needs action": needsAction). */
function inSyncFilter(filter: SyncFilter, group: ParcelGroup, state: SyncState): boolean {
  return filter === 'problem' ? needsAction(group, state) : state === filter;
}

function filterOf(query: Omit<ShipmentsQuery, 'after' | 'before'>): ShipmentFilter {
  const parcel = query.parcel;
  return {
    search: query.search || undefined,
    parcel: parcel ? [parcel] : undefined,
    sync: query.sync && query.sync !== 'problem' ? [query.sync] : undefined,
    cells:
      query.sync === 'problem'
        ? needsActionCells
            .filter((c) => !parcel || c.parcel === null || c.parcel === parcel)
            .map((c) => ({ parcel: parcel ?? c.parcel, sync: c.sync }))
        : undefined,
    from: query.from,
    to: query.to,
  };
}

/** The list's total and each facet's counts, from the counts per (parcel group, sync state). */
function countsOf(cells: ShipmentCountCell[], query: Omit<ShipmentsQuery, 'after' | 'before'>) {
  const inSync = (c: ShipmentCountCell) =>
    !query.sync || inSyncFilter(query.sync, c.parcelGroup, c.syncState);
  const inParcel = (c: ShipmentCountCell) => !query.parcel || c.parcelGroup === query.parcel;
  const sum = (keep: (c: ShipmentCountCell) => boolean) =>
    cells.filter(keep).reduce((n, c) => n + c.count, 0);
  const parcel = Object.fromEntries(
    parcelGroups.map((g) => [g, sum((c) => inSync(c) && c.parcelGroup === g)]),
  ) as Record<ParcelGroup, number>;
  const sync = Object.fromEntries(
    syncFilters.map((f) => [f, sum((c) => inParcel(c) && inSyncFilter(f, c.parcelGroup, c.syncState))]),
  ) as Record<SyncFilter, number>;
  return { total: sum((c) => inSync(c) && inParcel(c)), counts: { parcel, sync } };
}

/** One line as the list shows it. */
export function shipmentListRowOf(
  line: LineWithTracker,
  providerLabels: Map<string, string>,
  deliveredOrders: ReadonlySet<string> = new Set(),
): ShipmentListRow {
  const tracker = line.tracker;
  // The parcel as the model tells it; a line ended in the store (a cancelled fulfilment) says so.
  const view = statusView(tracker?.status, tracker?.statusDetail, line.endedReason);
  // The group the list files the line under (kept by the rollup triggers from the tracker's status).
  const group = line.parcelGroup as ParcelGroup;
  const state = syncStateOf(tracker, line.endedReason);
  const failure = state === 'failed' ? describeFailure(tracker!.lastErrorReason, tracker!.lastError) : null;
  const estimate = tracker ? estimateOf(tracker, line.endedReason) : null;
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
      advice: view?.advice ?? null,
      action: view?.action ?? null,
    },
    orderDelivered: deliveredOrders.has(line.orderId),
    sync: {
      state,
      label: syncLabels[state],
      problem: needsAction(group, state),
      reason: failure?.what ?? null,
      action:
        failure?.todo ??
        (state === 'waiting_carrier'
          ? `Choose the tracking service's carrier for “${line.carrierName ?? 'no carrier name'}” in Settings → Carrier mapping.`
          : null),
    },
    estimatedDelivery: estimate && !estimate.predicted ? estimate.date : null,
    estimate,
    lastEvent: tracker ? lastEventOf(tracker) : null,
    statusCheckedAt: tracker?.statusCheckedAt?.toISOString() ?? null,
    createdAt: line.createdAt.toISOString(),
  };
}

/**
 * The shop's shipments, one row per tracking number on a fulfilment, newest first, 50 a page by keyset,
 * with every filter's counts (from the rollup, or the search's matches). Rows and counts are built from
 * the same classification (the lines' parcelGroup and syncState), so a count beside a filter is the
 * number of rows that filter shows.
 */
export async function listShipments(
  ctx: Pick<AppContext, 'prisma' | 'shops' | 'carriers'>,
  domain: string,
  query: ShipmentsQuery,
): Promise<ShipmentsList> {
  const shop = await currentShop(ctx.shops, domain);
  const filter = filterOf(query);
  const [page, cells] = await Promise.all([
    pageOfLines(ctx.prisma, shop.id, filter, {
      after: query.after,
      before: query.before,
      limit: shipmentsPerPage,
    }),
    shipmentCounts(ctx.prisma, shop.id, filter),
  ]);
  const [labels, delivered] = await Promise.all([
    ctx.carriers.labelsOf(page.lines.flatMap((l) => (l.tracker ? [l.tracker.provider] : []))),
    shop.showOrderDelivered
      ? ordersAllDelivered(ctx.prisma, shop.id, [...new Set(page.lines.map((l) => l.orderId))])
      : Promise.resolve(new Set<string>()),
  ]);
  const first = page.lines[0];
  const last = page.lines.at(-1);
  // Read forwards (after, or from the top), `more` says whether older rows follow; read backwards, whether
  // newer rows precede. The other direction is known from the cursor given.
  const forwards = query.before === undefined;
  const hasOlder = forwards ? page.more : true;
  const hasNewer = forwards ? query.after !== undefined : page.more;
  return {
    rows: page.lines.map((line) => shipmentListRowOf(line, labels, delivered)),
    nextCursor: last && hasOlder ? encodePosition(cursorOf(last)) : null,
    previousCursor: first && hasNewer ? encodePosition(cursorOf(first)) : null,
    ...countsOf(cells, query),
  };
}

/** How many rows the list gives for these filters (what its `total` would say), for a shop at hand. */
export async function countShopShipments(
  prisma: DatabaseClient,
  shopId: string,
  query: Omit<ShipmentsQuery, 'after' | 'before'>,
): Promise<number> {
  return countsOf(await shipmentCounts(prisma, shopId, filterOf(query)), query).total;
}

/** Lines read per query when exporting. */
const exportBatch = 500;

/**
 * Every row the filters give (no page), newest first, read in batches by keyset: each batch is one index
 * range read from where the last one stopped, so the export is linear in the rows and holds one batch.
 */
export async function* exportShipments(
  ctx: Pick<AppContext, 'prisma' | 'shops' | 'carriers'>,
  domain: string,
  query: Omit<ShipmentsQuery, 'after' | 'before'>,
): AsyncGenerator<ShipmentListRow[]> {
  const shop = await currentShop(ctx.shops, domain);
  const filter = filterOf(query);
  let after: ShipmentCursor | undefined;
  for (;;) {
    const page = await pageOfLines(ctx.prisma, shop.id, filter, { after, limit: exportBatch });
    if (page.lines.length === 0) return;
    const labels = await ctx.carriers.labelsOf(
      page.lines.flatMap((l) => (l.tracker ? [l.tracker.provider] : [])),
    );
    yield page.lines.map((line) => shipmentListRowOf(line, labels));
    if (!page.more) return;
    after = cursorOf(page.lines.at(-1)!);
  }
}
