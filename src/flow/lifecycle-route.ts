import type { AppContext } from '../context/app-context.js';
import type { Request, Response } from 'express';
import { applyLifecycleCallback, lifecycleStatusFor, verifyLifecycleCallback } from './lifecycle.js';

/** Where Flow sends its trigger lifecycle callbacks (extensions/flow-lifecycle-callback). */
export const flowLifecyclePath = '/flow/lifecycle';

/**
 * POST /flow/lifecycle, behind a raw body parser: verify, record, answer. 401 a missing or wrong signature,
 * 400 a body that is not a callback, 200 otherwise, also for a shop or trigger this app does not know
 * (logged and ignored: a non-2xx would stop the merchant turning the workflow on); 500 only when the
 * database cannot take the write (Flow then tells the merchant to try again later).
 */
/** `secret` is the app's client secret: the callbacks' signing key. */
export function flowLifecycleRoute(ctx: Pick<AppContext, 'prisma' | 'logger'>, secret: string) {
  return async (req: Request, res: Response): Promise<void> => {
    const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
    const verification = verifyLifecycleCallback(secret, req.get('x-shopify-hmac-sha256'), rawBody);
    if (!verification.ok) {
      // Anyone can send these: debug only.
      ctx.logger.debug(
        { reason: verification.reason, detail: verification.detail },
        'Flow lifecycle callback refused',
      );
      res
        .status(lifecycleStatusFor(verification.reason))
        .json({ error: verification.reason, detail: verification.detail });
      return;
    }
    const { callback } = verification;
    const result = await applyLifecycleCallback(ctx.prisma, callback);
    const facts = { shop: callback.shopDomain, trigger: callback.definitionId, enabled: callback.enabled };
    if (result.kind === 'unknown_shop' || result.kind === 'unknown_trigger')
      ctx.logger.warn({ ...facts, result: result.kind }, 'Flow lifecycle callback ignored');
    else if (result.clamped)
      ctx.logger.warn(
        { ...facts, result: result.kind, timestamp: callback.timestamp.toISOString() },
        'Flow lifecycle callback dated ahead of our clock; taken as of its arrival',
      );
    else ctx.logger.info({ ...facts, result: result.kind }, 'Flow lifecycle callback');
    res.status(200).json({ ok: true, result: result.kind });
  };
}
