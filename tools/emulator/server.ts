/** The emulator's HTTP server (node:http, no framework): routing, fault injection, call logging. */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { EmulatorAccountConfig } from './config.js';
import { type Logger, silentLogger } from '../../src/logger.js';
import type { CallLogEntry } from './call-log.js';
import { VirtualClock } from './clock.js';
import { handleControl } from './control.js';
import {
  FaultController,
  type FaultKind,
  type FaultPlan,
  maxTimeoutHoldMs,
  type Operation,
  parseFaultPlan,
} from './faults.js';
import { type Headers, header, readBody, sendJson, sendText } from './http-io.js';
import { errorReply, handleOperation, messages, type Reply } from './operations.js';
import { defaultSeed } from './random.js';
import type { ScriptedResponse } from './script.js';
import { type PusherOptions, startPusher } from './pushes.js';
import { EmulatorState } from './state.js';

export interface EmulatorOptions {
  /** Port to listen on; 0 (default) picks a free one. */
  port?: number;
  /** Always 127.0.0.1: the emulator never listens on other interfaces. */
  host?: '127.0.0.1';
  /** Accounts; none (or an empty list) gives the demo account. */
  accounts?: EmulatorAccountConfig[];
  /** Seed of the fault PRNG (default fixed, so runs are reproducible). */
  seed?: number;
  /** Virtual seconds per real second of the lifecycle clock (default 1). */
  clockSpeed?: number;
  /**
   * Share of trackers (0–1, chosen by tracking number) whose story takes one of the service's other
   * statuses: failed attempt, on hold, pickup, returned, label cancelled, tracker states. Default 0.
   */
  statusVariety?: number;
  /** Fault plan at start (and after POST /_emulator/reset); absent fields take their defaults. */
  faults?: Partial<FaultPlan>;
  logger?: Logger;
  /** How many calls the call log keeps (default 200 000, newest kept). */
  callLogLimit?: number;
  /** Tracking-webhook timing (tests shorten the retry backoff). */
  pushes?: Omit<PusherOptions, 'logger'>;
}

export interface RunningEmulator {
  /** e.g. http://127.0.0.1:PORT */
  url: string;
  /** url + '/v1': the base address of the tracking interface. */
  baseUrl: string;
  port: number;
  /** Stops listening and destroys every open socket (kept-alive and held ones). Idempotent. */
  close(): Promise<void>;
  /** Direct access to the state, for in-process tests. */
  state: EmulatorState;
}

const host = '127.0.0.1';

const routes: ReadonlyMap<string, Operation> = new Map<string, Operation>([
  ['POST /v1/shipment/create/', 'create'],
  ['POST /v1/shipment/get/', 'get'],
  ['POST /v1/shipment/by-order-id', 'by-order-id'],
  ['POST /v1/shipment/delete/', 'delete'],
  ['GET /v1/shipping_carriers/supported', 'providers'],
]);

/** Starts the emulator on 127.0.0.1. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const logger = options.logger ?? silentLogger;
  const clock = new VirtualClock({ speed: options.clockSpeed ?? 1 });
  const faults = new FaultController(parseFaultPlan(options.faults ?? {}), options.seed ?? defaultSeed);
  const state = new EmulatorState({
    accounts: options.accounts ?? [],
    clock,
    faults,
    callLogLimit: options.callLogLimit,
    statusVariety: options.statusVariety,
  });

  const pusher = startPusher(state, { logger, ...options.pushes });
  const timers = new Set<NodeJS.Timeout>();
  const heldSockets = new Set<Socket>();
  let closed = false;

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const t = setTimeout(() => {
        timers.delete(t);
        resolve();
      }, ms);
      timers.add(t);
    });

  const versionHeaders = (): Headers | undefined => {
    const plan = state.faults.get();
    if (plan.deprecation === undefined && plan.sunset === undefined) return undefined;
    const h: Headers = {};
    if (plan.deprecation !== undefined) h.deprecation = plan.deprecation;
    if (plan.sunset !== undefined) h.sunset = plan.sunset;
    return h;
  };

  const sendReply = (res: ServerResponse, reply: Reply, extra?: Headers) => {
    sendJson(res, reply.status, reply.body, extra);
  };

  const sendScripted = (res: ServerResponse, scripted: ScriptedResponse, extra?: Headers) => {
    const headers: Headers = { ...extra, ...scripted.headers };
    if (scripted.body === undefined) sendText(res, scripted.status, '', 'text/plain; charset=utf-8', headers);
    else if (typeof scripted.body === 'string') {
      sendText(res, scripted.status, scripted.body, 'text/plain; charset=utf-8', headers);
    } else sendJson(res, scripted.status, scripted.body, headers);
  };

  const hold = (req: IncomingMessage) => {
    const socket = req.socket;
    heldSockets.add(socket);
    const t = setTimeout(() => {
      timers.delete(t);
      socket.destroy();
    }, maxTimeoutHoldMs);
    timers.add(t);
    socket.once('close', () => {
      clearTimeout(t);
      timers.delete(t);
      heldSockets.delete(socket);
    });
  };

  /**
   * A 200 whose JSON body is `bytes` long, streamed in chunks with no Content-Length (so a client cannot
   * refuse it up front), honouring backpressure and stopping when the client goes away: the emulator
   * never holds the body in memory.
   */
  const sendOversize = async (res: ServerResponse, bytes: number, extra?: Headers) => {
    res.writeHead(200, { ...extra, 'content-type': 'application/json' });
    const head = '{"status":"ok","data":{"padding":"';
    const tail = '"}}';
    const chunk = Buffer.alloc(64 * 1024, 'x');
    res.write(head);
    let left = Math.max(0, bytes - head.length - tail.length);
    while (left > 0 && !res.destroyed && !closed) {
      const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
      left -= piece.length;
      if (!res.write(piece)) {
        // Whichever comes first; the other listener goes too (one per chunk would pile up on the response).
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done);
            res.off('close', done);
            resolve();
          };
          res.on('drain', done);
          res.on('close', done);
        });
      }
    }
    if (!res.destroyed) res.end(tail);
  };

  const resetSocket = (req: IncomingMessage) => {
    const socket = req.socket;
    if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
    else socket.destroy();
  };

  async function handleTracking(req: IncomingMessage, res: ServerResponse, op: Operation, path: string) {
    const at = new Date().toISOString();
    const body = await readBody(req);
    if (body.aborted || closed) return;
    const apiKey = header(req, 'service-api-key');
    const appName = header(req, 'app-name');
    const entry: CallLogEntry = {
      operation: op,
      method: req.method ?? '',
      path,
      body: loggedBody(body.text, body.bytes, body.tooLarge, [apiKey, ...state.apiKeys()]),
      httpStatus: 0,
      at,
      appName: appName ?? null,
      fault: null,
    };
    const extra = versionHeaders();
    const scripted = state.script.take(op);
    const fault: FaultKind | null = scripted ? null : state.faults.decide(op);
    const latency = state.faults.latencyFor(op);
    if (latency > 0) {
      await sleep(latency);
      if (closed) return;
    }
    // A client that gave up during the latency gets no answer, but the call is still processed
    // (as a real service would): it is logged with httpStatus 0.
    const gone = () => req.socket.destroyed;
    const finish = (status: number) => {
      entry.httpStatus = gone() ? 0 : status;
      state.calls.add(entry);
    };
    const opRequest = { apiKey, appName, bodyText: body.text, bodyTooLarge: body.tooLarge };

    if (scripted) {
      entry.fault = 'script';
      finish(scripted.status);
      sendScripted(res, scripted, extra);
      return;
    }
    if (fault !== null) {
      entry.fault = fault;
      const plan = state.faults.get();
      if (fault !== 'rate_limit' && plan.applyBeforeFault) handleOperation(state, op, opRequest);
      switch (fault) {
        case 'rate_limit':
          finish(429);
          sendReply(res, errorReply(429, messages.tooManyRequests), {
            ...extra,
            'retry-after': String(plan.retryAfterSeconds),
          });
          return;
        case 'error':
          finish(500);
          sendReply(res, errorReply(500, messages.internalError), extra);
          return;
        case 'timeout':
          finish(0);
          if (!gone()) hold(req);
          return;
        case 'reset':
          finish(0);
          resetSocket(req);
          return;
        case 'oversize':
          finish(200);
          await sendOversize(res, plan.oversizeBytes, extra);
          return;
      }
    }
    const reply = handleOperation(state, op, opRequest);
    finish(reply.status);
    sendReply(res, reply, extra);
  }

  async function handleControlRequest(
    req: IncomingMessage,
    res: ServerResponse,
    path: string,
    query: string,
  ) {
    const body = await readBody(req);
    if (body.aborted || closed) return;
    const reply = handleControl(state, {
      method: req.method ?? '',
      path: path.slice('/_emulator'.length),
      query: new URLSearchParams(query),
      bodyText: body.text,
      bodyTooLarge: body.tooLarge,
    });
    sendReply(res, reply);
  }

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = req.url ?? '/';
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const query = q < 0 ? '' : url.slice(q + 1);
    if (path === '/_emulator' || path.startsWith('/_emulator/')) {
      await handleControlRequest(req, res, path, query);
      return;
    }
    const op = routes.get(`${req.method} ${path}`);
    if (op) {
      await handleTracking(req, res, op, path);
      return;
    }
    const isV1 = path === '/v1' || path.startsWith('/v1/');
    sendReply(res, errorReply(404, messages.invalidRoute), isV1 ? versionHeaders() : undefined);
  }

  const server = createServer((req, res) => {
    res.on('error', () => {});
    handle(req, res).catch((err: unknown) => {
      logger.error({ err, path: req.url }, 'emulator: unexpected error while handling a request');
      if (!res.headersSent && !res.destroyed) sendReply(res, errorReply(500, messages.internalError));
      else res.destroy();
    });
  });
  server.on('clientError', (_err, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    server.once('error', onError);
    server.listen(options.port ?? 0, options.host ?? host, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('emulator: unexpected server address');
  const port = address.port;
  const url = `http://${host}:${port}`;
  logger.info({ url }, 'emulator: listening');

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      closed = true;
      void pusher.stop();
      for (const t of timers) clearTimeout(t);
      timers.clear();
      for (const s of heldSockets) s.destroy();
      heldSockets.clear();
      server.close(() => resolve());
      server.closeAllConnections();
      logger.info({ url }, 'emulator: closed');
    });
    return closing;
  };

  return { url, baseUrl: `${url}/v1`, port, close, state };
}

/** The body as logged: parsed JSON, else the raw text, null when empty; any api key replaced. */
function loggedBody(
  text: string | null,
  bytes: number,
  tooLarge: boolean,
  keys: Array<string | undefined>,
): unknown {
  if (tooLarge) return `[${bytes} bytes: over the 1 MiB limit, not kept]`;
  if (text === null) return null;
  const secrets = keys.filter((k): k is string => typeof k === 'string' && k.length > 0);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return redact(text, secrets);
  }
  return redact(value, secrets);
}

/** Keys shorter than this are only redacted where a whole string equals them. */
const minSubstringSecret = 6;

function redactText(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) {
    if (out === s) return '[redacted]';
    if (s.length >= minSubstringSecret && out.includes(s)) out = out.split(s).join('[redacted]');
  }
  return out;
}

function redact(value: unknown, secrets: string[]): unknown {
  if (typeof value === 'string') return redactText(value, secrets);
  if (Array.isArray(value)) return value.map((v) => redact(v, secrets));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      // defineProperty, not assignment: a "__proto__" key stays a plain data property.
      Object.defineProperty(out, redactText(k, secrets), {
        value: redact(v, secrets),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}
