import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { setShopifyFetch } from './shopify-fetch.js';
import type { GraphqlOrder } from '../../src/jobs/backfill.js';

/**
 * A local stand-in for the stores' Admin GraphQL API answering the backfill's orders query, reached the
 * way test/shopify/fake-shopify.ts reaches its fake: the library's fetch (abstractFetch, in both the ESM
 * and the CJS build of @shopify/shopify-api) is swapped for one that records the call and sends it to
 * 127.0.0.1, with the store the library addressed in an `x-fake-shop` header.
 */
export interface OrdersCall {
  shop: string;
  url: string;
  accessToken: string | null;
  query: string;
  variables: { cursor?: string | null; query?: string };
}

export interface FakeAdminGraphql {
  /** Every orders query asked, in order. */
  calls: OrdersCall[];
  /** A store's orders, newest last; served `pageSize` per page. */
  setOrders(shop: string, orders: GraphqlOrder[]): void;
  /** The next answers for a store (status and body) instead of a page: errors, throttles. */
  failNext(shop: string, answer: { status: number; body: unknown }, afterPages?: number): void;
  pageSize: number;
  close(): Promise<void>;
}

export async function startFakeAdminGraphql(pageSize = 2): Promise<FakeAdminGraphql> {
  const calls: OrdersCall[] = [];
  const orders = new Map<string, GraphqlOrder[]>();
  const failures = new Map<string, Array<{ status: number; body: unknown; afterPages: number }>>();
  const fake: FakeAdminGraphql = {
    calls,
    pageSize,
    setOrders: (shop, list) => orders.set(shop, list),
    failNext: (shop, answer, afterPages = 0) => {
      const list = failures.get(shop) ?? [];
      list.push({ ...answer, afterPages });
      failures.set(shop, list);
    },
    close: async () => {},
  };

  const app = express();
  app.use(express.json());
  app.post('/admin/api/:version/graphql.json', (req, res) => {
    const shop = req.header('x-fake-shop') ?? '';
    const body = req.body as { query?: string; variables?: OrdersCall['variables'] };
    calls.push({
      shop,
      url: req.originalUrl,
      accessToken: req.header('x-shopify-access-token') ?? null,
      query: body.query ?? '',
      variables: body.variables ?? {},
    });
    const pending = failures.get(shop) ?? [];
    const first = pending[0];
    if (first) {
      if (first.afterPages <= 0) {
        pending.shift();
        res.status(first.status).json(first.body);
        return;
      }
      first.afterPages--;
    }
    if (!/orders\(first: 50, after: \$cursor, query: \$query, sortKey: CREATED_AT\)/.test(body.query ?? '')) {
      res.json({ errors: [{ message: 'unexpected query' }] });
      return;
    }
    const all = orders.get(shop) ?? [];
    const cursor = body.variables?.cursor ?? null;
    const start = cursor === null ? 0 : Number(cursor.replace(/^c/, ''));
    const nodes = all.slice(start, start + fake.pageSize);
    const end = start + nodes.length;
    res.json({
      data: {
        orders: {
          pageInfo: { hasNextPage: end < all.length, endCursor: nodes.length > 0 ? `c${end}` : null },
          nodes,
        },
      },
      extensions: { cost: { requestedQueryCost: 10 } },
    });
  });
  const server: Server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const realFetch = globalThis.fetch;
  setShopifyFetch(async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers as ConstructorParameters<typeof Headers>[0]);
    headers.set('x-fake-shop', url.host);
    return realFetch(`${base}${url.pathname}${url.search}`, { ...init, headers });
  });

  fake.close = async () => {
    setShopifyFetch(realFetch);
    await new Promise((resolve) => server.close(resolve));
  };
  return fake;
}

/** An order of `n` with one UPS fulfilment per tracking number list given. */
export function upsOrder(
  n: number,
  fulfilments: string[][],
  extra: Partial<GraphqlOrder> = {},
): GraphqlOrder {
  return {
    legacyResourceId: String(6_300_000_000_000 + n),
    name: `#${3000 + n}`,
    cancelledAt: null,
    shippingAddress: { zip: '40003', countryCodeV2: 'US' },
    fulfillments: fulfilments.map((numbers, i) => ({
      legacyResourceId: String(5_300_000_000_000 + n * 10 + i),
      status: 'SUCCESS',
      createdAt: '2026-11-18T10:21:43Z',
      updatedAt: '2026-11-18T10:21:43Z',
      trackingInfo: numbers.map((number) => ({ company: 'UPS', number })),
    })),
    ...extra,
  };
}

export function upsNumber(n: number): string {
  return `1ZBF${String(n).padStart(12, '0')}`;
}
