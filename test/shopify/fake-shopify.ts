import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { setShopifyFetch } from '../helpers/shopify-fetch.js';

export interface FakeShopifyCall {
  /** The URL the library asked for (https://<shop>/…). */
  url: string;
  method: string;
  body: unknown;
}

/**
 * A local stand-in for the stores' OAuth token endpoint and Admin GraphQL API. The library's fetch
 * (@shopify/shopify-api's abstractFetch, which its node adapter sets to globalThis.fetch; the library's
 * documented seam for other runtimes) is replaced for the test file: every call is recorded with the
 * URL the library built (https://<shop>/…), then sent here.
 */
export interface FakeShopify {
  calls: FakeShopifyCall[];
  /** The next answers of POST /admin/oauth/access_token (the default: an expiring offline token). */
  tokenAnswers: Array<{ status: number; body: unknown }>;
  close(): Promise<void>;
}

export const OFFLINE_TOKEN_ANSWER = {
  access_token: 'shpat_offline_token',
  scope: 'read_orders,read_fulfillments,write_fulfillments',
  expires_in: 3600,
  refresh_token: 'shprt_refresh_token',
  refresh_token_expires_in: 7_776_000,
};

export async function startFakeShopify(): Promise<FakeShopify> {
  const calls: FakeShopifyCall[] = [];
  const tokenAnswers: Array<{ status: number; body: unknown }> = [];
  const app = express();
  app.use(express.json());
  app.post('/admin/oauth/access_token', (_req, res) => {
    const answer = tokenAnswers.shift() ?? { status: 200, body: OFFLINE_TOKEN_ANSWER };
    res.status(answer.status).json(answer.body);
  });
  app.post('/admin/api/:version/graphql.json', (_req, res) => {
    res.json({
      data: { webhookSubscriptions: { edges: [], pageInfo: { hasNextPage: false, endCursor: null } } },
    });
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const realFetch = globalThis.fetch;
  setShopifyFetch(async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const text = typeof init?.body === 'string' ? init.body : undefined;
    let body: unknown = text;
    try {
      body = text === undefined ? undefined : JSON.parse(text);
    } catch {
      // not JSON: kept as text
    }
    calls.push({ url: url.href, method: init?.method ?? 'GET', body });
    return realFetch(`${base}${url.pathname}${url.search}`, init);
  });

  return {
    calls,
    tokenAnswers,
    async close() {
      setShopifyFetch(realFetch);
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
