import { describe, expect, it } from 'vitest';
import { deliveryFactsOf } from '../../src/shipments/delivery-facts.js';
import {
  arrivalEstimateOf,
  estimateOf,
  predictable,
  predictedDate,
  transitKeyOf,
} from '../../src/shipments/estimates.js';

/** Which estimate is shown where, the predicted date's arithmetic, and on-time against a predicted date. */

const parcel = (
  status: string | null,
  estimatedDelivery: string | null,
  predictedDelivery: string | null,
  statusDetail: string | null = null,
) => ({ status, statusDetail, estimatedDelivery, predictedDelivery });

describe('estimateOf / arrivalEstimateOf', () => {
  it('the service’s own first, else the predicted one, else none', () => {
    expect(estimateOf(parcel('in_transit', '2026-11-27', '2026-11-30'))).toEqual({
      date: '2026-11-27',
      predicted: false,
    });
    expect(estimateOf(parcel('in_transit', null, '2026-11-30'))).toEqual({
      date: '2026-11-30',
      predicted: true,
    });
    expect(estimateOf(parcel(null, null, null))).toBeNull();
  });

  it('none at all for a number the service cannot follow (group not_followed)', () => {
    for (const status of [
      'invalid_tracking',
      'invalid_carrier',
      'carrier_unsupported',
      'expired',
      'deleted',
    ]) {
      expect(estimateOf(parcel(status, '2026-11-27', '2026-11-30')), status).toBeNull();
      expect(arrivalEstimateOf(parcel(status, '2026-11-27', '2026-11-30')), status).toBeNull();
    }
    expect(estimateOf(parcel('connection_issue', '2026-11-27', null))).toBeNull();
  });

  it('the shopper sees none once the parcel’s story is over; the merchant still sees the service’s', () => {
    expect(arrivalEstimateOf(parcel('delivered', '2026-11-27', null))).toBeNull();
    expect(arrivalEstimateOf(parcel('returned', '2026-11-27', null))).toBeNull();
    expect(arrivalEstimateOf(parcel('in_transit', '2026-11-27', null, 'out_for_delivery'))).toEqual({
      date: '2026-11-27',
      predicted: false,
    });
    expect(estimateOf(parcel('delivered', '2026-11-27', null))).toEqual({
      date: '2026-11-27',
      predicted: false,
    });
  });
});

describe('predictions', () => {
  it('are made for parcels on their way that the service follows', () => {
    expect(predictable(null, null)).toBe(true);
    expect(predictable('pending', null)).toBe(true);
    expect(predictable('in_transit', 'out_for_delivery')).toBe(true);
    expect(predictable('exception', null)).toBe(true);
    expect(predictable('delivered', null)).toBe(false);
    expect(predictable('cancelled', null)).toBe(false);
    expect(predictable('connection_issue', null)).toBe(false);
  });

  it('start + median, as a UTC date', () => {
    const start = Date.parse('2026-11-20T22:00:00Z');
    expect(predictedDate(start, 74 * 3600)).toBe('2026-11-24');
    expect(predictedDate(start, 74 * 3600 - 1)).toBe('2026-11-23');
    expect(predictedDate(start, 0)).toBe('2026-11-20');
  });

  it('keys a tracker with no country as ""', () => {
    expect(transitKeyOf({ shopId: 's', provider: 'ups', destinationCountry: null })).toEqual({
      shopId: 's',
      provider: 'ups',
      destinationCountry: '',
    });
  });
});

describe('deliveryFactsOf: on time against the estimate', () => {
  const delivered = (estimatedDelivery: string | null, predictedDelivery: string | null) =>
    deliveryFactsOf({
      status: 'delivered',
      statusDetail: null,
      events: [
        {
          at: '2026-11-20T22:00:00.000Z',
          status: 'in_transit',
          statusDetail: null,
          message: '',
          location: null,
        },
        {
          at: '2026-11-24T09:00:00.000Z',
          status: 'delivered',
          statusDetail: null,
          message: '',
          location: null,
        },
      ],
      lastEventAt: new Date('2026-11-24T09:00:00.000Z'),
      estimatedDelivery,
      predictedDelivery,
      createdAt: new Date('2026-11-19T00:00:00.000Z'),
    }).deliveredOnTime;

  it('the service’s estimate, else the predicted one; neither: not measured', () => {
    expect(delivered('2026-11-23', '2026-11-25')).toBe(false);
    expect(delivered(null, '2026-11-24')).toBe(true);
    expect(delivered(null, '2026-11-23')).toBe(false);
    expect(delivered(null, null)).toBeNull();
  });
});
