/**
 * The status table's SQL: the rules of the parcel model (src/shipments/parcel-model.ts, one row per status
 * code) as the SQL that the shipments' facets, the daily rollups and the analytics run (`parcelGroupSql`,
 * `syncStateSql`, `attentionSql`), generated from the model's rows, so the attention list, the filters, the
 * counts and the analytics can never classify a status two ways; and the sync states of a shipment line.
 *
 * Plain TypeScript whose only import is the model (itself import-free): the page's bundle uses it too.
 */

import {
  finalStatuses,
  groupByDetail,
  movingStatuses,
  parcelGroupStatuses,
  troubleGroups,
} from './parcel-model.js';

export {
  finalStatuses,
  groupByDetail,
  isFinalStatus,
  isTroubleStatus,
  movingStatuses,
  normaliseStatusCode,
  type ParcelGroup,
  parcelGroupOf,
  parcelGroups,
  parcelGroupStatuses,
  parcelGroupStatusTones,
  type StatusTone,
  troubleGroups,
} from './parcel-model.js';

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
