import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/db/paths.js';
import { flowLifecyclePath } from '../../src/flow/lifecycle-route.js';
import { shipmentChanges, type ShipmentState } from '../../src/flow/queue-triggers.js';
import {
  flowPayload,
  flowTriggerHandles,
  type FlowTriggerInputs,
  flowTriggers,
  handleOfDefinition,
  type ShipmentFacts,
} from '../../src/flow/triggers.js';
import { problemKinds } from '../../src/shipments/problem-words.js';
import {
  extensionPath,
  parseTriggerToml,
  payloadKeyOf,
  payloadProblems,
  readLifecycleToml,
  readTriggerToml,
} from './extension-toml.js';

/**
 * The Flow trigger extensions (extensions/<handle>/shopify.extension.toml) against the platform's rules,
 * and every payload src/flow/triggers.ts builds against its extension's field list, read from the TOML
 * itself: exactly its fields, each of its type.
 */

const parcel: ShipmentFacts = {
  orderId: '6120000000001',
  fulfillmentId: 'gid://shopify/Fulfillment/5521012345678',
  trackingNumber: '1Z999AA10123456784',
  carrier: 'UPS',
  status: 'in_transit',
  statusDetail: 'Departed from facility',
  statusLabel: 'In transit',
  estimatedDelivery: '2026-11-20',
  trackingPageUrl: 'https://flow-shop.myshopify.com/apps/track?tracking=1Z999AA10123456784',
};
/** A parcel with nothing optional known yet. */
const bare: ShipmentFacts = { ...parcel, status: '', statusDetail: null, estimatedDelivery: null };

/** Inputs for each trigger: a full one and a sparse one. */
const inputs: { [H in keyof FlowTriggerInputs]: Array<FlowTriggerInputs[H]> } = {
  'shipment-status-changed': [
    parcel,
    bare,
    {
      ...parcel,
      statusDetail: `Held at customs:\r\nduties ${'unpaid '.repeat(100)}`,
      carrier: ' DHL\tExpress ',
    },
  ],
  'shipment-delivered': [{ ...parcel, status: 'delivered', statusDetail: null }, bare],
  'shipment-needs-attention': [
    ...problemKinds.map((kind) => ({ ...parcel, kind })),
    { ...bare, kind: 'stalled' as const },
  ],
  'delivery-estimate-changed': [
    { ...parcel, previousEstimate: '2026-11-19' },
    { ...parcel, previousEstimate: null },
  ],
  'tracking-balance-low': [
    { balance: 120, daysLeft: 4, perDay: 28.571428 },
    { balance: 0, daysLeft: 0, perDay: 3 },
  ],
};

describe('the Flow trigger extensions', () => {
  it('one extension per trigger, each valid for the platform, handle as its folder', () => {
    for (const handle of flowTriggerHandles) {
      const toml = readTriggerToml(handle);
      expect(toml.extensions[0]!.handle).toBe(handle);
      expect(toml.extensions[0]!.name).toBe(flowTriggers[handle].name);
      expect(toml.extensions[0]!.description).toBe(flowTriggers[handle].description);
    }
  });

  it('each extension’s fields are the trigger’s, in order, with their types and descriptions', () => {
    for (const handle of flowTriggerHandles) {
      const toml = readTriggerToml(handle);
      expect(
        toml.settings.fields.map((f) => ({ type: f.type, key: payloadKeyOf(f), description: f.description })),
        handle,
      ).toEqual(flowTriggers[handle].fields.map((f) => ({ ...f })));
    }
  });

  it('every payload built fits its extension’s field list exactly', () => {
    const check = <H extends keyof FlowTriggerInputs>(handle: H) => {
      const { fields } = readTriggerToml(handle).settings;
      for (const input of inputs[handle]) {
        const payload = flowPayload(handle, input);
        expect(payloadProblems(fields, payload), `${handle} ${JSON.stringify(payload)}`).toEqual([]);
      }
    };
    for (const handle of flowTriggerHandles) check(handle);
  });

  it('the shipment triggers name the order by its numeric id and carry what the merchant sees', () => {
    expect(flowPayload('shipment-needs-attention', { ...parcel, kind: 'past_estimate' })).toEqual({
      order_id: 6120000000001,
      'Fulfillment ID': 'gid://shopify/Fulfillment/5521012345678',
      'Tracking number': '1Z999AA10123456784',
      Carrier: 'UPS',
      Status: 'in_transit',
      'Status detail': 'Departed from facility',
      // Issue 32: the status as the app's pages say it (the parcel model's label).
      'Status in words': 'In transit',
      'Estimated delivery': '2026-11-20',
      'Tracking page URL': 'https://flow-shop.myshopify.com/apps/track?tracking=1Z999AA10123456784',
      'Problem kind': 'past_estimate',
      Problem: 'Past its estimate',
    });
    const messy = flowPayload('shipment-status-changed', inputs['shipment-status-changed'][2]!);
    expect(messy.Carrier).toBe('DHL Express');
    expect(String(messy['Status detail'])).toMatch(/^Held at customs: duties unpaid unpaid/);
    expect(String(messy['Status detail']).length).toBe(255);
    expect(flowPayload('tracking-balance-low', { balance: 120, daysLeft: 4, perDay: 28.571428 })).toEqual({
      Balance: 120,
      'Days left': 4,
      'Parcels per day': 28.57,
    });
  });

  it('the checks are real: a wrong key, type or field is reported', () => {
    const valid = readFileSync(extensionPath('shipment-delivered'), 'utf8');
    expect(() =>
      parseTriggerToml(valid.replace('key = "Tracking number"', 'key = "tracking_number"')),
    ).toThrow(/letters and spaces/);
    expect(() => parseTriggerToml(valid.replace('type = "url"', 'type = "number_integer"'))).toThrow();
    expect(() =>
      parseTriggerToml(valid.replace('type = "order_reference"', 'type = "order_reference"\nkey = "Order"')),
    ).toThrow();
    expect(() =>
      parseTriggerToml(valid.replace('handle = "shipment-delivered"', 'handle = "Shipment delivered"')),
    ).toThrow();
    const { fields } = parseTriggerToml(valid).settings;
    const payload = flowPayload('shipment-delivered', parcel);
    expect(payloadProblems(fields, { ...payload, Extra: 'x' })).toEqual(["unknown field 'Extra'"]);
    expect(payloadProblems(fields, { ...payload, order_id: '6120000000001' })).toEqual([
      `'order_id' is not a order_reference: "6120000000001"`,
    ]);
    const { Carrier: _carrier, ...withoutCarrier } = payload;
    expect(payloadProblems(fields, withoutCarrier)).toEqual(["missing field 'Carrier'"]);
  });

  it('a lifecycle callback names a trigger by its handle or its name, any case; others are none of ours', () => {
    expect(handleOfDefinition('shipment-delivered')).toBe('shipment-delivered');
    expect(handleOfDefinition('Tracking balance running low')).toBe('tracking-balance-low');
    expect(handleOfDefinition(' SHIPMENT NEEDS ATTENTION ')).toBe('shipment-needs-attention');
    expect(handleOfDefinition('Add row to spreadsheet')).toBeNull();
  });

  it('the lifecycle callback extension points at the app’s route on the app’s host', () => {
    const toml = readLifecycleToml('flow-lifecycle-callback');
    const url = new URL(toml.extensions[0]!.url);
    const app = readFileSync(path.join(PROJECT_ROOT, 'shopify.app.toml'), 'utf8');
    const applicationUrl = new URL(/^application_url\s*=\s*"([^"]+)"/m.exec(app)![1]!);
    expect(url.host).toBe(applicationUrl.host);
    expect(url.pathname).toBe(flowLifecyclePath);
  });
});

describe('which triggers a stored read fires', () => {
  const before: ShipmentState = {
    status: 'in_transit',
    statusDetail: null,
    estimatedDelivery: '2026-11-20',
    lastEventAt: new Date('2026-11-18T10:00:00Z'),
  };
  const handles = (after: Partial<ShipmentState>, from: ShipmentState = before) =>
    shipmentChanges(from, { ...before, ...after }).map((c) => c.handle);

  it('nothing when nothing the merchant sees changed', () => {
    expect(handles({ lastEventAt: new Date('2026-11-18T12:00:00Z') })).toEqual([]);
  });

  it('a new status or detail: status changed; delivered: delivered too (the estimate then says nothing)', () => {
    expect(handles({ status: 'out_for_delivery' })).toEqual(['shipment-status-changed']);
    expect(handles({ statusDetail: 'Arrived at facility' })).toEqual(['shipment-status-changed']);
    expect(handles({ status: 'delivered', estimatedDelivery: null, predictedDelivery: null })).toEqual([
      'shipment-status-changed',
      'shipment-delivered',
    ]);
    expect(handles({ status: 'delivered' }, { ...before, status: 'delivered' })).toEqual([]);
  });

  it('the estimate the shopper sees changed on a parcel on its way: estimate changed', () => {
    expect(handles({ estimatedDelivery: '2026-11-22' })).toEqual(['delivery-estimate-changed']);
    expect(handles({ estimatedDelivery: null, predictedDelivery: '2026-11-21' })).toEqual([
      'delivery-estimate-changed',
    ]);
    expect(handles({ estimatedDelivery: null, predictedDelivery: '2026-11-20' })).toEqual([]);
    expect(handles({ estimatedDelivery: null })).toEqual([]);
  });

  it('the same status back later is a new change (another key); the same read twice is the same key', () => {
    const later = { ...before, status: 'exception', lastEventAt: new Date('2026-11-19T10:00:00Z') };
    const again = shipmentChanges(before, later);
    expect(shipmentChanges(before, later)).toEqual(again);
    const back = shipmentChanges(before, { ...later, lastEventAt: new Date('2026-11-21T10:00:00Z') });
    expect(back[0]!.dedupe).not.toBe(again[0]!.dedupe);
  });
});
