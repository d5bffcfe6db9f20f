import type { AppContext } from '../context/app-context.js';
import { nowOf } from '../lib/clock.js';
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type ErrorRequestHandler, type RequestHandler, type Router } from 'express';
import { groupInsert } from '../db/group-insert.js';
import { type BulkRows, insertRows } from '../db/insert-rows.js';
import { statusPushes } from '../observability/metrics.js';
import { SecretUnreadableError } from '../shops/crypto.js';
import type { ShopRepository } from '../shops/shop-repository.js';
import { parsePush } from './payload.js';
import { isPushToken } from './token.js';
import { newRowId } from '../lib/row-id.js';
import { fixedJson } from '../lib/fixed-json.js';

/**
 * POST /status-webhooks/<token>: the tracking service's status push for one shop. Checked in this order,
 * each before anything is read further or stored:
 * - the token names a shop that has the app installed (else 404);
 * - `service-api-key` (the interface's auth header) or `trackship-api-key` (the real service's) equals the
 *   shop's stored API key, compared in constant time (else 401);
 * - the body is at most `maxBytes` (else 413), JSON (else 400), a shipment with a tracking number (else 400).
 * Then it is recorded (a push seen before, by content, is acknowledged and not stored twice) and answered
 * 200; the worker applies it (apply.ts), and notes there that the shop's pushes arrive. Nothing is stored for a refused push.
 */

type Refusal = 'unknown_token' | 'bad_key' | 'too_large' | 'not_json' | 'not_a_shipment' | 'key_unreadable';

const refusalStatus: Record<Refusal, number> = {
  unknown_token: 404,
  bad_key: 401,
  too_large: 413,
  not_json: 400,
  not_a_shipment: 400,
  key_unreadable: 503,
};

const refusalText: Record<Refusal, string> = {
  unknown_token: 'No shop has this status push URL (it may have been rotated).',
  bad_key: 'The service-api-key header is missing or is not this shop’s API key.',
  too_large: 'The body is too large.',
  not_json: 'The body is not JSON.',
  not_a_shipment: 'The body is not a shipment with a tracking_number.',
  key_unreadable: 'The shop’s stored API key cannot be read right now; try again later.',
};

function refuse(res: express.Response, reason: Refusal): void {
  statusPushes.inc({ outcome: `refused_${reason}` });
  res.status(refusalStatus[reason]).json({ error: reason, message: refusalText[reason] });
}

const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();

export function statusPushRouter(
  ctx: Pick<AppContext, 'prisma' | 'shops' | 'logger'>,
  options: {
    /** Called once a push is recorded (wakes the worker). */
    onRecorded?: () => void;
    /** Largest body accepted (default 1 MiB). */
    maxBytes?: number;
    now?: () => Date;
  } = {},
): Router {
  const router = express.Router();
  const maxBytes = options.maxBytes ?? 1024 * 1024;
  const writer = groupInsert<BulkRows['StatusPush'] & { id: string }>((rows) =>
    insertRows(ctx.prisma, 'StatusPush', rows, { skipConflictsOn: ['shopId', 'dedupeKey'] }),
  );

  const authenticate: RequestHandler = async (req, res, next) => {
    const token = String(req.params.token ?? '');
    let receiver: Awaited<ReturnType<ShopRepository['pushReceiver']>>;
    try {
      receiver = isPushToken(token) ? await ctx.shops.pushReceiver(token) : null;
    } catch (error) {
      if (error instanceof SecretUnreadableError) return refuse(res, 'key_unreadable');
      throw error;
    }
    if (!receiver) return refuse(res, 'unknown_token');
    const given = req.get('service-api-key') ?? req.get('trackship-api-key') ?? '';
    // Digests are compared, so neither the key's length nor its content leaks through the time taken.
    if (!receiver.keyDigest || given === '' || !timingSafeEqual(digest(given), receiver.keyDigest))
      return refuse(res, 'bad_key');
    res.locals.shopId = receiver.shopId;
    next();
  };

  const record: RequestHandler = async (req, res) => {
    const shopId = res.locals.shopId as string;
    const text = Buffer.isBuffer(req.body) ? req.body.toString('utf8') : '';
    const parsed = parsePush(text);
    if (!parsed.ok) return refuse(res, parsed.reason);
    const now = nowOf(options);
    // Group commit: a burst of pushes shares statements and commits, each answered once its row is in.
    const written = await writer.insert({
      id: newRowId(),
      shopId,
      dedupeKey: parsed.dedupeKey,
      payload: text,
      receivedAt: now,
      state: 'pending',
      attempts: 0,
      nextAttemptAt: now,
    });
    if (!written) {
      statusPushes.inc({ outcome: 'duplicate' });
      answerDuplicate(res);
      return;
    }
    statusPushes.inc({ outcome: 'recorded' });
    options.onRecorded?.();
    answerOk(res);
  };

  const bodyErrors: ErrorRequestHandler = (error: { type?: string; status?: number }, _req, res, next) => {
    if (error?.type === 'entity.too.large') return refuse(res, 'too_large');
    if (error?.status && error.status >= 400 && error.status < 500) {
      res.status(400).json({ error: 'bad_request', message: 'The body could not be read.' });
      return;
    }
    next(error);
  };

  router.post(
    '/:token',
    authenticate,
    express.raw({ type: () => true, limit: maxBytes }),
    record,
    bodyErrors,
  );
  return router;
}

const answerOk = fixedJson({ status: 'ok' });
const answerDuplicate = fixedJson({ status: 'ok', duplicate: true });
