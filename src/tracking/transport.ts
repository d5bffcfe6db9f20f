import http from 'node:http';
import https from 'node:https';

/**
 * How one attempt of a tracking-service call crosses the network: the request out, the answer read with a
 * bound, the whole exchange under one timeout. src/tracking/request.ts decides what to retry; this only
 * sends and reads.
 *
 * The app's transport is `httpTransport`: node:http(s) on keep-alive connections, at most `maxSockets` to the
 * service at once (the worker sizes it to its calls in flight). `fetchTransport` runs the same exchange over
 * a fetch function, for tests that stand a fake in for the network. The app used global fetch before: at 64
 * calls in flight its web streams, its Response objects and `AbortSignal.timeout` cost several times the
 * CPU of the call itself (docs/performance.md, "The hot paths").
 */

/** What one attempt sends. */
export interface Outgoing {
  method: 'GET' | 'POST';
  url: string;
  headers: Record<string, string>;
  /** The request body, as text (JSON). */
  body?: string;
}

/** One attempt's answer. */
export interface Answer {
  status: number;
  /** A response header's value (null when absent; repeated ones joined with ", "). */
  header(name: string): string | null;
  /** The body as text, or `oversize` when it passed the bound (the rest was not read). */
  body: { text: string } | { oversize: true };
}

export interface ExchangeLimits {
  /** For the whole exchange, answer read included. */
  timeoutMs: number;
  /** Answers longer than this are not read (see readBounded). */
  maxResponseBytes: number;
}

/**
 * Sends one attempt and reads its answer. Throws what the network threw (its system error `code` kept: see
 * transportCause in classify.ts); a timeout throws an error named `TimeoutError`.
 */
export type Transport = (outgoing: Outgoing, limits: ExchangeLimits) => Promise<Answer>;

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** The error a timed-out exchange ends with (named as fetch's own, which classify.ts reads as a timeout). */
export class ExchangeTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  constructor(timeoutMs: number) {
    super(`No complete answer within ${timeoutMs} ms`);
  }
}

export interface HttpTransportOptions {
  /** Connections to the service open at once (default: no limit); more calls wait for a free one. */
  maxSockets?: number;
  /**
   * An idle kept-alive connection is closed after this long (default 4 s, undici's own default): shorter
   * than a server's usual 5 s, so a request is rarely sent on a connection the server is just closing.
   */
  idleSocketMs?: number;
}

/** node:http(s) with keep-alive connections: one agent per protocol, shared by every call of the client. */
export function httpTransport(options: HttpTransportOptions = {}): Transport {
  const agentOptions = {
    keepAlive: true,
    maxSockets: options.maxSockets ?? Number.POSITIVE_INFINITY,
    // On an agent, a socket timeout closes only free sockets (the exchange has its own timer).
    timeout: options.idleSocketMs ?? 4_000,
    scheduling: 'lifo' as const,
  };
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) };
  return (outgoing, limits) =>
    new Promise<Answer>((resolve, reject) => {
      const secure = outgoing.url.startsWith('https:');
      const headers: Record<string, string | number> = { ...outgoing.headers };
      if (outgoing.body !== undefined) headers['content-length'] = Buffer.byteLength(outgoing.body);
      let settled = false;
      const settle = (error: Error | null, answer?: Answer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (error) reject(error);
        else resolve(answer!);
      };
      const timer = setTimeout(() => {
        const timedOut = new ExchangeTimeoutError(limits.timeoutMs);
        settle(timedOut);
        request.destroy(timedOut);
      }, limits.timeoutMs);
      let request: http.ClientRequest;
      try {
        request = (secure ? https : http).request(
          outgoing.url,
          { method: outgoing.method, headers, agent: secure ? agents.https : agents.http },
          onResponse,
        );
      } catch (error) {
        // Refused before anything was sent (a header value no HTTP request may carry, say).
        settle(error as Error);
        return;
      }
      request.on('error', (error) => settle(error));
      request.end(outgoing.body);

      function onResponse(response: http.IncomingMessage): void {
        const status = response.statusCode ?? 0;
        const header = (name: string) => headerValue(response.headers[name.toLowerCase()]);
        const oversize = () => {
          response.destroy();
          settle(null, { status, header, body: { oversize: true } });
        };
        const declared = Number(response.headers['content-length'] ?? Number.NaN);
        if (Number.isFinite(declared) && declared > limits.maxResponseBytes) return oversize();
        const chunks: Buffer[] = [];
        let total = 0;
        response.on('data', (chunk: Buffer) => {
          total += chunk.length;
          if (total > limits.maxResponseBytes) oversize();
          else chunks.push(chunk);
        });
        response.on('end', () =>
          settle(null, { status, header, body: { text: Buffer.concat(chunks, total).toString('utf8') } }),
        );
        // The connection closed before the answer was whole.
        response.on('error', (error) => settle(error));
        response.on('close', () => {
          if (!response.complete)
            settle(Object.assign(new Error('The answer was cut off'), { code: 'ECONNRESET' }));
        });
      }
    });
}

function headerValue(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}

/** The same exchange over a fetch function (tests stand fakes in for the network this way). */
export function fetchTransport(fetchLike: FetchLike): Transport {
  return async (outgoing, limits) => {
    const signal = AbortSignal.timeout(limits.timeoutMs);
    const init: RequestInit = { method: outgoing.method, headers: outgoing.headers, signal };
    if (outgoing.body !== undefined) init.body = outgoing.body;
    const response = await fetchLike(outgoing.url, init);
    const body = await readBounded(response, limits.maxResponseBytes);
    return { status: response.status, header: (name) => response.headers.get(name), body };
  };
}

/**
 * The body as text, read as a stream and given up as soon as it passes `maxBytes` (or up front when its
 * Content-Length says it will): an endpoint answering 500 MB must not take the process's memory with it.
 * The request's timeout signal still covers the whole read.
 */
export async function readBounded(
  response: Response,
  maxBytes: number,
): Promise<{ text: string } | { oversize: true }> {
  const declared = Number(response.headers.get('content-length') ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return { oversize: true };
  }
  if (response.body === null) return { text: '' };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return { oversize: true };
    }
    chunks.push(value);
  }
  return { text: Buffer.concat(chunks).toString('utf8') };
}
