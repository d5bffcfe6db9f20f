import { randomBytes } from 'node:crypto';
import express from 'express';
import request from 'supertest';
import { expect } from 'vitest';
import { createPageApi } from '../../../src/ui/api/router.js';
import { startTestApp, type TestApp, waitFor } from '../../helpers/app.js';
import { type Captured, captureLogger } from '../../helpers/capture-logger.js';
import {
  createDelivery,
  type FulfillmentBodyOptions,
  fulfillmentBody,
  nextSeq,
} from '../../helpers/factories.js';
import { installStore } from '../../helpers/install.js';

/**
 * The page API mounted as the app mounts it (under /api), behind a stand-in for the session-token
 * middleware: the `x-test-shop` header plays the verified token's shop. Over the real test app (database,
 * worker) and the emulator. Every JSON answer and log line is kept, to check no API key ever leaves.
 */
export const SHOP_HEADER = 'x-test-shop';

export interface TestShop {
  domain: string;
  appName: string;
  apiKey: string;
  id: string;
}

export interface PageApiHarness {
  app: TestApp;
  http: express.Express;
  /** Every response body the page API sent. */
  bodies: string[];
  logs: Captured;
  /** Every API key handed to the emulator or the API in this file. */
  keys: string[];
  as(domain: string): {
    get(path: string): request.Test;
    put(path: string, body?: unknown): request.Test;
    post(path: string, body?: unknown): request.Test;
  };
  /** A new emulator account and a shop connected to it through PUT /connection. */
  connectedShop(name: string, account?: { balance?: number; https?: boolean }): Promise<TestShop>;
  /** A store fulfilment for the shop, recorded as intake does; the worker picks it up. */
  fulfil(domain: string, options: FulfillmentBodyOptions): Promise<void>;
  /** Waits until the shop's deliveries are handled and no tracker of it is pending or leased. */
  settled(domain: string): Promise<void>;
  /** Fails the test when an API key appears in any answer or log line so far. */
  expectNoKeyLeaked(): void;
  close(): Promise<void>;
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString('hex')}`;
}

export async function startPageApi(): Promise<PageApiHarness> {
  const app = await startTestApp({ connect: false });
  const logs = captureLogger('debug');
  const bodies: string[] = [];
  const keys: string[] = [];
  const { runtime } = app;

  const http = express();
  http.use((_req, res, next) => {
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      bodies.push(typeof body === 'string' ? body : JSON.stringify(body));
      return send(body);
    };
    next();
  });
  http.use(
    '/api',
    (req, res, next) => {
      const shop = req.header(SHOP_HEADER);
      if (shop) res.locals.shopDomain = shop;
      next();
    },
    createPageApi(
      { ...runtime.context, logger: logs.logger },
      { appUrl: 'https://tracksync.example', smtpConfigured: false },
    ),
  );

  const prisma = runtime.db.prisma;
  const as = (domain: string) => ({
    get: (path: string) => request(http).get(`/api${path}`).set(SHOP_HEADER, domain),
    put: (path: string, body?: unknown) =>
      request(http)
        .put(`/api${path}`)
        .set(SHOP_HEADER, domain)
        .send(body as object),
    post: (path: string, body?: unknown) =>
      request(http)
        .post(`/api${path}`)
        .set(SHOP_HEADER, domain)
        .send(body as object),
  });

  return {
    app,
    http,
    bodies,
    logs,
    keys,
    as,
    async connectedShop(name, account = {}) {
      const tag = uniqueName(name);
      const domain = `${tag}.myshopify.com`;
      const appName = `store-${tag}`;
      const apiKey = `key-${tag}-${randomBytes(8).toString('hex')}`;
      keys.push(apiKey);
      await app.emulator.control.addAccount({
        apiKey,
        appName,
        plan: 'Pro',
        balance: account.balance ?? 1000,
        https: account.https ?? true,
      });
      // Installed first (the shop's row and its offline session), then connected on Settings.
      await installStore(app, domain);
      const res = await as(domain).put('/connection', { appName, apiKey });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const row = await prisma.shop.findUniqueOrThrow({ where: { domain } });
      return { domain, appName, apiKey, id: row.id };
    },
    async fulfil(domain, options) {
      const n = nextSeq();
      await createDelivery(prisma, fulfillmentBody({ id: 8_000_000_000_000 + n, ...options }), {
        shopDomain: domain,
        topic: 'fulfillments/create',
      });
      runtime.worker?.wake();
    },
    async settled(domain) {
      await waitFor(
        `deliveries of ${domain}`,
        async () =>
          (await prisma.webhookDelivery.count({ where: { shopDomain: domain, state: 'pending' } })) === 0,
      );
      await waitFor(`the worker to settle for ${domain}`, async () => {
        const busy = await prisma.tracker.count({
          where: { shop: { domain }, OR: [{ syncState: 'pending' }, { leaseOwner: { not: null } }] },
        });
        return busy === 0;
      });
      // The problem sweep too: nothing due an evaluation, nor claimed by a pass (held 5 minutes ahead).
      await waitFor(`the problem sweep to settle for ${domain}`, async () => {
        const due = await prisma.tracker.count({
          where: { shop: { domain }, problemCheckAt: { lte: new Date(Date.now() + 5 * 60_000 + 1_000) } },
        });
        return due === 0;
      });
    },
    expectNoKeyLeaked() {
      for (const key of keys) {
        for (const body of bodies) expect(body).not.toContain(key);
        for (const line of logs.lines) expect(line).not.toContain(key);
      }
    },
    close: () => app.close(),
  };
}
