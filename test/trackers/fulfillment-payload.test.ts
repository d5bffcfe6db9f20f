import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  fulfillmentPayload,
  orderCancelledPayload,
  orderNameFromFulfillmentName,
} from '../../src/trackers/fulfillment-payload.js';
import {
  customersDataRequestPayload,
  customersRedactPayload,
  shopRedactPayload,
} from '../../src/webhooks/payloads.js';
import { fulfillmentBody } from '../helpers/factories.js';
import { fixture } from '../helpers/webhooks.js';

describe('fulfillmentPayload on the store fixtures', () => {
  it('reads the UPS fixture', () => {
    expect(fulfillmentPayload.parse(fixture('fulfillments-create.ups'))).toEqual({
      fulfillmentId: '5521012345678',
      orderId: '6120000000001',
      orderName: '#1001',
      fulfillmentName: '#1001.1',
      customerEmail: 'jane.doe@example.com',
      trackingUrls: { '1Z999AA10123456784': 'https://www.ups.com/track?tracknum=1Z999AA10123456784' },
      status: 'success',
      updatedAt: new Date('2026-11-18T15:21:43Z'),
      carrierName: 'UPS',
      trackingNumbers: ['1Z999AA10123456784'],
      postalCode: '40003',
      destinationCountry: 'US',
      refusedNumbers: { overLimit: 0, malformed: 0 },
    });
  });

  it('keeps each number its carrier tracking page (http/https only), the postcode fixture none', () => {
    const dhl = fulfillmentPayload.parse(fixture('fulfillments-create.dhl-two-parcels'));
    expect(Object.keys(dhl.trackingUrls).sort()).toEqual(['1234567890', '1234567891']);
    expect(Object.values(dhl.trackingUrls).every((u) => u.startsWith('https://www.dhl.com/'))).toBe(true);
    expect(
      fulfillmentPayload.parse(fixture('fulfillments-create.postnl-needs-postcode')).trackingUrls,
    ).toEqual({});
    const hostile = fulfillmentPayload.parse({
      ...fixture('fulfillments-create.dhl-two-parcels'),
      tracking_urls: ['javascript:alert(1)', `https://x.example/${'a'.repeat(2100)}`],
      tracking_url: 'data:text/html,hi',
    });
    expect(hostile.trackingUrls).toEqual({});
    // Not a list: that field is ignored (the single tracking_url still serves the one number).
    const odd = fulfillmentPayload.parse({ ...fixture('fulfillments-create.ups'), tracking_urls: 'nope' });
    expect(odd.trackingNumbers).toEqual(['1Z999AA10123456784']);
    expect(odd.trackingUrls).toEqual({
      '1Z999AA10123456784': 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
    });
  });

  it('reads both parcels of the DHL fixture and its non-ASCII address', () => {
    const parsed = fulfillmentPayload.parse(fixture('fulfillments-create.dhl-two-parcels'));
    expect(parsed).toMatchObject({
      trackingNumbers: ['1234567890', '1234567891'],
      carrierName: 'DHL Express',
      postalCode: '80331',
      destinationCountry: 'DE',
      orderName: '#1002',
    });
  });

  it('reads the PostNL fixture (no tracking URL) and the cancelled and corrected updates', () => {
    expect(fulfillmentPayload.parse(fixture('fulfillments-create.postnl-needs-postcode'))).toMatchObject({
      carrierName: 'PostNL International 3S',
      postalCode: '1015 CV',
      destinationCountry: 'NL',
    });
    expect(fulfillmentPayload.parse(fixture('fulfillments-update.cancelled'))).toMatchObject({
      status: 'cancelled',
      updatedAt: new Date('2026-11-18T21:05:12Z'),
    });
    expect(fulfillmentPayload.parse(fixture('fulfillments-update.tracking-corrected'))).toMatchObject({
      trackingNumbers: ['1234567890', '1234567899'],
    });
  });
});

describe('fulfillmentPayload ids', () => {
  it.each([
    [5521012345678, '5521012345678'],
    ['5521012345678', '5521012345678'],
    ['  42 ', '42'],
    [0, '0'],
  ])('id %j → %j', (id, expected) => {
    expect(fulfillmentPayload.parse(fulfillmentBody({ id, orderId: id })).fulfillmentId).toBe(expected);
    expect(fulfillmentPayload.parse(fulfillmentBody({ id, orderId: id })).orderId).toBe(expected);
  });

  it.each([['abc'], [''], [-1], [1.5], ['12a'], [null]])('refuses id %j', (id) => {
    expect(fulfillmentPayload.safeParse({ ...fulfillmentBody(), id }).success).toBe(false);
    expect(fulfillmentPayload.safeParse({ ...fulfillmentBody(), order_id: id }).success).toBe(false);
  });

  it('gives the same id for a number and its decimal text (property)', () => {
    fc.assert(
      fc.property(fc.nat({ max: Number.MAX_SAFE_INTEGER }), (n) => {
        const a = fulfillmentPayload.parse(fulfillmentBody({ id: n, orderId: n }));
        const b = fulfillmentPayload.parse(fulfillmentBody({ id: String(n), orderId: String(n) }));
        expect(a.fulfillmentId).toBe(String(n));
        expect(b.fulfillmentId).toBe(String(n));
        expect(a.orderId).toBe(b.orderId);
      }),
    );
  });
});

describe('fulfillmentPayload tracking numbers', () => {
  it('trims, drops blanks and de-duplicates, keeping order', () => {
    const parsed = fulfillmentPayload.parse(
      fulfillmentBody({ trackingNumbers: [' B1 ', 'A2', null, '', 'B1', '  ', 'A2 '] }),
    );
    expect(parsed.trackingNumbers).toEqual(['B1', 'A2']);
  });

  it.each([
    ['an empty list', []],
    ['a null list', null],
  ])('falls back to tracking_number for %s', (_what, list) => {
    const parsed = fulfillmentPayload.parse(
      fulfillmentBody({ trackingNumbers: list, trackingNumber: ' ONLY1 ' }),
    );
    expect(parsed.trackingNumbers).toEqual(['ONLY1']);
  });

  it('falls back to tracking_number when the list is absent', () => {
    const body = fulfillmentBody({ trackingNumber: 'ONLY1' });
    delete body.tracking_numbers;
    expect(fulfillmentPayload.parse(body).trackingNumbers).toEqual(['ONLY1']);
  });

  it('gives no numbers when neither is there', () => {
    const parsed = fulfillmentPayload.parse(fulfillmentBody({ trackingNumbers: [], trackingNumber: null }));
    expect(parsed.trackingNumbers).toEqual([]);
  });

  it('yields trimmed, non-empty, distinct numbers, in first-seen order (property)', () => {
    const number = fc.oneof(fc.constantFrom('A', ' A', 'B ', '', '  '), fc.string({ maxLength: 6 }));
    fc.assert(
      fc.property(fc.array(fc.option(number, { nil: null }), { minLength: 1, maxLength: 8 }), (list) => {
        const { trackingNumbers } = fulfillmentPayload.parse(fulfillmentBody({ trackingNumbers: list }));
        const expected = [...new Set(list.map((n) => n?.trim() ?? '').filter((n) => n !== ''))];
        expect(trackingNumbers).toEqual(expected);
      }),
    );
  });
});

describe('fulfillmentPayload other fields', () => {
  it('a null destination gives no postal code and no country', () => {
    const parsed = fulfillmentPayload.parse(fulfillmentBody({ destination: null }));
    expect(parsed).toMatchObject({ postalCode: null, destinationCountry: null });
  });

  it('an absent destination gives no postal code and no country', () => {
    const body = fulfillmentBody();
    delete body.destination;
    expect(fulfillmentPayload.parse(body)).toMatchObject({ postalCode: null, destinationCountry: null });
  });

  it('blank zip and country are null; the country is upper-cased; the zip trimmed', () => {
    expect(
      fulfillmentPayload.parse(fulfillmentBody({ destination: { zip: ' ', country_code: '' } })),
    ).toMatchObject({ postalCode: null, destinationCountry: null });
    expect(
      fulfillmentPayload.parse(fulfillmentBody({ destination: { zip: ' 1015 CV ', country_code: 'nl' } })),
    ).toMatchObject({ postalCode: '1015 CV', destinationCountry: 'NL' });
  });

  it('lower-cases the status and refuses a blank one', () => {
    expect(fulfillmentPayload.parse(fulfillmentBody({ status: ' Cancelled ' })).status).toBe('cancelled');
    expect(fulfillmentPayload.safeParse(fulfillmentBody({ status: ' ' })).success).toBe(false);
  });

  it('stores the status without NUL or a lone surrogate (the body is kept, not refused)', () => {
    expect(fulfillmentPayload.parse(fulfillmentBody({ status: 'Can\u0000celled' })).status).toBe('cancelled');
    expect(fulfillmentPayload.parse(fulfillmentBody({ status: 'success\ud800' })).status).toBe(
      'success\ufffd',
    );
    expect(fulfillmentPayload.safeParse(fulfillmentBody({ status: '\u0000' })).success).toBe(false);
  });

  it('takes updated_at, else created_at, else null; refuses a bad timestamp', () => {
    expect(
      fulfillmentPayload.parse(fulfillmentBody({ updatedAt: null, createdAt: '2026-01-02T03:04:05Z' }))
        .updatedAt,
    ).toEqual(new Date('2026-01-02T03:04:05Z'));
    expect(
      fulfillmentPayload.parse(fulfillmentBody({ updatedAt: null, createdAt: null })).updatedAt,
    ).toBeNull();
    expect(fulfillmentPayload.safeParse(fulfillmentBody({ updatedAt: 'yesterday' })).success).toBe(false);
  });

  it('a blank carrier name is null; a free-text one is kept trimmed', () => {
    expect(fulfillmentPayload.parse(fulfillmentBody({ carrier: '  ' })).carrierName).toBeNull();
    expect(fulfillmentPayload.parse(fulfillmentBody({ carrier: ' Acme Couriers ' })).carrierName).toBe(
      'Acme Couriers',
    );
  });

  it('refuses a body without id, order id or status', () => {
    for (const field of ['id', 'order_id', 'status']) {
      const body = fulfillmentBody();
      delete body[field];
      expect(fulfillmentPayload.safeParse(body).success).toBe(false);
    }
  });
});

describe('order names', () => {
  it.each([
    ['#1001.1', '#1001'],
    ['#1001.12', '#1001'],
    ['#1001', '#1001'],
    ['SHOP-1001.2', 'SHOP-1001'],
    ['#1001.A', '#1001.A'],
  ])('%j → %j', (name, orderName) => {
    expect(orderNameFromFulfillmentName(name)).toBe(orderName);
    expect(fulfillmentPayload.parse(fulfillmentBody({ name })).orderName).toBe(orderName);
  });

  it('no fulfilment name gives no order name', () => {
    expect(orderNameFromFulfillmentName(null)).toBeNull();
    expect(fulfillmentPayload.parse(fulfillmentBody({ name: null })).orderName).toBeNull();
  });
});

describe('orderCancelledPayload', () => {
  it('reads the store fixture', () => {
    expect(orderCancelledPayload.parse(fixture('orders-cancelled'))).toEqual({
      orderId: '6120000000002',
      orderName: '#1002',
      cancelledAt: new Date('2026-11-19T10:00:00Z'),
    });
  });

  it('needs cancelled_at: every cancelled order has one, and no fulfilment body does', () => {
    expect(orderCancelledPayload.parse({ id: 7, cancelled_at: '2026-01-01T00:00:00Z' })).toEqual({
      orderId: '7',
      orderName: null,
      cancelledAt: new Date('2026-01-01T00:00:00Z'),
    });
    expect(orderCancelledPayload.safeParse({ id: '7', updated_at: '2026-01-01T00:00:00Z' }).success).toBe(
      false,
    );
    expect(orderCancelledPayload.safeParse(fixture('fulfillments-create.ups')).success).toBe(false);
  });

  it('refuses a body without a numeric id', () => {
    expect(orderCancelledPayload.safeParse({ name: '#1' }).success).toBe(false);
    expect(orderCancelledPayload.safeParse({ id: 'gid://shopify/Order/1' }).success).toBe(false);
  });
});

describe('privacy payloads', () => {
  it('reads order ids as numbers or numeric text, defaulting to none', () => {
    expect(
      customersDataRequestPayload.parse({
        shop_domain: 'x.myshopify.com',
        orders_requested: [6120000000001, '6120000000002'],
        customer: { id: 191167, email: 'john@example.com' },
        data_request: { id: 9999 },
      }).orders_requested,
    ).toEqual(['6120000000001', '6120000000002']);
    expect(
      customersRedactPayload.parse({ shop_domain: 'x.myshopify.com', orders_to_redact: [1, '2'] })
        .orders_to_redact,
    ).toEqual(['1', '2']);
  });

  it('needs the shop and the topic’s own order list', () => {
    expect(customersRedactPayload.safeParse({ orders_to_redact: [1] }).success).toBe(false);
    expect(customersRedactPayload.safeParse({ shop_domain: 'x.myshopify.com' }).success).toBe(false);
    expect(customersDataRequestPayload.safeParse({ shop_domain: 'x.myshopify.com' }).success).toBe(false);
    const redact = { shop_domain: 'x.myshopify.com', orders_to_redact: [1], customer: { id: 1 } };
    expect(customersDataRequestPayload.safeParse(redact).success).toBe(false);
  });

  it('reads a shop redact, and refuses a customer’s request sent as one', () => {
    expect(shopRedactPayload.parse({ shop_id: 954889, shop_domain: 'X.myshopify.com' })).toEqual({
      shop_id: '954889',
      shop_domain: 'x.myshopify.com',
    });
    expect(shopRedactPayload.safeParse({ shop_id: 1 }).success).toBe(false);
    const redact = { shop_domain: 'x.myshopify.com', orders_to_redact: [1], customer: { id: 1 } };
    expect(shopRedactPayload.safeParse(redact).success).toBe(false);
  });

  it('refuses a non-numeric order id', () => {
    expect(
      customersRedactPayload.safeParse({ shop_domain: 'x.myshopify.com', orders_to_redact: ['x'] }).success,
    ).toBe(false);
  });
});
