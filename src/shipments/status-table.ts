/**
 * What every parcel status means, in one table: its group (what the merchant filters and counts by), and
 * whether it is final (polling stops) or trouble (the merchant should look). The TypeScript rules below
 * and the SQL that the shipments' facets, the daily rollups and the analytics run (`parcelGroupSql`,
 * `syncStateSql`) are both generated from these lists, so the attention list, the filters, the counts and
 * the analytics can never classify a status two ways.
 *
 * Plain TypeScript with no imports: the page's bundle uses it too (through src/ui/vocabulary.ts).
 *
 * Stored statuses are already normalised (lower case, `_` for spaces and hyphens: `normaliseStatusCode`);
 * a status in none of the lists is a parcel still moving: in transit.
 */

/** The parcel's status in groups the merchant filters by. */
export const parcelGroups = [
  'not_scanned',
  'info_received',
  'in_transit',
  'out_for_delivery',
  'ready_for_pickup',
  'failed_attempt',
  'exception',
  'not_followed',
  'delivered',
  'ended',
] as const;
export type ParcelGroup = (typeof parcelGroups)[number];

/**
 * Which status codes make each group. `not_followed` holds the service's own tracker states (the
 * service cannot or no longer follows the tracker: a wrong number or carrier, expired, deleted): a
 * tracking problem for the merchant, never a parcel exception.
 */
export const parcelGroupStatuses: Record<Exclude<ParcelGroup, 'in_transit'>, readonly string[]> = {
  not_scanned: ['pending', 'pending_trackship', 'unknown'],
  info_received: ['info_received', 'label_created', 'label_printed', 'pre_transit'],
  out_for_delivery: ['out_for_delivery'],
  ready_for_pickup: ['available_for_pickup', 'ready_for_pickup'],
  // The service's `failure` is "Delivery Failure": a failed delivery attempt.
  failed_attempt: ['attempt_fail', 'failed_attempt', 'failure', 'delivery_attempted'],
  exception: [
    'exception',
    'error',
    'failed',
    'delayed',
    'on_hold',
    'undeliverable',
    'return_to_sender',
    'returned',
  ],
  not_followed: [
    'connection_issue',
    'invalid_tracking',
    'invalid_carrier',
    'carrier_unsupported',
    'expired',
    'deleted',
  ],
  delivered: ['delivered'],
  ended: ['cancelled', 'canceled', 'label_cancelled'],
};

/** Moving statuses whose detail names a group of its own (the service keeps in_transit for them). */
export const movingStatuses: readonly string[] = ['in_transit', 'transit'];
export const groupByDetail: Readonly<Partial<Record<string, ParcelGroup>>> = {
  out_for_delivery: 'out_for_delivery',
  available_for_pickup: 'ready_for_pickup',
  ready_for_pickup: 'ready_for_pickup',
  attempt_fail: 'failed_attempt',
  failed_attempt: 'failed_attempt',
  delivery_attempted: 'failed_attempt',
};

/**
 * Final: the parcel's story is over, or the service will not follow this tracker (a number or carrier
 * it cannot follow: mapping the carrier again makes a new tracker), so polling stops.
 */
export const finalStatuses: readonly string[] = [
  'delivered',
  'returned',
  'return_to_sender',
  'expired',
  'cancelled',
  'canceled',
  'label_cancelled',
  'deleted',
  'invalid_tracking',
  'invalid_carrier',
  'carrier_unsupported',
];

/** The groups that need the merchant: the attention list, the health line, the analytics' trouble. */
export const troubleGroups: readonly ParcelGroup[] = ['failed_attempt', 'exception', 'not_followed'];

/** How the admin's badges read a group. */
export type StatusTone = 'pending' | 'transit' | 'delivered' | 'exception' | 'ended';
export const parcelGroupStatusTones: Record<ParcelGroup, StatusTone> = {
  not_scanned: 'pending',
  info_received: 'pending',
  in_transit: 'transit',
  out_for_delivery: 'transit',
  ready_for_pickup: 'transit',
  failed_attempt: 'exception',
  exception: 'exception',
  not_followed: 'exception',
  delivered: 'delivered',
  ended: 'ended',
};

export function normaliseStatusCode(value: string | null | undefined): string {
  return (value ?? '')
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_');
}

const groupOfCode = new Map<string, ParcelGroup>(
  Object.entries(parcelGroupStatuses).flatMap(([group, codes]) =>
    codes.map((code) => [code, group as ParcelGroup] as const),
  ),
);
const finalCodes = new Set(finalStatuses);

/** The group of a status (and its detail); no status read yet: not_scanned. */
export function parcelGroupOf(status: string | null | undefined, detail?: string | null): ParcelGroup {
  const code = normaliseStatusCode(status);
  if (code === '') return 'not_scanned';
  if (movingStatuses.includes(code)) {
    const byDetail = groupByDetail[normaliseStatusCode(detail)];
    if (byDetail) return byDetail;
  }
  return groupOfCode.get(code) ?? 'in_transit';
}

export function isFinalStatus(status: string | null | undefined): boolean {
  return finalCodes.has(normaliseStatusCode(status));
}

/** Needs the merchant: a failed attempt, an exception, or a tracker the service does not follow. */
export function isTroubleStatus(status: string | null | undefined, detail?: string | null): boolean {
  return troubleGroups.includes(parcelGroupOf(status, detail));
}

/* ------------------------------------------------------------------ the same rules in SQL */

/** A string literal for generated SQL (the lists above are trusted constants; quotes doubled anyway). */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
const list = (codes: readonly string[]) => codes.map(literal).join(', ');

/**
 * parcelGroupOf in SQL, over two column expressions holding the stored (normalised) status and detail.
 * `present` is an SQL condition that is false when there is no tracker at all (a line waiting for its
 * carrier): such a line has no scan yet.
 */
export function parcelGroupSql(status: string, detail: string, present = 'TRUE'): string {
  const byDetail = Object.entries(groupByDetail).map(
    ([d, group]) =>
      `WHEN ${status} IN (${list(movingStatuses)}) AND ${detail} = ${literal(d)} THEN ${literal(group!)}`,
  );
  const byStatus = Object.entries(parcelGroupStatuses).map(
    ([group, codes]) => `WHEN ${status} IN (${list(codes)}) THEN ${literal(group)}`,
  );
  return [
    'CASE',
    `WHEN NOT (${present}) OR ${status} IS NULL OR ${status} = '' THEN 'not_scanned'`,
    ...byDetail,
    ...byStatus,
    `ELSE 'in_transit' END`,
  ].join(' ');
}

/** isFinalStatus in SQL, over a column expression holding the stored (normalised) status. */
export function finalStatusSql(status: string): string {
  return `${status} IN (${list(finalStatuses)})`;
}

/**
 * Where a tracker stands for the attention list, in SQL: 'trouble' (wanted, status in a trouble group),
 * 'watch' (wanted, held by the service, not final: late once quiet for the shop's days), else NULL.
 */
export function attentionSql(t: { status: string; detail: string; desired: string; remote: string }): string {
  return [
    'CASE',
    `WHEN ${t.desired} <> 'active' THEN NULL`,
    `WHEN ${parcelGroupSql(t.status, t.detail)} IN (${list(troubleGroups)}) THEN 'trouble'`,
    `WHEN ${t.remote} = 'present' AND (${t.status} IS NULL OR NOT (${finalStatusSql(t.status)})) THEN 'watch'`,
    'ELSE NULL END',
  ].join(' ');
}

/** The sync states a shipment line can be in (see syncStateOf in src/ui/vocabulary.ts). */
export const syncStates = [
  'tracked',
  'syncing',
  'waiting_carrier',
  'failed',
  'removing',
  'order_cancelled',
  'fulfillment_cancelled',
  'number_removed',
  'removed',
] as const;
export type SyncState = (typeof syncStates)[number];

/** Line end reasons that name a sync state of their own once the tracker is removed. */
export const namedEndings: readonly SyncState[] = [
  'order_cancelled',
  'fulfillment_cancelled',
  'number_removed',
];

/** The sync state of one line: no tracker → waiting for a carrier; else from the tracker's states. */
export function syncStateOf(
  tracker: { desired: string; remote: string; syncState: string } | null,
  endedReason: string | null,
): SyncState {
  if (!tracker) return 'waiting_carrier';
  if (tracker.syncState === 'failed' || tracker.syncState === 'dead') return 'failed';
  if (tracker.desired === 'removed') {
    if (tracker.remote !== 'absent') return 'removing';
    return namedEndings.includes(endedReason as SyncState) ? (endedReason as SyncState) : 'removed';
  }
  return tracker.syncState === 'synced' && tracker.remote === 'present' ? 'tracked' : 'syncing';
}

/** syncStateOf in SQL, over the tracker's columns (`present` false: no tracker) and the line's ending. */
export function syncStateSql(t: {
  present: string;
  syncState: string;
  desired: string;
  remote: string;
  endedReason: string;
}): string {
  return [
    'CASE',
    `WHEN NOT (${t.present}) THEN 'waiting_carrier'`,
    `WHEN ${t.syncState} IN ('failed', 'dead') THEN 'failed'`,
    `WHEN ${t.desired} = 'removed' AND ${t.remote} <> 'absent' THEN 'removing'`,
    `WHEN ${t.desired} = 'removed' AND ${t.endedReason} IN (${list(namedEndings)}) THEN ${t.endedReason}`,
    `WHEN ${t.desired} = 'removed' THEN 'removed'`,
    `WHEN ${t.syncState} = 'synced' AND ${t.remote} = 'present' THEN 'tracked'`,
    `ELSE 'syncing' END`,
  ].join(' ');
}
