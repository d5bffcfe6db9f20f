/** The app's own view of the tracking service: camelCase, empty strings folded to null, text ready to show. */

export type OperationName = 'create' | 'get' | 'by-order-id' | 'delete' | 'providers';

export interface TrackingLocation {
  city: string | null;
  state: string | null;
  country: string | null;
  zip: string | null;
}

export interface TrackingEvent {
  message: string;
  description: string | null;
  status: string;
  statusDetail: string | null;
  /** As sent, `YYYY-MM-DD HH:MM:SS`; the service does not say which time zone. */
  datetime: string;
  source: string | null;
  location: TrackingLocation | null;
}

export interface Shipment {
  orderId: string | null;
  trackingNumber: string;
  trackingProvider: string | null;
  /** `tracking_event_status`; `unknown` when the service left it out. */
  status: string;
  estimatedDeliveryDate: string | null;
  originCountry: string | null;
  destinationCountry: string | null;
  deliveryNumber: string | null;
  deliveryProvider: string | null;
  /** Plain text: entities decoded, markup removed. */
  shippingService: string | null;
  /** As the service sent it (may hold HTML). */
  shippingServiceRaw: string | null;
  lastEventTime: string | null;
  events: TrackingEvent[];
  /** `destination_events`; empty when null or absent. */
  destinationEvents: TrackingEvent[];
}

export interface ShippingProvider {
  label: string;
  slug: string;
}

export interface AccountInfo {
  /** `trackers_balance` as a number; null when absent or not numeric. */
  trackersBalance: number | null;
  userPlan: string | null;
}

export interface CreateTrackerInput {
  trackingNumber: string;
  trackingProvider: string;
  orderId: string;
  postalCode?: string | null;
  destinationCountry?: string | null;
}

export interface TrackerKey {
  trackingNumber: string;
  trackingProvider: string;
  orderId: string;
}

export interface CreatedTracker extends AccountInfo {
  /** The service's `status_msg`, e.g. a pending-at-service value. */
  statusMessage: string | null;
}

export interface DeletedTracker {
  message: string | null;
}

/** Why an operation failed, as far as the service's answer tells. */
export type ErrorReason =
  | 'ssl_error'
  | 'unauthorized'
  | 'balance_exhausted'
  | 'destination_required'
  | 'order_not_found'
  | 'tracking_not_found'
  | 'provider_not_found'
  | 'app_name_not_found'
  | 'missing_parameter'
  | 'invalid_route'
  | 'rate_limited'
  | 'server_error'
  | 'unknown';

export type TransportCause = 'timeout' | 'reset' | 'refused' | 'dns' | 'network';

interface ErrorBase {
  /** Human-readable, safe to log and to show: never holds the API key. */
  message: string;
  reason: ErrorReason;
  /** Whether trying the same call again later can help. */
  retryable: boolean;
  operation: OperationName;
  /** How many HTTP attempts were made, retries included. */
  attempts: number;
}

/** HTTP 200 with `status: "error"`, or a create whose `status_msg` says it created nothing. */
export interface ApplicationError extends ErrorBase {
  kind: 'application';
  httpStatus: number;
  /** Balance and plan when the answer carried them (creation failures do). */
  account: AccountInfo | null;
}

/** A non-2xx answer. */
export interface HttpError extends ErrorBase {
  kind: 'http';
  httpStatus: number;
  /** Milliseconds the service asked us to wait (`Retry-After`), when it did. */
  retryAfterMs: number | null;
}

/** No answer: timeout, connection reset or refused, name resolution. */
export interface TransportError extends ErrorBase {
  kind: 'transport';
  cause: TransportCause;
}

/** An answer whose body is not JSON or not of the documented shape. */
export interface InvalidResponseError extends ErrorBase {
  kind: 'invalid_response';
  httpStatus: number;
}

export type TrackingError = ApplicationError | HttpError | TransportError | InvalidResponseError;

/** RFC 8594 signals on a response. */
export interface DeprecationNotice {
  deprecation: string | null;
  sunset: string | null;
  link: string | null;
}

export type TrackingResult<T> =
  | { ok: true; value: T; deprecation: DeprecationNotice | null; attempts: number }
  | {
      ok: false;
      error: TrackingError;
      deprecation: DeprecationNotice | null;
      /**
       * For create only: the request may have reached the service before the failure (timeout, reset, 5xx),
       * so the tracker may exist. Look it up before creating again.
       */
      outcomeUnknown: boolean;
    };
