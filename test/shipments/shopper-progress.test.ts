import { describe, expect, it } from 'vitest';
import { progressOf } from '../../src/shipments/shopper-progress.js';

describe('a parcel’s progress for the shopper', () => {
  it('places every kind of status on its step, with the trouble on it', () => {
    const cases: Array<
      [status: string | null, detail: string | null, moved: boolean, step: string, trouble: string | null]
    > = [
      [null, null, false, 'shipped', null],
      ['pending', null, false, 'shipped', null],
      ['pre_transit', null, false, 'shipped', null],
      ['in_transit', null, true, 'in_transit', null],
      ['in_transit', 'out_for_delivery', true, 'out_for_delivery', null],
      ['out_for_delivery', null, true, 'out_for_delivery', null],
      ['in_transit', 'available_for_pickup', true, 'out_for_delivery', 'pickup'],
      ['failure', null, true, 'out_for_delivery', 'failed_attempt'],
      ['in_transit', 'attempt_fail', true, 'out_for_delivery', 'failed_attempt'],
      ['exception', null, true, 'in_transit', 'exception'],
      ['exception', null, false, 'shipped', 'exception'],
      ['on_hold', null, true, 'in_transit', 'on_hold'],
      ['exception', 'delayed', true, 'in_transit', 'on_hold'],
      ['return_to_sender', null, true, 'in_transit', 'returning'],
      ['returned', null, true, 'in_transit', 'returning'],
      ['invalid_tracking', null, false, 'shipped', 'tracking_unavailable'],
      ['expired', null, true, 'in_transit', 'tracking_unavailable'],
      ['cancelled', null, false, 'shipped', 'cancelled'],
      ['delivered', null, true, 'delivered', null],
      ['Delivered', null, true, 'delivered', null],
      ['something_new', null, true, 'in_transit', null],
    ];
    for (const [status, detail, moved, step, trouble] of cases) {
      const progress = progressOf(status, detail, moved);
      expect({ step: progress.step, trouble: progress.trouble }, `${status}/${detail}`).toEqual({
        step,
        trouble,
      });
      expect(progress.index).toBe(
        ['ordered', 'shipped', 'in_transit', 'out_for_delivery', 'delivered'].indexOf(step),
      );
    }
  });
});
