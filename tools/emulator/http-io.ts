/** Low-level HTTP helpers: bounded body reading and JSON/text answers. */
import type { IncomingMessage, ServerResponse } from 'node:http';

/** Largest accepted request body. */
export const maxBodyBytes = 1024 * 1024;
/** Past this many bytes the emulator stops draining an oversized body and drops the connection. */
const maxDrainBytes = 16 * maxBodyBytes;

export interface ReadBody {
  /** Body text (UTF-8); null when empty or too large. */
  text: string | null;
  /** Total bytes received. */
  bytes: number;
  tooLarge: boolean;
  /** The connection went away before the body was complete: nothing can be answered. */
  aborted: boolean;
}

/** Reads the whole body, keeping at most `limit` bytes (an oversized body is drained and flagged). */
export function readBody(req: IncomingMessage, limit: number = maxBodyBytes): Promise<ReadBody> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    let tooLarge = false;
    let done = false;
    const finish = (aborted: boolean) => {
      if (done) return;
      done = true;
      const text = tooLarge || bytes === 0 ? null : Buffer.concat(chunks).toString('utf8');
      resolve({ text, bytes, tooLarge, aborted });
    };
    req.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (tooLarge) {
        if (bytes > maxDrainBytes) {
          req.destroy();
          finish(true);
        }
        return;
      }
      if (bytes > limit) {
        tooLarge = true;
        chunks.length = 0;
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => finish(false));
    req.on('error', () => finish(true));
    req.on('close', () => finish(!req.complete));
  });
}

export type Headers = Record<string, string>;

/** Answers with a JSON body. */
export function sendJson(res: ServerResponse, status: number, body: unknown, headers?: Headers): void {
  sendText(res, status, JSON.stringify(body), 'application/json; charset=utf-8', headers);
}

/** Answers with a text body; headers given override the defaults (content-type included). */
export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  contentType: string,
  headers?: Headers,
): void {
  if (res.headersSent || res.destroyed || res.socket?.destroyed) return;
  const out: Record<string, string | number> = {
    'content-type': contentType,
    'content-length': Buffer.byteLength(text),
  };
  if (headers) for (const [k, v] of Object.entries(headers)) out[k.toLowerCase()] = v;
  out['content-length'] = Buffer.byteLength(text);
  res.writeHead(status, out);
  res.end(text);
}

/** A single request header as a string; undefined when absent. */
export function header(req: IncomingMessage, name: string): string | undefined {
  const v = req.headers[name];
  if (v === undefined) return undefined;
  return Array.isArray(v) ? v.join(', ') : v;
}
