import { type ProblemKind, problemWords } from '../shipments/problem-words.js';
import type { FlowTriggerPayload } from '../shopify/flow-trigger-receive.js';

/**
 * The app's Shopify Flow triggers, in one place: each trigger's handle (its extension's folder and
 * `handle` in extensions/<handle>/shopify.extension.toml), its name, its fields, and the payload builder
 * that fills exactly those fields. test/flow/triggers.test.ts holds every built payload to its extension's
 * TOML, so the two cannot drift.
 *
 * The platform's rules for a trigger's fields: a reference field (`order_reference`) has no key and is sent
 * as `order_id` with the order's numeric id; a custom field has a key of letters and spaces and one of the
 * types a trigger takes (single_line_text_field, url, number_decimal, boolean, email).
 */

export type FlowFieldType = 'order_reference' | 'single_line_text_field' | 'url' | 'number_decimal';

export interface FlowField {
  type: FlowFieldType;
  /** The payload key: `order_id` for the order reference, else the field's key. */
  key: string;
  description: string;
}

/** What every shipment trigger says about one parcel of one fulfilment. */
export interface ShipmentFacts {
  /** The store's numeric order id. */
  orderId: string;
  /** The fulfilment's GID (gid://shopify/Fulfillment/<id>). */
  fulfillmentId: string;
  trackingNumber: string;
  /** The carrier as the store named it, else the tracking service's. */
  carrier: string;
  /** The parcel's status code (lower case: in_transit, delivered, exception…); empty when none yet. */
  status: string;
  statusDetail: string | null;
  /** The status in words, as every page of the app says it (the parcel model's label). */
  statusLabel: string;
  /** The estimated delivery the shopper sees (a date text), if any. */
  estimatedDelivery: string | null;
  /** The store's tracking page for this parcel. */
  trackingPageUrl: string;
}

export interface ProblemFacts {
  kind: ProblemKind;
}

export interface EstimateFacts {
  /** The estimate before the change; null: there was none. */
  previousEstimate: string | null;
}

export interface BalanceFacts {
  /** Trackers left at the tracking service. */
  balance: number;
  /** Whole days the balance lasts at the current volume. */
  daysLeft: number;
  /** Parcels a day, over the last two weeks. */
  perDay: number;
}

/** Each trigger's input, by handle. */
export interface FlowTriggerInputs {
  'shipment-status-changed': ShipmentFacts;
  'shipment-delivered': ShipmentFacts;
  'shipment-needs-attention': ShipmentFacts & ProblemFacts;
  'delivery-estimate-changed': ShipmentFacts & EstimateFacts;
  'tracking-balance-low': BalanceFacts;
}

export type FlowTriggerHandle = keyof FlowTriggerInputs;

export interface FlowTrigger<Input> {
  handle: FlowTriggerHandle;
  /** The merchant's name for it in the Flow editor. */
  name: string;
  description: string;
  fields: readonly FlowField[];
  payload(input: Input): FlowTriggerPayload;
}

const shipmentFields: readonly FlowField[] = [
  { type: 'order_reference', key: 'order_id', description: 'The order the parcel belongs to.' },
  {
    type: 'single_line_text_field',
    key: 'Fulfillment ID',
    description: 'The fulfilment of the parcel (gid://shopify/Fulfillment/…).',
  },
  { type: 'single_line_text_field', key: 'Tracking number', description: 'The parcel’s tracking number.' },
  { type: 'single_line_text_field', key: 'Carrier', description: 'The carrier delivering the parcel.' },
  {
    type: 'single_line_text_field',
    key: 'Status',
    description: 'The parcel’s status: in_transit, out_for_delivery, delivered, exception, and so on.',
  },
  {
    type: 'single_line_text_field',
    key: 'Status detail',
    description: 'The carrier’s detail of the status, when it gives one.',
  },
  {
    type: 'single_line_text_field',
    key: 'Status in words',
    description: 'The parcel’s status as the app’s pages say it (In transit, Not followed: wrong carrier…).',
  },
  {
    type: 'single_line_text_field',
    key: 'Estimated delivery',
    description: 'The estimated delivery date as the tracking service gives it, empty when there is none.',
  },
  { type: 'url', key: 'Tracking page URL', description: 'The store’s tracking page for the parcel.' },
];

/** A single-line text field's value: one line, at most 255 characters. */
function line(text: string | null): string {
  return (text ?? '').replace(/\s+/g, ' ').trim().slice(0, 255);
}

function shipmentPayload(s: ShipmentFacts): Record<string, string | number> {
  return {
    order_id: Number(s.orderId),
    'Fulfillment ID': line(s.fulfillmentId),
    'Tracking number': line(s.trackingNumber),
    Carrier: line(s.carrier),
    Status: line(s.status),
    'Status detail': line(s.statusDetail),
    'Status in words': line(s.statusLabel),
    'Estimated delivery': line(s.estimatedDelivery),
    'Tracking page URL': s.trackingPageUrl,
  };
}

const statusChanged: FlowTrigger<ShipmentFacts> = {
  handle: 'shipment-status-changed',
  name: 'Shipment status changed',
  description: 'A parcel’s tracking status changed.',
  fields: shipmentFields,
  payload: shipmentPayload,
};

const delivered: FlowTrigger<ShipmentFacts> = {
  handle: 'shipment-delivered',
  name: 'Shipment delivered',
  description: 'The carrier delivered a parcel.',
  fields: shipmentFields,
  payload: shipmentPayload,
};

const needsAttention: FlowTrigger<ShipmentFacts & ProblemFacts> = {
  handle: 'shipment-needs-attention',
  name: 'Shipment needs attention',
  description: 'A parcel has a problem: not picked up, stalled, past its estimate, a carrier exception…',
  fields: [
    ...shipmentFields,
    {
      type: 'single_line_text_field',
      key: 'Problem kind',
      description:
        'not_picked_up, stalled, past_estimate, carrier_exception, failed_attempt, on_hold, returning, waiting_pickup or tracking_problem.',
    },
    { type: 'single_line_text_field', key: 'Problem', description: 'The problem in words.' },
  ],
  payload: (s) => ({
    ...shipmentPayload(s),
    'Problem kind': s.kind,
    Problem: problemWords[s.kind].label,
  }),
};

const estimateChanged: FlowTrigger<ShipmentFacts & EstimateFacts> = {
  handle: 'delivery-estimate-changed',
  name: 'Delivery estimate changed',
  description: 'A parcel’s estimated delivery date changed.',
  fields: [
    ...shipmentFields,
    {
      type: 'single_line_text_field',
      key: 'Previous estimate',
      description: 'The estimated delivery date before the change, empty when there was none.',
    },
  ],
  payload: (s) => ({ ...shipmentPayload(s), 'Previous estimate': line(s.previousEstimate) }),
};

const balanceLow: FlowTrigger<BalanceFacts> = {
  handle: 'tracking-balance-low',
  name: 'Tracking balance running low',
  description: 'The tracking service balance lasts fewer days than the store’s warning threshold.',
  fields: [
    { type: 'number_decimal', key: 'Balance', description: 'Trackers left at the tracking service.' },
    {
      type: 'number_decimal',
      key: 'Days left',
      description: 'Whole days the balance lasts at the current volume.',
    },
    {
      type: 'number_decimal',
      key: 'Parcels per day',
      description: 'Parcels a day over the last two weeks.',
    },
  ],
  payload: (b) => ({
    Balance: b.balance,
    'Days left': b.daysLeft,
    'Parcels per day': Math.round(b.perDay * 100) / 100,
  }),
};

/** Every trigger, by handle. */
export const flowTriggers: { readonly [H in FlowTriggerHandle]: FlowTrigger<FlowTriggerInputs[H]> } = {
  'shipment-status-changed': statusChanged,
  'shipment-delivered': delivered,
  'shipment-needs-attention': needsAttention,
  'delivery-estimate-changed': estimateChanged,
  'tracking-balance-low': balanceLow,
};

export const flowTriggerHandles = Object.keys(flowTriggers) as FlowTriggerHandle[];

/** The payload of one trigger, from its typed input. */
export function flowPayload<H extends FlowTriggerHandle>(
  handle: H,
  input: FlowTriggerInputs[H],
): FlowTriggerPayload {
  const trigger: FlowTrigger<FlowTriggerInputs[H]> = flowTriggers[handle];
  return trigger.payload(input);
}

/**
 * The handle a lifecycle callback's `flow_trigger_definition_id` names: the platform documents it only as
 * "the unique identifier for your Shopify Flow trigger" (its example is the trigger's title), so both the
 * handle and the name are taken, whatever their case. Null: not one of this app's triggers.
 */
export function handleOfDefinition(definitionId: string): FlowTriggerHandle | null {
  const wanted = definitionId.trim().toLowerCase();
  return (
    flowTriggerHandles.find(
      (handle) => handle === wanted || flowTriggers[handle].name.toLowerCase() === wanted,
    ) ?? null
  );
}
