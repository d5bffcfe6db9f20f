import { readBounded, type FetchLike } from '../tracking/transport.js';

/**
 * Posts a message to a Slack incoming webhook. One attempt per call, with a timeout and a bounded read of
 * the answer: a failure waits for the caller's next pass, never a retry loop here. The webhook URL is a
 * secret: it is never part of an outcome (nor of anything this module logs, which is nothing).
 * Only https URLs are posted to; plain http only to 127.0.0.1, and only when allowed (tests).
 */

export type SlackOutcome = { ok: true } | { ok: false; reason: string; status: number | null };

export interface SlackPoster {
  post(webhookUrl: string, text: string): Promise<SlackOutcome>;
}

export interface SlackPosterOptions {
  fetch?: FetchLike;
  /** The whole call, answer included, gives up after this long. Default 5 s. */
  timeoutMs?: number;
  /** Answers longer than this are not read. Default 4 KiB (Slack answers `ok` or an error word). */
  maxResponseBytes?: number;
  /** Tests only: http://127.0.0.1 receivers are posted to. */
  allowLoopbackHttp?: boolean;
}

/** Whether the URL may be posted to: https (no credentials in it), or http://127.0.0.1 when allowed. */
export function postableUrl(webhookUrl: string, allowLoopbackHttp = false): boolean {
  let url: URL;
  try {
    url = new URL(webhookUrl);
  } catch {
    return false;
  }
  if (url.username !== '' || url.password !== '') return false;
  if (url.protocol === 'https:') return true;
  return allowLoopbackHttp && url.protocol === 'http:' && url.hostname === '127.0.0.1';
}

export function createSlackPoster(options: SlackPosterOptions = {}): SlackPoster {
  const send = options.fetch ?? ((input, init) => fetch(input, init));
  const timeoutMs = options.timeoutMs ?? 5_000;
  const maxBytes = options.maxResponseBytes ?? 4096;
  return {
    async post(webhookUrl, text) {
      if (!postableUrl(webhookUrl, options.allowLoopbackHttp))
        return { ok: false, reason: 'the Slack webhook URL is not an https URL', status: null };
      try {
        const response = await send(webhookUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ text, unfurl_links: false, unfurl_media: false }),
          // A redirect could lead anywhere: it counts as a failure, never followed.
          redirect: 'manual',
          signal: AbortSignal.timeout(timeoutMs),
        });
        const body = await readBounded(response, maxBytes);
        if (response.status >= 200 && response.status < 300) return { ok: true };
        // Slack answers an error word (invalid_payload, no_service, …): kept when it is one.
        const word = 'text' in body ? body.text.trim() : '';
        const said = /^[a-z_]{1,40}$/.test(word) ? ` (${word})` : '';
        return { ok: false, reason: `Slack answered ${response.status}${said}`, status: response.status };
      } catch (error) {
        return { ok: false, reason: transportReason(error, timeoutMs), status: null };
      }
    },
  };
}

/** Why a call got no answer, in a few words: never the URL (undici's messages can carry it). */
function transportReason(error: unknown, timeoutMs: number): string {
  const name = (error as { name?: unknown })?.name;
  if (name === 'TimeoutError' || name === 'AbortError')
    return `Slack did not answer within ${timeoutMs < 1000 ? `${timeoutMs} ms` : `${Math.round(timeoutMs / 1000)} s`}`;
  const cause = (error as { cause?: { code?: unknown } })?.cause;
  const code = typeof cause?.code === 'string' && /^[A-Z_]{2,40}$/.test(cause.code) ? ` (${cause.code})` : '';
  return `Slack could not be reached${code}`;
}
