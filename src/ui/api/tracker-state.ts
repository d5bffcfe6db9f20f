import type { Tracker } from '../../generated/sqlite/client.js';

/** A shipment as the merchant sees it: one word for where its tracker stands. */
export type TrackerState =
  'creating' | 'active' | 'removing' | 'removed' | 'failed' | 'dead' | 'waiting_carrier';

export const trackerStates = [
  'creating',
  'active',
  'removing',
  'removed',
  'failed',
  'dead',
  'waiting_carrier',
] as const satisfies readonly TrackerState[];

/**
 * From the tracker's desired state, what the service is known to hold, and the sync state: failed and
 * dead win; a tracker wanted and held (and synced) is active, wanted and not yet held is being created;
 * one no longer wanted is being removed until the service no longer holds it.
 */
export function trackerStateOf(tracker: Pick<Tracker, 'desired' | 'remote' | 'syncState'>): TrackerState {
  if (tracker.syncState === 'failed') return 'failed';
  if (tracker.syncState === 'dead') return 'dead';
  if (tracker.desired === 'removed') return tracker.remote === 'absent' ? 'removed' : 'removing';
  return tracker.syncState === 'synced' && tracker.remote === 'present' ? 'active' : 'creating';
}
