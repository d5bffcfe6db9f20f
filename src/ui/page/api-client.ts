import { appBridge } from './app-bridge.js';
import { expireSession } from './session.js';

/**
 * The app's JSON API (src/ui/api) as the page calls it. In the admin, App Bridge's fetch adds the session
 * token to every request to the app; only without App Bridge (a page opened locally) is the launch token
 * from the URL sent instead. A 401 expires the page's session (one banner, forms disabled).
 */

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The zod issues of a 400, by field. */
  get issues(): Array<{ field: string; message: string }> {
    const issues = (this.body as { issues?: unknown } | null)?.issues;
    return Array.isArray(issues) ? (issues as Array<{ field: string; message: string }>) : [];
  }

  /** The reason code of a refused request (422: unauthorized, ssl_error…). */
  get reason(): string | null {
    const reason = (this.body as { reason?: unknown; error?: unknown } | null)?.reason;
    return typeof reason === 'string' ? reason : null;
  }
}

const launchToken = new URLSearchParams(window.location.search).get('id_token');

async function send(method: string, path: string, body: unknown, accept: string): Promise<Response> {
  const headers: Record<string, string> = { accept };
  if (!appBridge() && launchToken) headers.authorization = `Bearer ${launchToken}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(`/api${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
    });
  } catch (error) {
    throw new ApiError(
      0,
      null,
      `Could not reach the app (${error instanceof Error ? error.message : error}).`,
    );
  }
  if (response.status === 401) {
    expireSession();
    throw new ApiError(401, null, 'Your session has expired. Reload the app from your store admin.');
  }
  return response;
}

export async function api<T>(method: 'GET' | 'PUT' | 'POST', path: string, body?: unknown): Promise<T> {
  const response = await send(method, path, body, 'application/json');
  const text = await response.text();
  let data: unknown = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) throw new ApiError(response.status, data, describeFailure(response.status, data));
  return data as T;
}

/** A file the API answers (the CSV export): its text and the name the app gave it. */
export async function apiFile(path: string): Promise<{ blob: Blob; filename: string }> {
  const response = await send('GET', path, undefined, 'text/csv');
  if (!response.ok) throw new ApiError(response.status, null, describeFailure(response.status, null));
  const disposition = response.headers.get('content-disposition') ?? '';
  const filename = /filename="([^"]+)"/.exec(disposition)?.[1] ?? 'export.csv';
  return { blob: await response.blob(), filename };
}

function describeFailure(status: number, data: unknown): string {
  const body = (data ?? {}) as { issues?: unknown; message?: unknown; error?: unknown };
  if (Array.isArray(body.issues) && body.issues.length > 0) {
    const issues = (body.issues as Array<{ field?: string; message?: string }>)
      .map((i) => (i.field ? `${i.field}: ${i.message ?? 'invalid'}` : (i.message ?? 'invalid')))
      .join('; ');
    return `Please correct the input: ${issues}`;
  }
  if (typeof body.message === 'string' && body.message) return body.message;
  if (status >= 500) return `The app could not complete the request (HTTP ${status}). Please try again.`;
  if (typeof body.error === 'string')
    return `The app refused the request (${body.error.replace(/_/g, ' ')}).`;
  return `Unexpected answer from the app (HTTP ${status}).`;
}

/** An error's message for the merchant. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
