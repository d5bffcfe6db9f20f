import type { AppContext } from '../../context/app-context.js';
import { once } from 'node:events';
import express, { type NextFunction, type Request, type Response } from 'express';
import { z } from 'zod';
import { storableString } from '../../db/storable-text.js';
import { describeError, newErrorId } from '../../errors/error-log.js';
import { analyticsQuery, deliveryAnalytics } from './analytics.js';
import { backfillBody, getShopBackfill, startShopBackfill } from './backfill.js';
import { carrierListQuery, searchCarriers } from './carrier-list.js';
import { mappingBody, saveCarrierMapping } from './carrier-mapping.js';
import { listSeenCarriers, seenCarriersQuery } from './carriers-seen.js';
import { saveConnection } from './connection.js';
import {
  failedPageQuery,
  listShopFailed,
  listShopFailedDeliveries,
  listShopFailedTrackers,
  retryBody,
  retryShopFailed,
} from './failed-work.js';
import { getNotificationSettings, saveNotificationSettings } from './notifications.js';
import { listRefusedWrites } from './refused-writes.js';
import { updateShopSettings } from './settings.js';
import { behaviourSchema } from '../../settings/behaviour.js';
import { connectionSchema } from '../../settings/connection.js';
import { notificationsSchema } from '../../settings/notifications.js';
import { problemRulesSchema } from '../../settings/problem-rules.js';
import { getShipmentDetail } from './shipment-detail.js';
import { exportShipments, listShipments, shipmentsQuery } from './shipment-list.js';
import { byteOrderMark, csvFileName, csvHeader, csvLine, csvRow } from './shipments-csv.js';
import { getOverview } from './overview.js';
import {
  getProblemRules,
  handledBody,
  listProblems,
  markProblemHandled,
  type ProblemChange,
  problemIdParams,
  problemsQuery,
  saveProblemRules,
  snoozeBody,
  snoozeProblem,
} from './problems.js';
import { getShopOverview } from './shop-overview.js';
import { getStatusPush, rotateStatusPush } from './status-push.js';
import {
  getTrackingPage,
  previewBody,
  previewTrackingPage,
  saveTrackingPage,
  trackingPageBody,
  trackingPageBodyLimit,
} from './tracking-page.js';
import { type InputIssue, parseInput } from './validation.js';

/** The page API's own settings, beside the context. */
export interface PageApiSettings {
  /** The app's public URL (SHOPIFY_APP_URL): the status push URL is shown under it. */
  appUrl: string;
  /** SMTP_URL is set, so digest e-mails can go (GET /notifications says so). */
  smtpConfigured: boolean;
}

/** A tracker id in the path: text the database cannot take is refused (400); anything else unknown is 404. */
const trackerIdParams = z.object({ trackerId: storableString() });
const trackerIdMaxLength = 100;

/**
 * The merchant's pages' JSON API, mounted behind the session-token middleware, which puts the verified shop
 * domain in `res.locals.shopDomain`. Every use case gets that domain and reads or changes that shop's rows
 * only; nothing in a request body or query names a shop. Routes only validate and answer: the work is in
 * the use cases beside this file.
 */
export function createPageApi(ctx: AppContext, settings: PageApiSettings): express.Router {
  const router = express.Router();
  // The tracking page's documents are small: a tighter bound than the others' (parsed once, here).
  router.use('/tracking-page', express.json({ limit: trackingPageBodyLimit }));
  router.use(express.json({ limit: '100kb' }));

  // Every route needs the session's shop.
  router.use((_req, res, next) => {
    const shopDomain: unknown = res.locals.shopDomain;
    if (typeof shopDomain !== 'string' || shopDomain.trim() === '') {
      res.status(401).json({ error: 'unauthorized' });
      return;
    }
    next();
  });

  const shopOf = (res: Response): string => res.locals.shopDomain as string;
  const invalid = (res: Response, issues: InputIssue[]) => {
    res.status(400).json({ error: 'invalid_input', issues });
  };

  router.get('/shop', async (_req, res) => {
    res.json(await getShopOverview(ctx, shopOf(res)));
  });

  router.put('/connection', async (req, res) => {
    const body = parseInput(connectionSchema, req.body);
    if (!body.ok) return invalid(res, body.issues);
    const result = await saveConnection(ctx, shopOf(res), body.value);
    if (result.ok) res.json({ ok: true, shop: result.shop });
    else res.status(422).json({ ok: false, reason: result.reason, message: result.message });
  });

  router.get('/status-push', async (_req, res) => {
    res.json(await getStatusPush(ctx, shopOf(res), settings.appUrl));
  });

  router.post('/status-push/rotate', async (_req, res) => {
    res.json(await rotateStatusPush(ctx, shopOf(res), settings.appUrl));
  });

  router.put('/settings', async (req, res) => {
    const body = parseInput(behaviourSchema, req.body);
    if (!body.ok) return invalid(res, body.issues);
    res.json(await updateShopSettings(ctx, shopOf(res), body.value));
  });

  router.get('/notifications', async (_req, res) => {
    res.json(await getNotificationSettings(ctx, shopOf(res), settings.smtpConfigured));
  });

  router.put('/notifications', async (req, res) => {
    const body = parseInput(notificationsSchema, req.body);
    if (!body.ok) return invalid(res, body.issues);
    res.json(await saveNotificationSettings(ctx, shopOf(res), body.value, settings.smtpConfigured));
  });

  router.get('/tracking-page', async (_req, res) => {
    res.json(await getTrackingPage(ctx, shopOf(res)));
  });

  router.put('/tracking-page', async (req, res) => {
    const body = parseInput(trackingPageBody, req.body);
    if (!body.ok) return invalid(res, body.issues);
    res.json(await saveTrackingPage(ctx, shopOf(res), body.value));
  });

  // The shoppers' page as the settings typed so far would make it (nothing is saved).
  router.post('/tracking-page/preview', async (req, res) => {
    const body = parseInput(previewBody, req.body);
    if (!body.ok) return invalid(res, body.issues);
    res.json(await previewTrackingPage(ctx, shopOf(res), body.value));
  });

  router.get('/carriers/seen', async (req, res) => {
    const query = parseInput(seenCarriersQuery, req.query);
    if (!query.ok) return invalid(res, query.issues);
    res.json(await listSeenCarriers(ctx, shopOf(res), query.value));
  });

  router.get('/carriers', async (req, res) => {
    const query = parseInput(carrierListQuery, req.query);
    if (!query.ok) return invalid(res, query.issues);
    res.json(await searchCarriers(ctx, query.value));
  });

  router.put('/carriers/mapping', async (req, res) => {
    const body = parseInput(mappingBody, req.body);
    if (!body.ok) return invalid(res, body.issues);
    const result = await saveCarrierMapping(ctx, shopOf(res), body.value);
    if (result.ok) {
      res.json({ remapped: result.remapped, stillWaiting: result.stillWaiting });
    } else if (result.reason === 'unknown_slug') {
      res.status(422).json({ error: 'unknown_slug', message: result.message });
    } else if (result.reason === 'carriers_unavailable') {
      res.status(503).json({ error: 'carriers_unavailable', message: result.message });
    } else {
      invalid(res, [{ field: '', message: result.message }]);
    }
  });

  router.get('/shipments', async (req, res) => {
    const query = parseInput(shipmentsQuery, req.query);
    if (!query.ok) return invalid(res, query.issues);
    res.json(await listShipments(ctx, shopOf(res), query.value));
  });

  // Before /shipments/:trackerId. Streamed in batches: a large shop is never held in memory at once.
  router.get('/shipments.csv', async (req, res) => {
    const query = parseInput(shipmentsQuery, req.query);
    if (!query.ok) return invalid(res, query.issues);
    const batches = exportShipments(ctx, shopOf(res), query.value);
    const first = await batches.next();
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', `attachment; filename="${csvFileName()}"`);
    res.write(byteOrderMark + csvLine(csvHeader));
    for (let batch = first; !batch.done; batch = await batches.next()) {
      if (!res.write(batch.value.map(csvRow).join(''))) await once(res, 'drain');
    }
    res.end();
  });

  router.get('/shipments/:trackerId', async (req, res) => {
    const params = parseInput(trackerIdParams, req.params);
    if (!params.ok) return invalid(res, params.issues);
    const id = params.value.trackerId;
    const detail =
      id !== '' && id.length <= trackerIdMaxLength ? await getShipmentDetail(ctx, shopOf(res), id) : null;
    if (detail) res.json(detail);
    else res.status(404).json({ error: 'not_found' });
  });

  router.get('/problems/rules', async (_req, res) => {
    res.json(await getProblemRules(ctx, shopOf(res)));
  });

  router.put('/problems/rules', async (req, res) => {
    const body = parseInput(problemRulesSchema, req.body);
    if (!body.ok) return invalid(res, body.issues);
    res.json(await saveProblemRules(ctx, shopOf(res), body.value));
  });

  router.get('/problems', async (req, res) => {
    const query = parseInput(problemsQuery, req.query);
    if (!query.ok) return invalid(res, query.issues);
    res.json(await listProblems(ctx, shopOf(res), query.value));
  });

  /** Answers a change of one problem: 404 when the shop has no such problem, 409 when it is closed already. */
  const problemChange = (res: Response, change: ProblemChange) => {
    if (change.ok) res.json({ problem: change.problem });
    else if (change.reason === 'not_found') res.status(404).json({ error: 'not_found' });
    else res.status(409).json({ error: 'closed', message: 'This problem is closed already.' });
  };

  router.post('/problems/:problemId/handled', async (req, res) => {
    const params = parseInput(problemIdParams, req.params);
    if (!params.ok) return invalid(res, params.issues);
    const body = parseInput(handledBody, req.body ?? {});
    if (!body.ok) return invalid(res, body.issues);
    problemChange(res, await markProblemHandled(ctx, shopOf(res), params.value.problemId, body.value));
  });

  router.post('/problems/:problemId/snooze', async (req, res) => {
    const params = parseInput(problemIdParams, req.params);
    if (!params.ok) return invalid(res, params.issues);
    const body = parseInput(snoozeBody, req.body);
    if (!body.ok) return invalid(res, body.issues);
    problemChange(res, await snoozeProblem(ctx, shopOf(res), params.value.problemId, body.value));
  });

  router.get('/overview', async (_req, res) => {
    res.json(await getOverview(ctx, shopOf(res)));
  });

  router.get('/analytics', async (req, res) => {
    const query = parseInput(analyticsQuery, req.query);
    if (!query.ok) return invalid(res, query.issues);
    res.json(await deliveryAnalytics(ctx, shopOf(res), query.value.days));
  });

  router.get('/failed', async (_req, res) => {
    res.json(await listShopFailed(ctx, shopOf(res)));
  });

  // The next pages of the failed lists (`after`: the `next` cursor the previous page gave).
  router.get('/failed/trackers', async (req, res) => {
    const query = parseInput(failedPageQuery, req.query);
    if (!query.ok) return invalid(res, query.issues);
    res.json(await listShopFailedTrackers(ctx, shopOf(res), query.value));
  });

  router.get('/failed/deliveries', async (req, res) => {
    const query = parseInput(failedPageQuery, req.query);
    if (!query.ok) return invalid(res, query.issues);
    res.json(await listShopFailedDeliveries(ctx, shopOf(res), query.value));
  });

  router.get('/store-writes/refused', async (req, res) => {
    const query = parseInput(failedPageQuery, req.query);
    if (!query.ok) return invalid(res, query.issues);
    res.json(await listRefusedWrites(ctx, shopOf(res), query.value));
  });

  router.post('/failed/retry', async (req, res) => {
    // An empty POST (no body at all) means "retry everything of this shop".
    const body = parseInput(retryBody, req.body ?? {});
    if (!body.ok) return invalid(res, body.issues);
    res.json(await retryShopFailed(ctx, shopOf(res), body.value));
  });

  router.get('/backfill', async (_req, res) => {
    res.json(await getShopBackfill(ctx, shopOf(res)));
  });

  router.post('/backfill', async (req, res) => {
    const body = parseInput(backfillBody, req.body ?? {});
    if (!body.ok) return invalid(res, body.issues);
    res.json(await startShopBackfill(ctx, shopOf(res), body.value));
  });

  router.use((_req, res) => {
    res.status(404).json({ error: 'not_found' });
  });

  router.use((error: unknown, req: Request, res: Response, _next: NextFunction) => {
    const status = clientErrorStatus(error);
    if (status === 400) {
      invalid(res, [{ field: '', message: 'The body is not valid JSON' }]);
      return;
    }
    if (status === 413) {
      res.status(413).json({ error: 'payload_too_large' });
      return;
    }
    if (status !== null) {
      res.status(status).json({ error: 'bad_request' });
      return;
    }
    // Never the body (it may hold the API key) nor a whole error (Prisma's repeat their arguments); an
    // id the answer carries too, so the merchant's report leads to this line.
    const errorId = newErrorId();
    ctx.logger.error(
      { errorId, method: req.method, path: req.path.slice(0, 200), error: describeError(error) },
      'page API failed',
    );
    // A stream (the CSV) already under way cannot turn into an error answer: cut it, so it is not taken
    // for a whole file.
    if (res.headersSent) {
      res.destroy();
      return;
    }
    res.status(500).json({ error: 'internal_error', errorId });
  });

  return router;
}

/** body-parser's errors carry a 4xx status (400 malformed, 413 too large, 415 charset). */
function clientErrorStatus(error: unknown): number | null {
  const candidate = error as { status?: unknown; statusCode?: unknown; expose?: unknown } | null;
  const status = candidate?.status ?? candidate?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : null;
}
