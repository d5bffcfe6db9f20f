import type { AppContext } from '../context/app-context.js';
import type { Shopify } from '@shopify/shopify-api';
import type { Request, Response } from 'express';
import { intakeSeconds, webhooksReceived, webhooksRefused } from '../observability/metrics.js';
import { fixedJson } from '../lib/fixed-json.js';
import { recordDelivery } from './record-delivery.js';
import { httpStatusFor, verifyWebhook } from './verify.js';

/**
 * POST /webhooks, every topic: verify, record, answer. Never calls the tracking service, so the answer
 * comes well inside the platform's 5 s whatever the service is doing. 401 bad or missing signature, 400
 * malformed or not a body of its topic, 403 a body that names another shop than the header, 200 recorded
 * or duplicate; 500 only when the database cannot take the write (the platform retries).
 */
/** Called after a new delivery is stored (`onRecorded`), so an in-process worker can start at once. */
export function webhookRoute(
  ctx: Pick<AppContext, 'prisma' | 'logger'>,
  shopify: Shopify,
  onRecorded?: () => void,
) {
  return async (req: Request, res: Response): Promise<void> => {
    const timer = intakeSeconds.startTimer();
    try {
      await answer(ctx, shopify, onRecorded, req, res);
    } finally {
      timer();
    }
  };
}

async function answer(
  ctx: Pick<AppContext, 'prisma' | 'logger'>,
  shopify: Shopify,
  onRecorded: (() => void) | undefined,
  req: Request,
  res: Response,
): Promise<void> {
  const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  const verification = verifyWebhook(shopify, req, rawBody);
  if (!verification.ok) {
    // Anyone on the internet can cause these: counted, and logged only at debug.
    webhooksRefused.inc({ reason: verification.reason });
    // The topic header is not trusted here (anyone can send any): refusals are counted under one label.
    webhooksReceived.inc({ topic: 'refused', outcome: verification.reason });
    ctx.logger.debug({ reason: verification.reason, detail: verification.detail }, 'webhook refused');
    res
      .status(httpStatusFor(verification.reason))
      .json({ error: verification.reason, detail: verification.detail });
    return;
  }
  const { delivery } = verification;
  let result: Awaited<ReturnType<typeof recordDelivery>>;
  try {
    result = await recordDelivery(ctx.prisma, delivery);
  } catch (error) {
    webhooksReceived.inc({ topic: delivery.topic, outcome: 'error' });
    throw error;
  }
  webhooksReceived.inc({ topic: delivery.topic, outcome: result.kind });
  if (result.kind === 'recorded') onRecorded?.();
  // A new delivery is a state change (info); a platform retry of one already stored is noise (debug).
  ctx.logger[result.kind === 'recorded' ? 'info' : 'debug'](
    { topic: delivery.topic, shop: delivery.shopDomain, eventId: delivery.eventId, result: result.kind },
    'webhook received',
  );
  (result.kind === 'duplicate' ? answerDuplicate : answerRecorded)(res);
}

const answerRecorded = fixedJson({ ok: true, duplicate: false });
const answerDuplicate = fixedJson({ ok: true, duplicate: true });
