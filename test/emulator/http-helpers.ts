/** Helpers for the emulator tests: real HTTP calls with global fetch against an in-process emulator. */
import type { RunningEmulator } from '../../tools/emulator/index.js';

export const demoAuth = { 'service-api-key': 'demo-api-key', 'app-name': 'demo-store' } as const;

export const paths = {
  create: '/v1/shipment/create/',
  get: '/v1/shipment/get/',
  byOrderId: '/v1/shipment/by-order-id',
  delete: '/v1/shipment/delete/',
  providers: '/v1/shipping_carriers/supported',
} as const;

export interface CallResult {
  status: number;
  headers: Headers;
  text: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- test convenience, bodies are checked field by field
  json: any;
}

export interface CallOptions {
  method?: string;
  /** An object is sent as JSON; a string is sent verbatim. */
  body?: unknown;
  headers?: Record<string, string>;
  /** Auth headers to send (default: the demo account's); null sends none. */
  auth?: Record<string, string> | null;
  signal?: AbortSignal;
}

export async function call(
  em: RunningEmulator,
  path: string,
  options: CallOptions = {},
): Promise<CallResult> {
  const method = options.method ?? 'POST';
  const headers: Record<string, string> = {
    ...(options.auth === null ? {} : (options.auth ?? demoAuth)),
    ...options.headers,
  };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(em.url + path, { method, headers, body, signal: options.signal });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** POSTs JSON to a control endpoint (or another method with `method`). */
export function control(
  em: RunningEmulator,
  path: string,
  body?: unknown,
  method = 'POST',
): Promise<CallResult> {
  return call(em, `/_emulator${path}`, { method, body, auth: null });
}

export function createTracker(
  em: RunningEmulator,
  fields: Record<string, unknown>,
  auth?: Record<string, string> | null,
): Promise<CallResult> {
  return call(em, paths.create, { body: fields, auth });
}

export const dateTimeShape = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
export const dateShape = /^\d{4}-\d{2}-\d{2}$/;
