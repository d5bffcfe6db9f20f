import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { hostname } from 'node:os';
import type { Express } from 'express';
import { type AppContext, createAppContext } from '../context/app-context.js';
import type { AppConfig } from '../config.js';
import { createDatabase, type Database } from '../db/client.js';
import { applyMigrations } from '../db/migrate.js';
import { createWorker, type Worker, type WorkerOptions } from '../jobs/worker.js';
import type { Logger } from '../logger.js';
import type { PollPolicy } from '../shipments/status.js';
import { createShopify } from '../shopify/api.js';
import { mailerFromSettings } from '../notifications/mailer.js';
import { createSlackPoster } from '../notifications/slack-poster.js';
import { parseKeyring } from '../shops/crypto.js';
import { PrismaSessionStorage } from '../shops/session-storage.js';
import { createTrackingClient } from '../tracking/client.js';
import { shopifyStoreApis } from '../jobs/work-context.js';
import type { FetchLike } from '../tracking/transport.js';
import { createReadinessCheck } from './readiness.js';
import { createApp } from './server.js';
import { databaseGauges, startMetricsServer } from './metrics-route.js';
import { setDatabaseGauges } from '../observability/metrics.js';

export interface Runtime {
  /** The web server's base URL, when this process serves HTTP. */
  url: string | null;
  /** GET /metrics on its own listener (METRICS_PORT), when configured. */
  metricsUrl: string | null;
  db: Database;
  /** What every use case works with, built once here (src/context/app-context.ts). */
  context: AppContext;
  worker: Worker | null;
  close(): Promise<void>;
}

export interface RuntimeOptions {
  logger: Logger;
  /** Apply pending migrations before serving (default true). */
  migrate?: boolean;
  fetch?: FetchLike;
  /** Worker idle poll (tests shorten it). */
  idlePollMs?: number;
  /** Reconciler tuning (backoff, lease, probe interval); tests shorten it. Defaults: the reconciler's. */
  reconciler?: WorkerOptions['reconciler'];
  /** When shipment statuses are read (tests and the dev server shorten it). */
  pollPolicy?: PollPolicy;
  /** Per-attempt timeout of tracking-service calls (default: the client's, 10 s). */
  clientTimeoutMs?: number;
  /**
   * What serves HTTP in front of the app (default: the app itself). The runtime knows nothing of what is
   * put there: the dev server (tools/dev/dev-app.ts) mounts its extras so, and tests may.
   */
  serve?: (app: Express) => Express;
}

/** Builds the whole app from config: database, repositories, client, and the web server and/or worker. */
export async function startRuntime(config: AppConfig, options: RuntimeOptions): Promise<Runtime> {
  const { logger } = options;
  const keyring = parseKeyring(config.encryptionKey);
  if (options.migrate ?? true) {
    const { applied } = await applyMigrations(config.databaseUrl);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  }
  const db = await createDatabase(config.databaseUrl, {
    onCheckpointError: (message) =>
      logger.warn({ err: message }, 'SQLite checkpoint failed; commits checkpoint instead'),
  });
  const context = createAppContext({
    prisma: db.prisma,
    logger,
    keyring,
    client: createTrackingClient({
      baseUrl: config.trackingApiBaseUrl,
      logger,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      timeoutMs: options.clientTimeoutMs ?? config.trackingTimeoutMs,
      // Kept-alive connections for the calls in flight: the tracker syncs' and the status reads' (each up to
      // WORKER_CONCURRENCY at once); more wait for a free connection rather than open new ones.
      maxSockets: 2 * config.workerConcurrency,
    }),
  });
  const owner = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const sessionStorage = new PrismaSessionStorage(db.prisma, { keyring, logger });
  // Tokens stored before they were sealed (or sealed with a rotated-out key) are sealed now.
  await sessionStorage.sealStoredTokens();
  const shopify = createShopify({ ...config.shopify, sessionStorage, logger });

  /** The digest e-mails' SMTP client (workers only; none when SMTP_URL is unset, said once). */
  const mailer = config.role === 'web' ? null : mailerFromSettings(config.mail, logger);
  const worker =
    config.role === 'web'
      ? null
      : createWorker(
          {
            ...context,
            owner,
            store: shopifyStoreApis(shopify),
            notifiers: { mailer, slack: createSlackPoster(), appApiKey: config.shopify.apiKey },
          },
          {
            concurrency: config.workerConcurrency,
            lease: config.lease,
            idlePollMs: options.idlePollMs,
            ...(config.retention ? { retention: config.retention } : {}),
            ...(options.reconciler ? { reconciler: options.reconciler } : {}),
            ...(options.pollPolicy ? { pollPolicy: options.pollPolicy } : {}),
          },
        );

  let server: Server | null = null;
  let url: string | null = null;
  if (config.role !== 'worker') {
    const app = createApp(context, {
      shopify,
      readiness: createReadinessCheck(db.prisma, db.provider),
      onDeliveryRecorded: () => worker?.wake(),
      metricsToken: config.metrics.token,
      adminUiScripts: config.adminUiScripts,
      trackingPageRefreshMs: config.trackingPage.refreshAfterMs,
      trustProxy: config.trustProxy,
      ...(config.trackingPage.limits ? { trackingPageLimits: config.trackingPage.limits } : {}),
      smtpConfigured: Boolean(config.mail?.smtpUrl),
    });
    server = (options.serve ? options.serve(app) : app).listen(config.port, config.host);
    await once(server, 'listening');
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.port;
    const host = config.host === '0.0.0.0' ? '127.0.0.1' : config.host;
    url = `http://${host}:${port}`;
    logger.info({ url, role: config.role }, 'listening');
  }
  setDatabaseGauges(databaseGauges(db.prisma, { everyMs: config.metrics.databaseEveryMs }));
  const metricsServer =
    config.metrics.port === null
      ? null
      : await startMetricsServer({ host: config.metrics.host, port: config.metrics.port });
  if (metricsServer) logger.info({ url: metricsServer.url }, 'metrics listening');
  worker?.start();

  let closing: Promise<void> | null = null;
  return {
    url,
    metricsUrl: metricsServer?.url ?? null,
    db,
    context,
    worker,
    close() {
      closing ??= (async () => {
        if (server) {
          const closed = new Promise((resolve) => server!.close(resolve));
          server.closeIdleConnections();
          const timer = setTimeout(() => server!.closeAllConnections(), 5_000);
          await closed;
          clearTimeout(timer);
        }
        await metricsServer?.close();
        await worker?.stop();
        await mailer?.close();
        setDatabaseGauges(null);
        await db.close();
      })();
      return closing;
    },
  };
}
