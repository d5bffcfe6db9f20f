/**
 * The five tracking operations, as pure request → reply functions over the state (no HTTP here).
 * Every message and status code the emulated service answers with is defined in this file.
 */
import { findCarrier, missingRequirements, providerList } from './carriers.js';
import type { Operation } from './faults.js';
import type { TrackingEvent } from './lifecycle.js';
import type { Account, EmulatorState, Tracker } from './state.js';

export interface Reply {
  status: number;
  body: unknown;
}

export interface OperationRequest {
  /** `service-api-key` header; undefined when absent. */
  apiKey: string | undefined;
  /** `app-name` header; undefined when absent. */
  appName: string | undefined;
  /** Raw body text; null when empty. */
  bodyText: string | null;
  /** True when the body was over the size limit (its text is then not kept). */
  bodyTooLarge: boolean;
}

/** Exact messages of the emulated service. */
export const messages = {
  invalidRoute: 'Invalid route',
  invalidJson: 'Invalid JSON body',
  bodyTooLarge: 'Request body too large',
  unauthorized: 'unauthorized',
  sslError: 'ssl_error',
  appNameNotFound: 'App name not found',
  providerNotFound: 'Shipping provider not found',
  orderIdNotFound: 'Order id not found',
  trackingNotFound: 'Tracking number not found',
  trackingInfoMissing: 'Tracking information does not exist',
  balanceExhausted: 'Trackers balance exhausted',
  deleted: 'Tracking deleted successfully',
  internalError: 'Internal Server Error',
  tooManyRequests: 'Too Many Requests',
  pending: 'pending',
  missingParameter: (name: string) => `Missing required parameter: ${name}`,
  invalidParameter: (name: string) => `Invalid parameter: ${name}`,
} as const;

export function errorReply(status: number, message: string): Reply {
  return { status, body: { status: 'error', message } };
}

type Body = Record<string, unknown>;

/** Parses a body that must be a JSON object; undefined when it is not. */
export function parseObjectBody(text: string | null): Body | undefined {
  if (text === null) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return undefined;
  return parsed as Body;
}

class ReplyError extends Error {
  constructor(readonly reply: Reply) {
    super('reply');
  }
}

/** A required field: a string that is not blank. */
function required(body: Body, name: string): string {
  const v = body[name];
  if (typeof v !== 'string' || v.trim() === '')
    throw new ReplyError(errorReply(400, messages.missingParameter(name)));
  return v;
}

/** An optional field: absent, null or '' give null; a non-string is a 400. */
function optional(body: Body, name: string): string | null {
  const v = body[name];
  if (v === undefined || v === null || v === '') return null;
  if (typeof v !== 'string') throw new ReplyError(errorReply(400, messages.invalidParameter(name)));
  return v;
}

function carrierOrThrow(slug: string) {
  const carrier = findCarrier(slug);
  if (!carrier) throw new ReplyError(errorReply(400, messages.providerNotFound));
  return carrier;
}

/** Checks the auth headers for an operation; the account, or throws the error reply. */
function authenticate(state: EmulatorState, op: Operation, req: OperationRequest): Account {
  const { apiKey, appName } = req;
  if (!apiKey || !appName) throw new ReplyError(errorReply(401, messages.unauthorized));
  const account = state.accountByApiKey(apiKey);
  if (!account) throw new ReplyError(errorReply(401, messages.unauthorized));
  if (!account.https) throw new ReplyError(errorReply(401, messages.sslError));
  if (account.appName !== appName) {
    throw new ReplyError(
      op === 'delete' ? errorReply(200, messages.appNameNotFound) : errorReply(401, messages.unauthorized),
    );
  }
  return account;
}

function accountFields(account: Account) {
  return { trackers_balance: String(account.balance), user_plan: account.plan };
}

function createError(account: Account, statusMsg: string): Reply {
  return { status: 200, body: { status: 'error', status_msg: statusMsg, ...accountFields(account) } };
}

function create(state: EmulatorState, account: Account, body: Body): Reply {
  const trackingNumber = required(body, 'tracking_number');
  const provider = required(body, 'tracking_provider');
  const orderId = body.order_id;
  if (typeof orderId !== 'string')
    throw new ReplyError(errorReply(400, messages.missingParameter('order_id')));
  const postalCode = optional(body, 'postal_code');
  const destinationCountry = optional(body, 'destination_country');
  const carrier = carrierOrThrow(provider);
  if (orderId.trim() === '') return createError(account, messages.orderIdNotFound);
  const missing = missingRequirements(carrier, { postalCode, destinationCountry });
  if (missing) return createError(account, missing);
  const ok = (): Reply => ({
    status: 200,
    body: { status: 'ok', status_msg: messages.pending, ...accountFields(account) },
  });
  if (state.findTracker(account.appName, trackingNumber, provider)) return ok();
  if (account.balance <= 0) return createError(account, messages.balanceExhausted);
  account.balance -= 1;
  state.addTracker({
    appName: account.appName,
    trackingNumber,
    provider,
    orderId,
    postalCode,
    destinationCountry: destinationCountry ?? '',
  });
  return ok();
}

/** The full shipment data of the get operation, fields in the spec's order. */
export function shipmentData(state: EmulatorState, tracker: Tracker, atMs: number = state.clock.nowMs()) {
  const snap = state.snapshotAt(tracker, atMs);
  return {
    order_id: tracker.orderId,
    tracking_number: tracker.trackingNumber,
    tracking_provider: tracker.provider,
    tracking_event_status: snap.status,
    tracking_est_delivery_date: snap.estDeliveryDate,
    origin_country: snap.originCountry,
    destination_country: tracker.destinationCountry,
    delivery_number: null,
    delivery_provider: null,
    shipping_service: tracker.carrier.shippingService,
    last_event_time: snap.lastEventTime,
    events: snap.events as TrackingEvent[],
    destination_events: snap.destinationEvents,
  };
}

/**
 * The shipment data of one by-order-id element: a subset without tracking_est_delivery_date,
 * origin_country, delivery_number, delivery_provider and shipping_service.
 */
export function shipmentSummary(state: EmulatorState, tracker: Tracker) {
  const {
    tracking_est_delivery_date: _est,
    origin_country: _origin,
    delivery_number: _number,
    delivery_provider: _provider,
    shipping_service: _service,
    ...rest
  } = shipmentData(state, tracker);
  return rest;
}

function get(state: EmulatorState, account: Account, body: Body): Reply {
  const trackingNumber = required(body, 'tracking_number');
  const provider = optional(body, 'tracking_provider');
  if (provider !== null) carrierOrThrow(provider);
  const tracker =
    provider === null
      ? state.findNewestByNumber(account.appName, trackingNumber)
      : state.findTracker(account.appName, trackingNumber, provider);
  if (!tracker) return errorReply(200, messages.trackingInfoMissing);
  return { status: 200, body: { status: 'success', data: shipmentData(state, tracker) } };
}

function byOrderId(state: EmulatorState, account: Account, body: Body): Reply {
  const orderId = required(body, 'order_id');
  const trackers = state.trackersByOrder(account.appName, orderId);
  if (trackers.length === 0) return errorReply(200, messages.orderIdNotFound);
  return { status: 200, body: { status: 'success', data: trackers.map((t) => shipmentSummary(state, t)) } };
}

function remove(state: EmulatorState, account: Account, body: Body): Reply {
  const trackingNumber = required(body, 'tracking_number');
  const provider = required(body, 'tracking_provider');
  const orderId = required(body, 'order_id');
  carrierOrThrow(provider);
  const tracker = state.findTracker(account.appName, trackingNumber, provider);
  if (!tracker) return errorReply(400, messages.trackingNotFound);
  if (tracker.orderId !== orderId) return errorReply(400, messages.orderIdNotFound);
  state.removeTracker(tracker);
  return { status: 200, body: { status: 'success', message: messages.deleted } };
}

const providersReply: Reply = { status: 200, body: { success: true, data: providerList() } };

/**
 * Handles one call of an operation (already routed). Order of checks: body (400) → auth (401, or 200
 * "App name not found" for delete) → required parameters (400) → provider (400) → the operation itself.
 */
export function handleOperation(state: EmulatorState, op: Operation, req: OperationRequest): Reply {
  if (op === 'providers') return providersReply;
  if (req.bodyTooLarge) return errorReply(400, messages.bodyTooLarge);
  const body = parseObjectBody(req.bodyText);
  if (!body) return errorReply(400, messages.invalidJson);
  try {
    const account = authenticate(state, op, req);
    switch (op) {
      case 'create':
        return create(state, account, body);
      case 'get':
        return get(state, account, body);
      case 'by-order-id':
        return byOrderId(state, account, body);
      case 'delete':
        return remove(state, account, body);
    }
  } catch (err) {
    if (err instanceof ReplyError) return err.reply;
    throw err;
  }
}
