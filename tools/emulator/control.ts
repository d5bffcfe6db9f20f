/**
 * Control and inspection endpoints under /_emulator (no auth; not part of the tracking interface).
 * Errors use the same shape as the service: {"status":"error","message":...}.
 */
import { z } from 'zod';
import { errorReply, messages, type Reply } from './operations.js';
import { AccountConflictError, type EmulatorState } from './state.js';

export interface ControlRequest {
  method: string;
  /** Path after `/_emulator` (e.g. `/calls`). */
  path: string;
  query: URLSearchParams;
  bodyText: string | null;
  bodyTooLarge: boolean;
}

const ok: Reply = { status: 200, body: { status: 'ok' } };

/** At most 100 years per advance, so dates stay representable. */
const maxAdvanceSeconds = 100 * 365 * 86_400;
const advanceSchema = z.strictObject({ seconds: z.number().finite().min(0).max(maxAdvanceSeconds) });

function describeZodError(err: z.ZodError): string {
  return err.issues.map((i) => `${i.path.length > 0 ? i.path.join('.') : '(body)'}: ${i.message}`).join('; ');
}

class BadBody extends Error {}

function jsonBody(req: ControlRequest): unknown {
  if (req.bodyTooLarge) throw new BadBody(messages.bodyTooLarge);
  if (req.bodyText === null) throw new BadBody(messages.invalidJson);
  try {
    return JSON.parse(req.bodyText) as unknown;
  } catch {
    throw new BadBody(messages.invalidJson);
  }
}

function queryParam(query: URLSearchParams, name: string): string | undefined {
  return query.get(name) ?? undefined;
}

function route(state: EmulatorState, req: ControlRequest): Reply {
  const { method, path, query } = req;
  switch (`${method} ${path}`) {
    case 'GET /calls':
      return {
        status: 200,
        body: {
          calls: state.calls.list({
            operation: queryParam(query, 'operation'),
            appName: queryParam(query, 'appName'),
          }),
        },
      };
    case 'DELETE /calls':
      state.calls.clear();
      return ok;
    case 'GET /faults':
      return { status: 200, body: state.faults.get() };
    case 'PUT /faults':
      return { status: 200, body: state.faults.set(jsonBody(req)) };
    case 'PATCH /faults': {
      const body = jsonBody(req);
      if (body === null || typeof body !== 'object' || Array.isArray(body))
        throw new BadBody(messages.invalidJson);
      return { status: 200, body: state.faults.patch(body as Record<string, unknown>) };
    }
    case 'GET /clock':
      return {
        status: 200,
        body: {
          now: state.clock.now().toISOString(),
          speed: state.clock.speed,
          advancedSeconds: state.clock.advancedMs() / 1000,
        },
      };
    case 'POST /clock/advance': {
      const { seconds } = advanceSchema.parse(jsonBody(req));
      state.clock.advance(seconds);
      return { status: 200, body: { now: state.clock.now().toISOString() } };
    }
    case 'GET /trackers': {
      const appName = queryParam(query, 'appName');
      return {
        status: 200,
        body: { trackers: state.listTrackers(appName).map((t) => state.trackerView(t)) },
      };
    }
    case 'GET /accounts':
      return { status: 200, body: { accounts: state.listAccounts() } };
    case 'POST /accounts':
      return { status: 201, body: { account: state.addAccount(jsonBody(req)) } };
    case 'GET /script':
      return { status: 200, body: { responses: state.script.pending() } };
    case 'POST /script':
      return { status: 200, body: { pending: state.script.push(jsonBody(req)) } };
    case 'DELETE /script':
      state.script.clear();
      return ok;
    case 'POST /reset':
      state.reset();
      return ok;
  }
  if (method === 'PATCH' && path.startsWith('/accounts/')) {
    let appName: string;
    try {
      appName = decodeURIComponent(path.slice('/accounts/'.length));
    } catch {
      return errorReply(404, 'Account not found');
    }
    const account = state.patchAccount(appName, jsonBody(req));
    return account ? { status: 200, body: { account } } : errorReply(404, 'Account not found');
  }
  return errorReply(404, messages.invalidRoute);
}

/** Handles one /_emulator request. Bad input → 400, unknown route → 404, duplicate account → 409. */
export function handleControl(state: EmulatorState, req: ControlRequest): Reply {
  try {
    return route(state, req);
  } catch (err) {
    if (err instanceof BadBody) return errorReply(400, err.message);
    if (err instanceof z.ZodError) return errorReply(400, describeZodError(err));
    if (err instanceof AccountConflictError) return errorReply(409, err.message);
    if (err instanceof RangeError) return errorReply(400, err.message);
    throw err;
  }
}
