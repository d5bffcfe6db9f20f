import type { StatusTone } from '../../api/shipment-status.js';
import { h } from '../dom.js';

/** The parcel's status tone → Polaris's tone: its badge, and its bar in the charts, read alike. */
export const parcelTones: Record<StatusTone, 'neutral' | 'info' | 'success' | 'critical' | 'warning'> = {
  pending: 'neutral',
  transit: 'info',
  delivered: 'success',
  exception: 'critical',
  ended: 'neutral',
};

export function parcelBadge(parcel: { label: string; tone: StatusTone }): HTMLElement {
  return h('s-badge', { tone: parcelTones[parcel.tone] }, parcel.label);
}
