import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { setShopifyFetch } from './fetch-seam.js';
import type { GraphqlOrder } from '../../src/jobs/backfill.js';
import { appScopes } from '../../src/shopify/api.js';

/**
 * A local stand-in for the stores' Admin GraphQL API, reached the way test/shopify/fake-shopify.ts reaches
 * its fake: the library's fetch (abstractFetch, in both the ESM and the CJS build of @shopify/shopify-api)
 * is swapped for one that records the call and sends it to 127.0.0.1, with the store the library addressed
 * in an `x-fake-shop` header.
 *
 * It answers:
 * - the backfill's orders query (scope read_orders), `pageSize` orders per page;
 * - a customer's recent orders (`orders(first: n, query: "customer_id:<id>", sortKey: CREATED_AT,
 *   reverse: true)`, scope read_orders), newest first;
 * - `fulfillmentEventCreate` (scope write_fulfillments): the input is checked as the real API checks it
 *   (a Fulfillment GID, a FulfillmentEventStatus value, ISO-8601 times, no unknown field: otherwise a
 *   top-level GraphQL error, as a variable that does not coerce gets), each event is recorded per store
 *   and fulfilment with an id `gid://shopify/FulfillmentEvent/<n>`; a fulfilment the store does not hold
 *   (when the test declared the store's fulfilments) gets userErrors;
 * - `fulfillmentTrackingInfoUpdate` (scope write_merchant_managed_fulfillment_orders): the input checked
 *   like the event's (a Fulfillment GID, only FulfillmentTrackingInput's fields, URLs), the tracking info
 *   recorded per fulfilment (`trackingInfo`); an undeclared fulfilment gets userErrors;
 * - `fulfillment(id) { events(...) { nodes { status happenedAt } } }` (scope read_fulfillments), honouring
 *   `first`, `sortKey: HAPPENED_AT|ID` and `reverse`; an unknown fulfilment is `null`;
 * - `nodes(ids:) { ... on Fulfillment { id } }` (scope read_fulfillments): the fulfilments the store holds
 *   (those the test declared, or every one asked about when none were declared), `null` for the others;
 * - `nodes(ids:) { ... on Order { ... } }` (scope read_orders), the tracking page's order details
 *   (src/shopify/order-details.ts): each order the store holds with its customer (`customerId`), its
 *   fulfilments' ids (an aliased `fulfillments(first:) { id }`) and, for the first `fulfillments(first:)`,
 *   their line items as the test gave them (`lineItems`, title, variant, quantity, image), honouring every
 *   `first:` (a number or a variable); `null` for an order it does not hold; a malformed Order GID is a
 *   top-level error, and a requested cost over 1000 is refused with MAX_COST_EXCEEDED, as the real API
 *   refuses it before running the query (objects 1, connections 2 + first × their nodes, lists first ×
 *   their items);
 * - `flowTriggerReceive(handle:, payload:)` (scope read_orders: the app's triggers carry an order reference):
 *   the handle must be a string and the payload a JSON object under 50 000 bytes, and, once a test declared
 *   the app's triggers (`setFlowTriggers`), the handle one of them and the payload exactly its fields;
 *   otherwise userErrors, as the platform refuses a trigger it cannot run. Each accepted one is recorded per
 *   store (`flowTriggers`).
 *
 * Scopes are those of the access token (tests grant them; any other token has the app's scopes), less those
 * a test took from the store (`denyScopes`). A write scope implies its read scope, as on the platform. A
 * missing scope is a GraphQL error with `extensions.code: ACCESS_DENIED` and the field null, HTTP 200, as
 * the real API answers.
 *
 * Failures can be injected per store: HTTP errors and throttling before anything is applied, a dropped
 * connection, "apply then fail" (the event is recorded, the answer is a 500 or a dropped connection), or a
 * slow answer.
 */

export interface OrdersCall {
  shop: string;
  url: string;
  accessToken: string | null;
  query: string;
  variables: { cursor?: string | null; query?: string };
}

export type AdminOperation =
  | 'orders'
  | 'customerOrders'
  | 'fulfillmentEventCreate'
  | 'fulfillmentEvents'
  | 'fulfillmentTrackingInfoUpdate'
  | 'fulfillmentNodes'
  | 'orderDetails'
  | 'shopProfile'
  | 'flowTriggerReceive'
  | 'unknown';

/** A fulfilment's tracking info as the fake store holds it after fulfillmentTrackingInfoUpdate. */
export interface FakeTrackingInfo {
  company: string | null;
  numbers: string[];
  /** As given; null when the update gave none. */
  urls: string[] | null;
  notifyCustomer: boolean | null;
  /** Order of the update in the whole fake, from 1. */
  sequence: number;
}

/** A Flow trigger the fake store received (flowTriggerReceive). */
export interface FakeFlowTrigger {
  handle: string;
  payload: Record<string, unknown>;
  /** Order of receipt in the whole fake, from 1. */
  sequence: number;
}

/** One of the app's Flow triggers as the platform knows it: its handle and its payload's keys. */
export interface FakeFlowTriggerDefinition {
  handle: string;
  /** Every key of its payload (`order_id` for an order reference, else the field's key). */
  fields: readonly string[];
}

/** A line item of a fulfilment, as the store's order details answer it. */
export interface FakeLineItem {
  /** The product's title (LineItem.title). */
  title: string;
  variantTitle?: string | null;
  /** How many of it the fulfilment holds (FulfillmentLineItem.quantity). */
  quantity: number | null;
  /** The variant's image, its URL answered as given. */
  image?: { url: string; altText?: string | null } | null;
}

/** A fulfilment the fake store holds: the backfill's shape, and its line items (none when left out). */
export type FakeFulfillment = GraphqlOrder['fulfillments'][number] & { lineItems?: FakeLineItem[] };

/** An order the fake store holds: the backfill's shape, whose customer it is, its fulfilments' items. */
export type FakeOrder = Omit<GraphqlOrder, 'fulfillments'> & {
  customerId?: string | null;
  fulfillments: FakeFulfillment[];
};

/** Any request the fake received. */
export interface AdminCall {
  shop: string;
  url: string;
  accessToken: string | null;
  operation: AdminOperation;
  query: string;
  variables: Record<string, unknown>;
}

/** An event the fake store holds. */
export interface FakeFulfillmentEvent {
  id: string;
  /** The fulfilment's GID. */
  fulfillmentId: string;
  status: string;
  /** ISO-8601 UTC, whole seconds (the platform's DateTime). */
  happenedAt: string;
  message: string | null;
  city: string | null;
  province: string | null;
  country: string | null;
  zip: string | null;
  estimatedDeliveryAt: string | null;
  /** Order of creation in the whole fake, from 1. */
  sequence: number;
}

/**
 * A failure for the next matching call:
 * - `http`: that HTTP status (429 gets a Retry-After), nothing applied;
 * - `throttled`: HTTP 200 with a THROTTLED GraphQL error, nothing applied;
 * - `drop`: the connection is closed with no answer, nothing applied;
 * - `applyThenFail`: the call is carried out (the event is recorded), then answered 500 or dropped;
 * - `slow`: answered as usual, `ms` later.
 */
export type InjectedFailure =
  | { kind: 'http'; status: number; body?: unknown }
  | { kind: 'throttled' }
  | { kind: 'drop' }
  | { kind: 'applyThenFail'; answer?: 'http500' | 'drop' }
  | { kind: 'slow'; ms: number };

export interface FakeAdminGraphql {
  /** Every orders query asked, in order. */
  calls: OrdersCall[];
  /** Every request of any operation, in order. */
  requests: AdminCall[];
  /** A store's orders, newest last; served `pageSize` per page (and by customer, newest first). */
  setOrders(shop: string, orders: FakeOrder[]): void;
  /** A store's time zone and contact e-mail, as its `shop` query answers (default UTC, none). */
  setShopProfile(shop: string, profile: { timezone: string; contactEmail: string | null }): void;
  /** The next answers for a store (status and body), whatever it asks, after `afterPages` more calls. */
  failNext(shop: string, answer: { status: number; body: unknown }, afterPages?: number): void;
  /** Fails the store's next `times` (default 1) calls of `operation` (default: the event mutation). */
  failEvents(
    shop: string,
    failure: InjectedFailure,
    options?: {
      operation?:
        | 'fulfillmentEventCreate'
        | 'fulfillmentEvents'
        | 'fulfillmentTrackingInfoUpdate'
        | 'fulfillmentNodes'
        | 'orderDetails'
        | 'shopProfile'
        | 'flowTriggerReceive';
      times?: number;
    },
  ): void;
  /** The scopes an access token was granted (default: the app's scopes). */
  grantScopes(accessToken: string, scopes: string[]): void;
  /**
   * Takes scopes from every token of a store (a write scope goes with its read scope): its calls that need
   * one get ACCESS_DENIED. An empty list gives them back.
   */
  denyScopes(shop: string, scopes: string[]): void;
  /**
   * Declares the fulfilments a store holds (numeric ids or GIDs); from then on any other is unknown to it.
   * Without a declaration every well-formed Fulfillment GID is taken as known.
   */
  setFulfillments(shop: string, fulfillmentIds: Array<string | number>): void;
  /** A fulfilment's tracking info as last updated (numeric id or GID); undefined: never updated. */
  trackingInfo(shop: string, fulfillmentId: string | number): FakeTrackingInfo | undefined;
  /**
   * Declares the app's Flow triggers as the platform knows them (its deployed extensions); from then on a
   * trigger of another handle, or a payload with other keys, is refused with userErrors. Without it, any
   * handle and object payload is taken.
   */
  setFlowTriggers(definitions: readonly FakeFlowTriggerDefinition[]): void;
  /** The Flow triggers a store received, in order. */
  flowTriggers(shop: string): FakeFlowTrigger[];
  /** The events the store holds, in creation order (optionally of one fulfilment, numeric id or GID). */
  events(shop: string, fulfillmentId?: string | number): FakeFulfillmentEvent[];
  pageSize: number;
  /** Where it listens (http://127.0.0.1:<port>). */
  baseUrl: string;
  close(): Promise<void>;
}

/** FulfillmentEventStatus of Admin API 2026-10. */
export const fulfillmentEventStatuses = [
  'ATTEMPTED_DELIVERY',
  'CARRIER_PICKED_UP',
  'CONFIRMED',
  'DELAYED',
  'DELIVERED',
  'FAILURE',
  'IN_TRANSIT',
  'LABEL_PRINTED',
  'LABEL_PURCHASED',
  'OUT_FOR_DELIVERY',
  'READY_FOR_PICKUP',
] as const;

/** The fields of FulfillmentEventInput. */
const eventInputFields = new Set([
  'fulfillmentId',
  'status',
  'happenedAt',
  'message',
  'city',
  'province',
  'country',
  'zip',
  'address1',
  'latitude',
  'longitude',
  'estimatedDeliveryAt',
]);

/** The fields of FulfillmentTrackingInput. */
const trackingInputFields = new Set(['number', 'numbers', 'url', 'urls', 'company']);

const fulfillmentGidPattern = /^gid:\/\/shopify\/Fulfillment\/\d+$/;
const isoDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/i;

export function toFulfillmentGid(id: string | number): string {
  const text = String(id);
  return text.startsWith('gid://') ? text : `gid://shopify/Fulfillment/${text}`;
}

/** The platform's DateTime: UTC, whole seconds. */
function platformTime(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

function operationOf(query: string): AdminOperation {
  if (/\bnodes\s*\(\s*ids\s*:/.test(query) && /\.\.\.\s*on\s+Order\b/.test(query)) return 'orderDetails';
  if (/\bfulfillmentEventCreate\s*\(/.test(query)) return 'fulfillmentEventCreate';
  if (/\bflowTriggerReceive\s*\(/.test(query)) return 'flowTriggerReceive';
  if (/\bnodes\s*\(\s*ids\s*:/.test(query) && /\.\.\.\s*on\s+Fulfillment\b/.test(query))
    return 'fulfillmentNodes';
  if (/\bfulfillmentTrackingInfoUpdate\s*\(/.test(query)) return 'fulfillmentTrackingInfoUpdate';
  if (/\bshop\s*\{\s*ianaTimezone\b/.test(query)) return 'shopProfile';
  if (/\bfulfillment\s*\(\s*id\s*:/.test(query) && /\bevents\s*\(/.test(query)) return 'fulfillmentEvents';
  if (/orders\(first: 50, after: \$cursor, query: \$query, sortKey: CREATED_AT\)/.test(query))
    return 'orders';
  if (/orders\(first: \d+, query: \$query, sortKey: CREATED_AT, reverse: true\)/.test(query))
    return 'customerOrders';
  return 'unknown';
}

const requiredScope: Record<Exclude<AdminOperation, 'unknown'>, string> = {
  orders: 'read_orders',
  customerOrders: 'read_orders',
  fulfillmentEventCreate: 'write_fulfillments',
  fulfillmentEvents: 'read_fulfillments',
  fulfillmentNodes: 'read_fulfillments',
  orderDetails: 'read_orders',
  // The shop object needs no scope beyond the install.
  shopProfile: '',
  // (Or write_assigned_ / write_third_party_fulfillment_orders, which this app does not ask for.)
  fulfillmentTrackingInfoUpdate: 'write_merchant_managed_fulfillment_orders',
  // The mutation needs no scope of its own; a payload's reference field needs its object's read scope
  // (an order reference: read_orders), and every trigger of this app carries one but the balance's.
  flowTriggerReceive: 'read_orders',
};

/** A connection's or list's `first:` in a query: a number, or a variable's value; null when absent. */
function firstOf(argumentText: string | undefined, variables: Record<string, unknown>): number | null {
  const value = /\bfirst\s*:\s*(\$\w+|\d+)/.exec(argumentText ?? '')?.[1];
  if (value === undefined) return null;
  const n = value.startsWith('$') ? variables[value.slice(1)] : Number(value);
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 ? n : null;
}

/** The real API's refusal of a query whose requested cost is over its single-query limit. */
function maxCostExceeded(cost: number) {
  return {
    errors: [
      {
        message: `Query cost is ${cost}, which exceeds the single query max cost limit (1000).`,
        extensions: {
          code: 'MAX_COST_EXCEEDED',
          cost,
          maxCost: 1000,
          documentation: 'https://shopify.dev/api/usage/rate-limits',
        },
      },
    ],
  };
}

/** A write scope implies its read scope. */
function hasScope(granted: readonly string[], scope: string): boolean {
  return (
    scope === '' ||
    granted.includes(scope) ||
    (scope.startsWith('read_') && granted.includes(`write_${scope.slice(5)}`))
  );
}

const cost = (requested: number) => ({
  cost: {
    requestedQueryCost: requested,
    actualQueryCost: requested,
    throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 1990, restoreRate: 100 },
  },
});

/** A variable that does not coerce, as the real API reports it (no `code`, HTTP 200, no data). */
function invalidVariable(
  variable: string,
  type: string,
  value: unknown,
  path: string[],
  explanation: string,
) {
  return {
    errors: [
      {
        message: `Variable $${variable} of type ${type} was provided invalid value for ${path.join('.')} (${explanation})`,
        locations: [{ line: 1, column: 10 }],
        extensions: { value, problems: [{ path, explanation }] },
      },
    ],
  };
}

/**
 * The fakes open in this process, the one the library's fetch goes to last (the seam is global): when it
 * closes, the requests go back to the one before, or to the network when none is left.
 */
const seamHolders: FakeAdminGraphql[] = [];

/**
 * `seam`: `take` (default) sends the library's requests to this fake from now on; `if-free` only when no
 * other fake has them (the test app's default store gives way to a test's own fake, whichever starts first).
 */
export async function startFakeAdminGraphql(
  pageSize = 2,
  options: { seam?: 'take' | 'if-free' } = {},
): Promise<FakeAdminGraphql> {
  const calls: OrdersCall[] = [];
  const requests: AdminCall[] = [];
  const orders = new Map<string, FakeOrder[]>();
  const failures = new Map<string, Array<{ status: number; body: unknown; afterPages: number }>>();
  const eventFailures = new Map<
    string,
    Array<{ failure: InjectedFailure; operation: AdminOperation; times: number }>
  >();
  const scopes = new Map<string, string[]>();
  const deniedScopes = new Map<string, Set<string>>();
  const fulfillments = new Map<string, Set<string>>();
  const events = new Map<string, FakeFulfillmentEvent[]>();
  const trackingInfos = new Map<string, FakeTrackingInfo>();
  const profiles = new Map<string, { timezone: string; contactEmail: string | null }>();
  const flowRuns = new Map<string, FakeFlowTrigger[]>();
  let flowDefinitions: Map<string, Set<string>> | null = null;
  let sequence = 0;

  const fake: FakeAdminGraphql = {
    calls,
    requests,
    pageSize,
    baseUrl: '',
    setOrders: (shop, list) => orders.set(shop, list),
    setShopProfile: (shop, profile) => profiles.set(shop, profile),
    failNext: (shop, answer, afterPages = 0) => {
      const list = failures.get(shop) ?? [];
      list.push({ ...answer, afterPages });
      failures.set(shop, list);
    },
    failEvents: (shop, failure, options = {}) => {
      const list = eventFailures.get(shop) ?? [];
      list.push({
        failure,
        operation: options.operation ?? 'fulfillmentEventCreate',
        times: options.times ?? 1,
      });
      eventFailures.set(shop, list);
    },
    grantScopes: (accessToken, list) => scopes.set(accessToken, [...list]),
    denyScopes: (shop, list) => deniedScopes.set(shop, new Set(list)),
    setFlowTriggers: (definitions) => {
      flowDefinitions = new Map(definitions.map((d) => [d.handle, new Set(d.fields)]));
    },
    flowTriggers: (shop) => [...(flowRuns.get(shop) ?? [])],
    setFulfillments: (shop, ids) => fulfillments.set(shop, new Set(ids.map(toFulfillmentGid))),
    trackingInfo: (shop, fulfillmentId) => trackingInfos.get(`${shop} ${toFulfillmentGid(fulfillmentId)}`),
    events: (shop, fulfillmentId) =>
      (events.get(shop) ?? []).filter(
        (e) => fulfillmentId === undefined || e.fulfillmentId === toFulfillmentGid(fulfillmentId),
      ),
    close: async () => {},
  };

  const takeFailure = (shop: string, operation: AdminOperation): InjectedFailure | null => {
    const list = eventFailures.get(shop) ?? [];
    const index = list.findIndex((f) => f.operation === operation);
    if (index < 0) return null;
    const entry = list[index]!;
    entry.times--;
    if (entry.times <= 0) list.splice(index, 1);
    return entry.failure;
  };

  const knownFulfillment = (shop: string, gid: string) => fulfillments.get(shop)?.has(gid) ?? true;

  /** fulfillmentEventCreate: the answer body, and whether an event was recorded. */
  function createEvent(
    shop: string,
    variables: Record<string, unknown>,
  ): { body: unknown; applied: boolean } {
    const type = 'FulfillmentEventInput!';
    const input = variables.fulfillmentEvent;
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      return {
        body: invalidVariable('fulfillmentEvent', type, input ?? null, [], 'Expected value to not be null'),
        applied: false,
      };
    }
    const fields = input as Record<string, unknown>;
    for (const key of Object.keys(fields)) {
      if (!eventInputFields.has(key)) {
        return {
          body: invalidVariable(
            'fulfillmentEvent',
            type,
            fields,
            [key],
            'Field is not defined on FulfillmentEventInput',
          ),
          applied: false,
        };
      }
    }
    const fulfillmentId = fields.fulfillmentId;
    if (typeof fulfillmentId !== 'string' || !fulfillmentGidPattern.test(fulfillmentId)) {
      return {
        body: invalidVariable(
          'fulfillmentEvent',
          type,
          fields,
          ['fulfillmentId'],
          `Invalid global id '${String(fulfillmentId)}'`,
        ),
        applied: false,
      };
    }
    const status = fields.status;
    if (typeof status !== 'string' || !(fulfillmentEventStatuses as readonly string[]).includes(status)) {
      return {
        body: invalidVariable(
          'fulfillmentEvent',
          type,
          fields,
          ['status'],
          `Expected "${String(status)}" to be one of: ${fulfillmentEventStatuses.join(', ')}`,
        ),
        applied: false,
      };
    }
    const times: Record<'happenedAt' | 'estimatedDeliveryAt', string | null> = {
      happenedAt: null,
      estimatedDeliveryAt: null,
    };
    for (const key of ['happenedAt', 'estimatedDeliveryAt'] as const) {
      const value = fields[key];
      if (value === undefined || value === null) continue;
      const date = typeof value === 'string' && isoDateTime.test(value) ? new Date(value) : null;
      if (!date || Number.isNaN(date.getTime())) {
        return {
          body: invalidVariable(
            'fulfillmentEvent',
            type,
            fields,
            [key],
            `invalid DateTime '${String(value)}': expected an ISO 8601 date and time`,
          ),
          applied: false,
        };
      }
      times[key] = platformTime(date);
    }
    if (!knownFulfillment(shop, fulfillmentId)) {
      return {
        body: {
          data: {
            fulfillmentEventCreate: {
              fulfillmentEvent: null,
              userErrors: [
                { field: ['fulfillmentEvent', 'fulfillmentId'], message: 'Fulfillment does not exist.' },
              ],
            },
          },
          extensions: cost(10),
        },
        applied: false,
      };
    }
    const text = (key: string) => {
      const value = fields[key];
      return typeof value === 'string' && value !== '' ? value : null;
    };
    sequence++;
    const event: FakeFulfillmentEvent = {
      id: `gid://shopify/FulfillmentEvent/${sequence}`,
      fulfillmentId,
      status,
      happenedAt: times.happenedAt ?? platformTime(new Date()),
      message: text('message'),
      city: text('city'),
      province: text('province'),
      country: text('country'),
      zip: text('zip'),
      estimatedDeliveryAt: times.estimatedDeliveryAt,
      sequence,
    };
    const list = events.get(shop) ?? [];
    list.push(event);
    events.set(shop, list);
    return {
      body: {
        data: {
          fulfillmentEventCreate: {
            fulfillmentEvent: { id: event.id, status: event.status, happenedAt: event.happenedAt },
            userErrors: [],
          },
        },
        extensions: cost(10),
      },
      applied: true,
    };
  }

  /** fulfillmentTrackingInfoUpdate: the answer body, and whether the tracking info was changed. */
  function updateTrackingInfo(
    shop: string,
    variables: Record<string, unknown>,
  ): { body: unknown; applied: boolean } {
    const fulfillmentId = variables.fulfillmentId;
    if (typeof fulfillmentId !== 'string' || !fulfillmentGidPattern.test(fulfillmentId)) {
      return {
        body: invalidVariable(
          'fulfillmentId',
          'ID!',
          fulfillmentId ?? null,
          [],
          `Invalid global id '${String(fulfillmentId)}'`,
        ),
        applied: false,
      };
    }
    const type = 'FulfillmentTrackingInput!';
    const input = variables.trackingInfoInput;
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      return {
        body: invalidVariable('trackingInfoInput', type, input ?? null, [], 'Expected value to not be null'),
        applied: false,
      };
    }
    const fields = input as Record<string, unknown>;
    const bad = (path: string, explanation: string) => ({
      body: invalidVariable('trackingInfoInput', type, fields, [path], explanation),
      applied: false,
    });
    for (const key of Object.keys(fields)) {
      if (!trackingInputFields.has(key)) return bad(key, 'Field is not defined on FulfillmentTrackingInput');
    }
    const list = (key: 'numbers' | 'urls'): string[] | null | 'bad' => {
      const value = fields[key];
      if (value === undefined || value === null) return null;
      return Array.isArray(value) && value.every((v) => typeof v === 'string') ? (value as string[]) : 'bad';
    };
    const numbers = list('numbers');
    const urls = list('urls');
    if (numbers === 'bad') return bad('numbers', 'Expected a list of strings');
    if (urls === 'bad') return bad('urls', 'Expected a list of URLs');
    const one = (key: 'number' | 'url' | 'company') =>
      typeof fields[key] === 'string' ? (fields[key] as string) : null;
    const allUrls = urls ?? (one('url') !== null ? [one('url')!] : null);
    for (const url of allUrls ?? []) {
      if (!/^https?:\/\/[^\s/]+/i.test(url)) return bad(urls ? 'urls' : 'url', `Invalid URL '${url}'`);
    }
    if (!knownFulfillment(shop, fulfillmentId)) {
      return {
        body: {
          data: {
            fulfillmentTrackingInfoUpdate: {
              fulfillment: null,
              userErrors: [{ field: ['fulfillmentId'], message: 'Fulfillment does not exist.' }],
            },
          },
          extensions: cost(10),
        },
        applied: false,
      };
    }
    sequence++;
    const notify = variables.notifyCustomer;
    trackingInfos.set(`${shop} ${fulfillmentId}`, {
      company: one('company'),
      numbers: numbers ?? (one('number') !== null ? [one('number')!] : []),
      urls: allUrls,
      notifyCustomer: typeof notify === 'boolean' ? notify : null,
      sequence,
    });
    return {
      body: {
        data: { fulfillmentTrackingInfoUpdate: { fulfillment: { id: fulfillmentId }, userErrors: [] } },
        extensions: cost(10),
      },
      applied: true,
    };
  }

  /** flowTriggerReceive: the answer body, and whether the trigger was received. */
  function receiveFlowTrigger(
    shop: string,
    variables: Record<string, unknown>,
  ): { body: unknown; applied: boolean } {
    const refuse = (field: string, message: string) => ({
      body: {
        data: { flowTriggerReceive: { userErrors: [{ field: [field], message }] } },
        extensions: cost(10),
      },
      applied: false,
    });
    const { handle, payload } = variables;
    if (typeof handle !== 'string' || handle === '') return refuse('handle', 'A trigger handle is required.');
    if (payload === null || typeof payload !== 'object' || Array.isArray(payload))
      return refuse('payload', 'The payload must be a JSON object.');
    if (Buffer.byteLength(JSON.stringify(payload)) >= 50_000)
      return refuse('payload', 'The payload must be under 50000 bytes.');
    const fields = payload as Record<string, unknown>;
    if (flowDefinitions) {
      const known = flowDefinitions.get(handle);
      if (!known) return refuse('handle', `No trigger with the handle '${handle}' is defined for this app.`);
      const unknown = Object.keys(fields).filter((key) => !known.has(key));
      const missing = [...known].filter((key) => !(key in fields));
      if (unknown.length > 0 || missing.length > 0) {
        return refuse(
          'payload',
          `Errors validating schema: ${[
            ...unknown.map((key) => `unknown field '${key}'`),
            ...missing.map((key) => `missing field '${key}'`),
          ].join(', ')}`,
        );
      }
    }
    sequence++;
    const list = flowRuns.get(shop) ?? [];
    list.push({ handle, payload: { ...fields }, sequence });
    flowRuns.set(shop, list);
    return {
      body: { data: { flowTriggerReceive: { userErrors: [] } }, extensions: cost(10) },
      applied: true,
    };
  }

  /** fulfillment(id) { events(...) { nodes { status happenedAt } } } */
  function listEvents(shop: string, query: string, variables: Record<string, unknown>): unknown {
    const id = variables.id;
    if (typeof id !== 'string' || !fulfillmentGidPattern.test(id)) {
      return invalidVariable('id', 'ID!', id ?? null, [], `Invalid global id '${String(id)}'`);
    }
    if (!knownFulfillment(shop, id)) return { data: { fulfillment: null }, extensions: cost(3) };
    const args = /\bevents\s*\(([^)]*)\)/.exec(query)?.[1] ?? '';
    const first = Number(/\bfirst\s*:\s*(\d+)/.exec(args)?.[1] ?? NaN);
    const last = Number(/\blast\s*:\s*(\d+)/.exec(args)?.[1] ?? NaN);
    if (Number.isNaN(first) && Number.isNaN(last)) {
      return {
        errors: [{ message: 'you must provide one of first or last', path: ['fulfillment', 'events'] }],
      };
    }
    const sortKey = /\bsortKey\s*:\s*(\w+)/.exec(args)?.[1] ?? 'ID';
    const reverse = /\breverse\s*:\s*true\b/.test(args);
    const sorted = (events.get(shop) ?? [])
      .filter((e) => e.fulfillmentId === id)
      .sort((a, b) =>
        sortKey === 'HAPPENED_AT'
          ? a.happenedAt.localeCompare(b.happenedAt) || a.sequence - b.sequence
          : a.sequence - b.sequence,
      );
    if (reverse) sorted.reverse();
    const page = Number.isNaN(first) ? sorted.slice(-last) : sorted.slice(0, first);
    return {
      data: {
        fulfillment: {
          events: { nodes: page.map((e) => ({ id: e.id, status: e.status, happenedAt: e.happenedAt })) },
        },
      },
      extensions: cost(5),
    };
  }

  /**
   * nodes(ids:) { ... on Order { id customer { id } <alias>: fulfillments(first:) { id }
   * fulfillments(first:) { id fulfillmentLineItems(first:) { nodes { quantity lineItem { ... } } } } } }
   */
  function orderDetails(shop: string, query: string, variables: Record<string, unknown>): unknown {
    const ids: unknown[] = Array.isArray(variables.ids) ? variables.ids : [];
    const bad = ids.findIndex((id) => typeof id !== 'string' || !/^gid:\/\/shopify\/Order\/\d+$/.test(id));
    if (bad >= 0) {
      return invalidVariable('ids', '[ID!]!', ids, [String(bad)], `Invalid global id '${String(ids[bad])}'`);
    }
    // Every fulfilment's id under an alias, and the fulfilments read with their items.
    const listed = /(\w+)\s*:\s*fulfillments\s*\(([^)]*)\)\s*\{\s*id\s*\}/.exec(query);
    const rest = listed ? query.replace(listed[0], '') : query;
    const detailed = /\bfulfillments\s*\(([^)]*)\)/.exec(rest);
    const items = /\bfulfillmentLineItems\s*\(([^)]*)\)/.exec(rest);
    const itemsFirst = items ? firstOf(items[1], variables) : 0;
    if (itemsFirst === null) {
      return {
        errors: [
          { message: 'you must provide one of first or last', path: ['nodes', 'fulfillmentLineItems'] },
        ],
      };
    }
    // The requested cost, as the real API reckons it before running the query (lists without `first`:
    // counted as 250).
    const listedFirst = listed ? (firstOf(listed[2], variables) ?? 250) : 0;
    const detailedFirst = detailed ? (firstOf(detailed[1], variables) ?? 250) : 0;
    const itemCost = items ? 2 + (/\bimage\s*\{/.test(rest) ? 1 : 0) : 0;
    // `customer @include(if: $withCustomer) { id }`: the customer only when asked for.
    const customerField = /\bcustomer\s*(@include\s*\(\s*if\s*:\s*\$(\w+)\s*\))?\s*\{/.exec(rest);
    const withCustomer = !!customerField && (!customerField[2] || variables[customerField[2]] === true);
    const orderCost =
      1 +
      (withCustomer ? 1 : 0) +
      listedFirst +
      detailedFirst * (1 + (items ? 2 + itemsFirst * itemCost : 0));
    const requested = ids.length * orderCost;
    if (requested > 1000) return maxCostExceeded(requested);

    const held = new Map(
      (orders.get(shop) ?? []).map((o) => [`gid://shopify/Order/${o.legacyResourceId}`, o]),
    );
    const fulfillmentGidOf = (f: FakeFulfillment) => `gid://shopify/Fulfillment/${f.legacyResourceId}`;
    const nodes = (ids as string[]).map((id) => {
      const order = held.get(id);
      if (!order) return null;
      return {
        __typename: 'Order',
        id,
        ...(withCustomer
          ? { customer: order.customerId ? { id: `gid://shopify/Customer/${order.customerId}` } : null }
          : {}),
        ...(listed
          ? {
              [listed[1]!]: order.fulfillments
                .slice(0, listedFirst)
                .map((f) => ({ id: fulfillmentGidOf(f) })),
            }
          : {}),
        fulfillments: order.fulfillments.slice(0, detailedFirst).map((f) => ({
          id: fulfillmentGidOf(f),
          fulfillmentLineItems: {
            nodes: (f.lineItems ?? []).slice(0, itemsFirst).map((item) => ({
              quantity: item.quantity,
              lineItem: {
                title: item.title,
                variantTitle: item.variantTitle ?? null,
                image: item.image ? { url: item.image.url, altText: item.image.altText ?? null } : null,
              },
            })),
          },
        })),
      };
    });
    return { data: { nodes }, extensions: cost(requested) };
  }

  /** An order as the backfill's query answers it (no line items: it does not ask for them). */
  const withoutItems = (order: FakeOrder): FakeOrder => ({
    ...order,
    fulfillments: order.fulfillments.map(({ lineItems: _lineItems, ...f }) => f),
  });

  const app = express();
  app.use(express.json());
  app.post('/admin/api/:version/graphql.json', async (req, res) => {
    const shop = req.header('x-fake-shop') ?? '';
    const accessToken = req.header('x-shopify-access-token') ?? null;
    const body = req.body as { query?: string; variables?: Record<string, unknown> };
    const query = body.query ?? '';
    const variables = body.variables ?? {};
    const operation = operationOf(query);
    requests.push({ shop, url: req.originalUrl, accessToken, operation, query, variables });
    if (operation === 'orders' || operation === 'unknown') {
      calls.push({
        shop,
        url: req.originalUrl,
        accessToken,
        query,
        variables: variables as OrdersCall['variables'],
      });
    }
    const pending = failures.get(shop) ?? [];
    const first = pending[0];
    if (first) {
      if (first.afterPages <= 0) {
        pending.shift();
        res.status(first.status).json(first.body);
        return;
      }
      first.afterPages--;
    }
    if (operation === 'unknown') {
      res.json({ errors: [{ message: 'unexpected query' }] });
      return;
    }

    let injected =
      operation === 'orders' || operation === 'customerOrders' ? null : takeFailure(shop, operation);
    if (injected?.kind === 'slow') {
      const { ms } = injected;
      await new Promise((resolve) => setTimeout(resolve, ms));
      injected = null;
    }
    if (injected && injected.kind !== 'applyThenFail') {
      if (injected.kind === 'drop') {
        req.socket.destroy();
        return;
      }
      if (injected.kind === 'throttled') {
        res.json({
          errors: [
            {
              message: 'Throttled',
              extensions: {
                code: 'THROTTLED',
                documentation: 'https://shopify.dev/api/usage/rate-limits',
              },
            },
          ],
          extensions: {
            cost: {
              requestedQueryCost: 10,
              actualQueryCost: null,
              throttleStatus: { maximumAvailable: 2000, currentlyAvailable: 0, restoreRate: 100 },
            },
          },
        });
        return;
      }
      if (injected.status === 429) res.setHeader('Retry-After', '2');
      res
        .status(injected.status)
        .json(injected.body ?? { errors: injected.status === 429 ? 'Throttled' : 'Internal Server Error' });
      return;
    }

    const denied = deniedScopes.get(shop);
    const granted = (accessToken ? (scopes.get(accessToken) ?? appScopes) : []).filter(
      (s) => !denied?.has(s) && !(s.startsWith('write_') && denied?.has(`read_${s.slice(6)}`)),
    );
    const scope = requiredScope[operation];
    if (!hasScope(granted, scope)) {
      const field =
        operation === 'orders' || operation === 'customerOrders'
          ? 'orders'
          : operation === 'fulfillmentEvents'
            ? 'fulfillment'
            : operation === 'fulfillmentNodes' || operation === 'orderDetails'
              ? 'nodes'
              : operation;
      res.json({
        errors: [
          {
            message: `Access denied for ${field} field. Required access: \`${scope}\` access scope.`,
            locations: [{ line: 2, column: 3 }],
            path: [field],
            extensions: {
              code: 'ACCESS_DENIED',
              documentation: 'https://shopify.dev/api/usage/access-scopes',
              requiredAccess: `\`${scope}\` access scope.`,
            },
          },
        ],
        data: { [field]: null },
        extensions: cost(1),
      });
      return;
    }

    if (
      operation === 'fulfillmentEventCreate' ||
      operation === 'fulfillmentTrackingInfoUpdate' ||
      operation === 'flowTriggerReceive'
    ) {
      const { body: answer, applied } =
        operation === 'fulfillmentEventCreate'
          ? createEvent(shop, variables)
          : operation === 'flowTriggerReceive'
            ? receiveFlowTrigger(shop, variables)
            : updateTrackingInfo(shop, variables);
      // "Apply then fail": the mutation took effect, the answer is lost.
      if (injected?.kind === 'applyThenFail' && applied) {
        if (injected.answer === 'drop') req.socket.destroy();
        else res.status(500).json({ errors: 'Internal Server Error' });
        return;
      }
      res.json(answer);
      return;
    }
    if (operation === 'fulfillmentEvents') {
      res.json(listEvents(shop, query, variables));
      return;
    }
    if (operation === 'shopProfile') {
      const profile = profiles.get(shop);
      res.json({
        data: {
          shop: {
            ianaTimezone: profile?.timezone ?? 'UTC',
            contactEmail: profile?.contactEmail ?? null,
            email: profile?.contactEmail ?? null,
          },
        },
        extensions: cost(1),
      });
      return;
    }
    if (operation === 'orderDetails') {
      res.json(orderDetails(shop, query, variables));
      return;
    }
    if (operation === 'fulfillmentNodes') {
      // The store holds the fulfilments the test declared, or (none declared) every one it is asked about.
      const ids = Array.isArray(variables.ids) ? variables.ids.map(String) : [];
      const held = fulfillments.get(shop);
      res.json({
        data: {
          nodes: ids.map((id) =>
            /^gid:\/\/shopify\/Fulfillment\/\d+$/.test(id) && (!held || held.has(id))
              ? { __typename: 'Fulfillment', id }
              : null,
          ),
        },
        extensions: cost(1 + ids.length),
      });
      return;
    }
    if (operation === 'customerOrders') {
      // Only the one filter the app sends is understood: `customer_id:<digits>`.
      const customer = /^customer_id:(\d+)$/.exec(String(variables.query ?? ''))?.[1];
      const first = Number(/orders\(first: (\d+)/.exec(query)?.[1]);
      const nodes = (orders.get(shop) ?? [])
        .filter((o) => customer !== undefined && o.customerId === customer)
        .reverse()
        .slice(0, first)
        .map((o) => ({ legacyResourceId: o.legacyResourceId, name: o.name }));
      res.json({ data: { orders: { nodes } }, extensions: cost(first + 2) });
      return;
    }

    const all = orders.get(shop) ?? [];
    const cursor = (variables as OrdersCall['variables']).cursor ?? null;
    const start = cursor === null ? 0 : Number(cursor.replace(/^c/, ''));
    const nodes = all.slice(start, start + fake.pageSize).map(withoutItems);
    const end = start + nodes.length;
    res.json({
      data: {
        orders: {
          pageInfo: { hasNextPage: end < all.length, endCursor: nodes.length > 0 ? `c${end}` : null },
          nodes,
        },
      },
      extensions: { cost: { requestedQueryCost: 10 } },
    });
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  fake.baseUrl = base;

  const realFetch = globalThis.fetch;
  if ((options.seam ?? 'take') === 'take' || seamHolders.length === 0) seamHolders.push(fake);
  else seamHolders.unshift(fake);
  routeShopifyFetchTo(seamHolders.at(-1)!.baseUrl);

  fake.close = async () => {
    const at = seamHolders.indexOf(fake);
    if (at >= 0) seamHolders.splice(at, 1);
    const next = seamHolders.at(-1);
    if (next) routeShopifyFetchTo(next.baseUrl);
    else setShopifyFetch(realFetch);
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
  return fake;
}

/**
 * Sends every request the shopify-api library makes to a fake store at `base` (this process's library;
 * the store it addressed goes in an `x-fake-shop` header). Also used by a test's app child process, which
 * reaches the test's fake this way (tools/dev/fake-store-preload.ts).
 */
export function routeShopifyFetchTo(base: string): void {
  const realFetch = globalThis.fetch;
  setShopifyFetch(async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers as ConstructorParameters<typeof Headers>[0]);
    headers.set('x-fake-shop', url.host);
    return realFetch(`${base}${url.pathname}${url.search}`, { ...init, headers });
  });
}

/** An order of `n` with one UPS fulfilment per tracking number list given. */
export function upsOrder(
  n: number,
  fulfillments: string[][],
  extra: Partial<GraphqlOrder> = {},
): GraphqlOrder {
  return {
    legacyResourceId: String(6_300_000_000_000 + n),
    name: `#${3000 + n}`,
    cancelledAt: null,
    shippingAddress: { zip: '40003', countryCodeV2: 'US' },
    fulfillments: fulfillments.map((numbers, i) => ({
      legacyResourceId: String(5_300_000_000_000 + n * 10 + i),
      status: 'SUCCESS',
      createdAt: '2026-11-18T10:21:43Z',
      updatedAt: '2026-11-18T10:21:43Z',
      trackingInfo: numbers.map((number) => ({ company: 'UPS', number })),
    })),
    ...extra,
  };
}

export function upsNumber(n: number): string {
  return `1ZBF${String(n).padStart(12, '0')}`;
}
