import { serviceCalls, serviceCallSeconds } from '../observability/metrics.js';
import type { z } from 'zod';
import { type Logger, silentLogger } from '../logger.js';
import { createMessageIsFailure, httpStatusIsRetryable, reasonFromMessage } from './classify.js';
import { type FetchLike, fetchTransport, httpTransport, type Transport } from './transport.js';
import {
  defaultRetryPolicy,
  type HttpCall,
  type RawOutcome,
  type RequestSettings,
  type RetryMode,
  type RetryPolicy,
  sendWithRetries,
} from './request.js';
import {
  accountInfo,
  byOrderResponseSchema,
  createResponseSchema,
  deleteResponseSchema,
  errorBodySchema,
  getResponseSchema,
  parseProviderList,
  providersResponseSchema,
  shipmentSchema,
} from './schemas.js';
import type {
  AccountInfo,
  CreatedTracker,
  CreateTrackerInput,
  DeletedTracker,
  DeprecationNotice,
  OperationName,
  Shipment,
  ShippingProvider,
  TrackerKey,
  TrackingError,
  TrackingResult,
} from './types.js';

export interface TrackingCredentials {
  apiKey: string;
  appName: string;
}

export interface TrackingClientOptions {
  /** Ends with the version segment, e.g. `https://api.example.com/v1`. */
  baseUrl: string;
  /**
   * How calls cross the network (default: node:http(s) on keep-alive connections, src/tracking/transport.ts).
   * Tests may give a fetch function instead (a fake network), or a transport of their own.
   */
  transport?: Transport;
  fetch?: FetchLike;
  /** Connections to the service open at once, with the default transport (default: no limit). */
  maxSockets?: number;
  /** Per attempt, the answer's read included. */
  timeoutMs?: number;
  /**
   * The longest answer read (default 2 MiB). The largest legitimate one is a `get` with a long event
   * history or a by-order-id with many parcels: tens of kilobytes. Longer answers become a transient
   * `invalid_response` without being read.
   */
  maxResponseBytes?: number;
  retry?: Partial<RetryPolicy>;
  logger?: Logger;
  random?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface TrackingClient {
  readonly baseUrl: string;
  createTracker(
    credentials: TrackingCredentials,
    input: CreateTrackerInput,
  ): Promise<TrackingResult<CreatedTracker>>;
  getShipment(
    credentials: TrackingCredentials,
    query: { trackingNumber: string; trackingProvider?: string | null },
  ): Promise<TrackingResult<Shipment>>;
  getShipmentsByOrderId(
    credentials: TrackingCredentials,
    orderId: string,
  ): Promise<TrackingResult<Shipment[]>>;
  deleteTracker(credentials: TrackingCredentials, key: TrackerKey): Promise<TrackingResult<DeletedTracker>>;
  listProviders(): Promise<TrackingResult<ShippingProvider[]>>;
}

/** See TrackingClientOptions.maxResponseBytes. */
export const defaultMaxResponseBytes = 2 * 1024 * 1024;

const paths: Record<OperationName, string> = {
  create: '/shipment/create/',
  get: '/shipment/get/',
  'by-order-id': '/shipment/by-order-id',
  delete: '/shipment/delete/',
  providers: '/shipping_carriers/supported',
};

export function normaliseBaseUrl(baseUrl: string): string {
  const trimmed = baseUrl.trim().replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    throw new Error('The tracking service base URL is not a valid URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error('The tracking service base URL must be http(s)');
  }
  if (!/\/v\d+$/.test(url.pathname)) {
    throw new Error('The tracking service base URL must end with its version segment, e.g. /v1');
  }
  return trimmed;
}

export function createTrackingClient(options: TrackingClientOptions): TrackingClient {
  const baseUrl = normaliseBaseUrl(options.baseUrl);
  const logger = options.logger ?? silentLogger;
  const settings: RequestSettings = {
    transport:
      options.transport ??
      (options.fetch
        ? fetchTransport(options.fetch)
        : httpTransport(options.maxSockets !== undefined ? { maxSockets: options.maxSockets } : {})),
    timeoutMs: options.timeoutMs ?? 10_000,
    maxResponseBytes: options.maxResponseBytes ?? defaultMaxResponseBytes,
    retry: { ...defaultRetryPolicy, ...options.retry },
    random: options.random ?? Math.random,
    sleep: options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms))),
  };
  const warnedDeprecations = new Set<string>();

  function noteDeprecation(operation: OperationName, notice: DeprecationNotice | null): void {
    if (notice === null || warnedDeprecations.has(operation)) return;
    warnedDeprecations.add(operation);
    logger.warn(
      {
        endpoint: paths[operation],
        deprecation: notice.deprecation,
        sunset: notice.sunset,
        link: notice.link,
      },
      'tracking service marks this endpoint as deprecated',
    );
  }

  async function call(
    operation: OperationName,
    credentials: TrackingCredentials | null,
    body: Record<string, string> | undefined,
    retryMode: RetryMode,
  ): Promise<RawOutcome> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (credentials !== null) {
      headers['service-api-key'] = credentials.apiKey;
      headers['app-name'] = credentials.appName;
    }
    const request: HttpCall = {
      operation,
      method: operation === 'providers' ? 'GET' : 'POST',
      url: baseUrl + paths[operation],
      headers,
      retryMode,
    };
    if (body !== undefined) request.body = body;
    const stopTimer = serviceCallSeconds.startTimer({ operation });
    const outcome = await sendWithRetries(request, settings);
    stopTimer();
    if (outcome.kind === 'response') noteDeprecation(operation, outcome.deprecation);
    if (outcome.kind === 'transport' || outcome.status >= 400) {
      logger.debug({ operation, outcome: describe(outcome) }, 'tracking service call failed');
    }
    return outcome;
  }

  /**
   * Turns an outcome into a result: transport and HTTP errors are the same for every operation; a 2xx
   * body goes through the operation's own schema and interpretation.
   */
  function interpretOutcome<S extends z.ZodType, T>(
    operation: OperationName,
    outcome: RawOutcome,
    schema: S,
    read: (body: z.output<S>, status: number) => { value: T } | { error: TrackingError },
    secrets: string[],
  ): TrackingResult<T> {
    const mayHaveActed = operation === 'create';
    if (outcome.kind === 'transport') {
      const error: TrackingError = {
        kind: 'transport',
        cause: outcome.cause,
        reason: 'unknown',
        retryable: true,
        operation,
        attempts: outcome.attempts,
        message: `No answer from the tracking service (${outcome.cause}) after ${outcome.attempts} attempt(s)`,
      };
      return { ok: false, error, deprecation: null, outcomeUnknown: mayHaveActed && outcome.maybeSent };
    }
    const { status, deprecation, attempts } = outcome;
    if (status < 200 || status >= 300) {
      const body = errorBodySchema.safeParse(outcome.json);
      const serviceMessage = body.success ? (body.data.message ?? body.data.status_msg) : null;
      const error: TrackingError = {
        kind: 'http',
        httpStatus: status,
        reason: reasonFromMessage(serviceMessage, status),
        retryable: httpStatusIsRetryable(status),
        retryAfterMs: outcome.retryAfterMs,
        operation,
        attempts,
        message: redact(`HTTP ${status}: ${serviceMessage ?? 'no message'}`, secrets),
      };
      return {
        ok: false,
        error,
        deprecation,
        outcomeUnknown: mayHaveActed && (status >= 500 || outcome.earlierAttemptUnknown),
      };
    }
    const parsed = outcome.bodyIsJson ? schema.safeParse(outcome.json) : null;
    if (parsed === null || !parsed.success) {
      const error: TrackingError = {
        kind: 'invalid_response',
        httpStatus: status,
        reason: 'unknown',
        retryable: true,
        operation,
        attempts,
        message: outcome.oversize
          ? `The tracking service answered with more than ${settings.maxResponseBytes} bytes; the answer was not read`
          : outcome.bodyIsJson
            ? 'The tracking service answered with a body of an unexpected shape'
            : 'The tracking service answered with a body that is not JSON',
      };
      return { ok: false, error, deprecation, outcomeUnknown: mayHaveActed };
    }
    const read_ = read(parsed.data, status);
    if ('error' in read_) {
      read_.error.message = redact(read_.error.message, secrets);
      return { ok: false, error: read_.error, deprecation, outcomeUnknown: false };
    }
    return { ok: true, value: read_.value, deprecation, attempts };
  }

  function applicationError(
    operation: OperationName,
    httpStatus: number,
    attempts: number,
    serviceMessage: string | null,
    account: AccountInfo | null,
  ): { error: TrackingError } {
    return {
      error: {
        kind: 'application',
        httpStatus,
        reason: reasonFromMessage(serviceMessage, httpStatus),
        retryable: false,
        operation,
        attempts,
        account,
        message: serviceMessage ?? 'The tracking service reported an error without a message',
      },
    };
  }

  /** The result of a call, counted by operation and outcome for /metrics. */
  const interpret: typeof interpretOutcome = (operation, outcome, schema, read, secrets) => {
    const result = interpretOutcome(operation, outcome, schema, read, secrets);
    serviceCalls.inc({ operation, outcome: result.ok ? 'ok' : result.error.reason });
    return result;
  };

  const isSuccess = (status: string) => /^(ok|success)$/i.test(status.trim());

  return {
    baseUrl,

    async createTracker(credentials, input) {
      const body: Record<string, string> = {
        tracking_number: input.trackingNumber.trim(),
        tracking_provider: input.trackingProvider.trim(),
        order_id: input.orderId.trim(),
      };
      const postalCode = input.postalCode?.trim();
      if (postalCode) body.postal_code = postalCode;
      const country = input.destinationCountry?.trim();
      if (country) body.destination_country = country.toUpperCase();
      const outcome = await call('create', credentials, body, 'not-idempotent');
      return interpret(
        'create',
        outcome,
        createResponseSchema,
        (b, status) => {
          const account = accountInfo(b);
          const statusMessage = b.status_msg ?? b.message;
          if (!isSuccess(b.status) || createMessageIsFailure(statusMessage)) {
            return applicationError('create', status, attempts(outcome), statusMessage, account);
          }
          return { value: { statusMessage, ...account } };
        },
        [credentials.apiKey],
      );
    },

    async getShipment(credentials, query) {
      const body: Record<string, string> = { tracking_number: query.trackingNumber.trim() };
      const provider = query.trackingProvider?.trim();
      if (provider) body.tracking_provider = provider;
      const outcome = await call('get', credentials, body, 'idempotent');
      return interpret(
        'get',
        outcome,
        getResponseSchema,
        (b, status) => {
          if (!isSuccess(b.status))
            return applicationError('get', status, attempts(outcome), b.message, null);
          const shipment = shipmentSchema.safeParse(b.data);
          if (!shipment.success) return invalidShape('get', status, attempts(outcome));
          // An answer about another parcel is no answer about this one: never stored, never "exists".
          if (!sameTrackingNumber(shipment.data.trackingNumber, body.tracking_number!)) {
            return invalidShape(
              'get',
              status,
              attempts(outcome),
              'The tracking service answered for another tracking number than the one asked about',
            );
          }
          return { value: shipment.data };
        },
        [credentials.apiKey],
      );
    },

    async getShipmentsByOrderId(credentials, orderId) {
      const outcome = await call('by-order-id', credentials, { order_id: orderId.trim() }, 'idempotent');
      return interpret(
        'by-order-id',
        outcome,
        byOrderResponseSchema,
        (b, status) => {
          if (!isSuccess(b.status)) {
            return applicationError('by-order-id', status, attempts(outcome), b.message, null);
          }
          if (b.data == null) return { value: [] };
          if (!Array.isArray(b.data)) return invalidShape('by-order-id', status, attempts(outcome));
          const shipments: Shipment[] = [];
          for (const element of b.data) {
            const parsed = shipmentSchema.safeParse(element);
            if (!parsed.success) return invalidShape('by-order-id', status, attempts(outcome));
            shipments.push(parsed.data);
          }
          return { value: shipments };
        },
        [credentials.apiKey],
      );
    },

    async deleteTracker(credentials, key) {
      const body = {
        tracking_number: key.trackingNumber.trim(),
        tracking_provider: key.trackingProvider.trim(),
        order_id: key.orderId.trim(),
      };
      const outcome = await call('delete', credentials, body, 'idempotent');
      return interpret(
        'delete',
        outcome,
        deleteResponseSchema,
        (b, status) => {
          if (!isSuccess(b.status))
            return applicationError('delete', status, attempts(outcome), b.message, null);
          return { value: { message: b.message } };
        },
        [credentials.apiKey],
      );
    },

    async listProviders() {
      const outcome = await call('providers', null, undefined, 'idempotent');
      return interpret(
        'providers',
        outcome,
        providersResponseSchema,
        (b, status) => {
          if (b.success === false || (b.status !== null && !isSuccess(b.status))) {
            return applicationError('providers', status, attempts(outcome), b.message, null);
          }
          const list = parseProviderList(b.data);
          if (list === null) return invalidShape('providers', status, attempts(outcome));
          return { value: list };
        },
        [],
      );
    },
  };
}

function attempts(outcome: RawOutcome): number {
  return outcome.attempts;
}

/** Tracking numbers compared as carriers do: case and spaces do not matter. */
export function sameTrackingNumber(a: string, b: string): boolean {
  const fold = (n: string) => n.replace(/\s+/g, '').toUpperCase();
  return fold(a) === fold(b);
}

function invalidShape(
  operation: OperationName,
  httpStatus: number,
  attempts: number,
  message = 'The tracking service answered with a body of an unexpected shape',
): { error: TrackingError } {
  return {
    error: {
      kind: 'invalid_response',
      httpStatus,
      reason: 'unknown',
      retryable: true,
      operation,
      attempts,
      message,
    },
  };
}

/** Removes every occurrence of a secret from text bound for a log line or an error message. */
export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join('[redacted]');
  }
  return out;
}

function describe(outcome: RawOutcome): Record<string, unknown> {
  return outcome.kind === 'transport'
    ? { kind: 'transport', cause: outcome.cause, attempts: outcome.attempts }
    : { kind: 'response', status: outcome.status, attempts: outcome.attempts };
}
