/**
 * The status table: the lists the parcel model's rows make (src/shipments/parcel-model.ts, one row per status
 * code; the database reads them as StatusClass rows, src/shipments/status-classes.ts), and the sync states
 * of a shipment line with their SQL (`syncStateSql`, which the rollup triggers run).
 *
 * Plain TypeScript whose only import is the model (itself import-free): the page's bundle uses it too.
 */

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

/** A string literal for generated SQL (the lists below are trusted constants; quotes doubled anyway). */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
const list = (codes: readonly string[]) => codes.map(literal).join(', ');

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
