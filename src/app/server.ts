import type { Shopify } from '@shopify/shopify-api';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { DatabaseClient } from '../db/client.js';
import type { Logger } from '../logger.js';
import { webhookRoute } from '../webhooks/route.js';
import type { Readiness } from './readiness.js';

export interface AppDeps {
  prisma: DatabaseClient;
  shopify: Shopify;
  logger: Logger;
  readiness: () => Promise<Readiness>;
  onDeliveryRecorded?: () => void;
}

/** The HTTP side: webhook intake, health and readiness. Routes stay thin; the work is in use cases. */
export function createApp(deps: AppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', true);

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/readyz', async (_req, res) => {
    const readiness = await deps.readiness();
    res
      .status(readiness.ready ? 200 : 503)
      .json(readiness.ready ? { status: 'ready' } : { status: 'not ready', reason: readiness.reason });
  });

  // The raw body, exactly as signed, whatever the content type claims.
  app.post(
    '/webhooks',
    express.raw({ type: () => true, limit: '2mb' }),
    webhookRoute({
      prisma: deps.prisma,
      shopify: deps.shopify,
      logger: deps.logger,
      onRecorded: deps.onDeliveryRecorded,
    }),
  );

  app.use((_req, res) => {
    res.status(404).json({ error: 'not_found' });
  });
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const status = httpErrorStatus(error);
    if (status >= 500)
      deps.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'request failed');
    if (res.headersSent) return;
    res.status(status).json({ error: status >= 500 ? 'internal_error' : 'bad_request' });
  });
  return app;
}

/** body-parser's errors carry a 4xx status (413 too large, 400 bad encoding); anything else is ours. */
function httpErrorStatus(error: unknown): number {
  const status =
    (error as { status?: unknown; statusCode?: unknown })?.status ??
    (error as { statusCode?: unknown })?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : 500;
}
