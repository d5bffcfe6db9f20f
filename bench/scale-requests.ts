/**
 * What the merchant's pages and the shoppers' page ask of the app, measured through its real HTTP stack
 * (session token → /api, signed app-proxy query → /proxy) for one shop, one request at a time. The list
 * adapts to the API it finds: a shipments answer with `nextCursor` is paged by cursor (`after`, else
 * `cursor`), one without by `page`; the filter values are the ones the answer counts.
 */
import { performance } from 'node:perf_hooks';
import {
  median,
  percentile,
  type ScaleApp,
  sessionToken,
  shopperAddress,
  signedProxyQuery,
  type Timed,
  timedRequest,
} from './scale-http.js';

export interface ShopUnderTest {
  label: string;
  domain: string;
  id: string;
  /** Tracking lines seeded. */
  lines: number;
  /** Tracking numbers of the shop, for searches and lookups. */
  numbers: string[];
  /** Orders with their customer's email, for lookups. */
  orders: Array<{ name: string; email: string }>;
}

export interface KindResult {
  kind: string;
  n: number;
  p50: number;
  p95: number;
  max: number;
  /** Median statements per request (null when not counted). */
  statements: number | null;
  statementsMax: number | null;
  bytes: number;
  errors: string[];
  /** Per sub-request (each filter): p50 ms and statements. */
  details?: Array<{ name: string; p50: number; statements: number | null; n: number }>;
  note?: string;
}

export interface Sampling {
  /** Samples per kind (a kind stops earlier once its budget is spent; at least one). */
  samples: number;
  budgetMs: number;
  /** Rounds over every filter (each filter at least once). */
  filterRounds: number;
  filterBudgetMs: number;
  proxySamples: number;
  timeoutMs: number;
}

export interface RequestContext {
  app: ScaleApp;
  secret: string;
  sampling: Sampling;
  log: (line: string) => void;
}

export function apiGet(
  ctx: RequestContext,
  shop: ShopUnderTest,
  path: string,
  keepBody = false,
  count = true,
) {
  return timedRequest(`${ctx.app.url}/api${path}`, {
    headers: { Authorization: `Bearer ${sessionToken(shop.domain, ctx.secret)}`, Accept: 'application/json' },
    timeoutMs: ctx.sampling.timeoutMs,
    keepBody,
    ...(count ? { app: ctx.app } : {}),
  });
}

export function proxyGet(
  ctx: RequestContext,
  shop: ShopUnderTest,
  params: Record<string, string>,
  count = true,
): Promise<Timed> {
  const query = signedProxyQuery(
    { shop: shop.domain, path_prefix: '/apps/track', logged_in_customer_id: '', ...params },
    ctx.secret,
  );
  return timedRequest(`${ctx.app.url}/proxy?${query}`, {
    headers: { 'X-Forwarded-For': shopperAddress(), 'Accept-Language': 'en' },
    timeoutMs: ctx.sampling.timeoutMs,
    ...(count ? { app: ctx.app } : {}),
  });
}

/** With five or more samples of one request, the first is a warm-up and left out (unless `warmup` is false). */
function summarise(
  kind: string,
  samples: Timed[],
  extra: Partial<KindResult> = {},
  warmup = samples.length >= 5,
): KindResult {
  const kept = warmup ? samples.slice(1) : samples;
  const ok = kept.filter((s) => s.error === null);
  const ms = ok.map((s) => s.ms);
  const statements = ok.flatMap((s) => (s.statements === null ? [] : [s.statements]));
  return {
    kind,
    n: ok.length,
    p50: median(ms),
    p95: percentile(ms, 95),
    max: percentile(ms, 100),
    statements: statements.length ? median(statements) : null,
    statementsMax: statements.length ? Math.max(...statements) : null,
    bytes: ok.length ? median(ok.map((s) => s.bytes)) : 0,
    errors: [...new Set(samples.flatMap((s) => (s.error ? [s.error] : [])))],
    ...extra,
  };
}

/** Repeats `one` up to `samples` times or until `budgetMs` is spent (at least once). */
async function repeat(
  samples: number,
  budgetMs: number,
  one: (i: number) => Promise<Timed>,
): Promise<Timed[]> {
  const started = performance.now();
  const out: Timed[] = [];
  for (let i = 0; i < samples; i++) {
    if (i > 0 && performance.now() - started > budgetMs) break;
    out.push(await one(i));
  }
  return out;
}

interface ListAnswer {
  rows?: unknown[];
  total?: number;
  page?: number;
  pageCount?: number;
  nextCursor?: string | null;
  counts?: { parcel?: Record<string, number>; sync?: Record<string, number> };
}

const fallbackFilters = {
  parcel: [
    'not_scanned',
    'info_received',
    'in_transit',
    'out_for_delivery',
    'ready_for_pickup',
    'failed_attempt',
    'exception',
    'delivered',
    'ended',
  ],
  sync: [
    'problem',
    'tracked',
    'syncing',
    'waiting_carrier',
    'failed',
    'removing',
    'order_cancelled',
    'fulfillment_cancelled',
    'number_removed',
    'removed',
  ],
};

export interface ShopMeasurement {
  shop: ShopUnderTest;
  kinds: KindResult[];
  /** How the list pages: 'page' or 'cursor:<param>'. */
  paging: string;
  /** The analytics answer (for the exactness check). */
  analyticsBody: string | null;
  /** Rows the list says the shop has. */
  listTotal: number | null;
}

/** Every request kind for one shop, one request at a time. */
export async function measureShop(ctx: RequestContext, shop: ShopUnderTest): Promise<ShopMeasurement> {
  const { sampling } = ctx;
  const kinds: KindResult[] = [];
  const step = (line: string) => ctx.log(`  [${shop.label}] ${line}`);
  const record = (result: KindResult) => {
    kinds.push(result);
    step(
      `${result.kind}: n ${result.n}, p50 ${result.p50.toFixed(1)} ms, p95 ${result.p95.toFixed(1)} ms, ` +
        `${result.statements ?? '?'} statements${result.errors.length ? `, ERRORS: ${result.errors.join(' | ').slice(0, 300)}` : ''}`,
    );
  };

  // The Shipments page: first page (its answer tells how the list pages and which filters it counts).
  const first: Timed[] = [];
  let answer: ListAnswer = {};
  first.push(
    ...(await repeat(sampling.samples, sampling.budgetMs, async (i) => {
      const t = await apiGet(ctx, shop, '/shipments', i === 0);
      if (i === 0 && t.body) answer = JSON.parse(t.body) as ListAnswer;
      return t;
    })),
  );
  record(summarise('shipments', first));
  const cursorMode = 'nextCursor' in answer;

  // A deep page: the middle page by number, or (cursor paging, no jumps) the next pages by cursor.
  let paging = 'page';
  if (cursorMode) {
    // The cursor's parameter: `after` (keyset answers with nextCursor/previousCursor), else `cursor`.
    let cursorParam: string | null = null;
    let cursor = answer.nextCursor ?? null;
    const pages: Timed[] = [];
    const byCursor = (param: string) =>
      apiGet(ctx, shop, `/shipments?${param}=${encodeURIComponent(cursor!)}`, true);
    for (let i = 0; i < Math.min(sampling.samples, 10) && cursor; i++) {
      let t: Timed;
      if (cursorParam !== null) t = await byCursor(cursorParam);
      else {
        t = await byCursor('after');
        cursorParam = 'after';
        if (t.status === 400) {
          t = await byCursor('cursor');
          cursorParam = 'cursor';
        }
      }
      pages.push(t);
      cursor = t.body && t.error === null ? ((JSON.parse(t.body) as ListAnswer).nextCursor ?? null) : null;
    }
    paging = `cursor:${cursorParam ?? 'after'}`;
    record(summarise('shipments_deep', pages, { note: `pages 2–${pages.length + 1} by ${paging}` }));
  } else {
    const middle = Math.max(2, Math.ceil((answer.pageCount ?? 2) / 2));
    record(
      summarise(
        'shipments_deep',
        await repeat(Math.min(sampling.samples, 10), sampling.budgetMs, () =>
          apiGet(ctx, shop, `/shipments?page=${middle}`),
        ),
        { note: `page ${middle} of ${answer.pageCount ?? '?'}` },
      ),
    );
  }

  // Every filter, each on its own (first page), plus a date range.
  const filters = [
    ...Object.keys(answer.counts?.parcel ?? {}).map((v) => `parcel=${v}`),
    ...Object.keys(answer.counts?.sync ?? {}).map((v) => `sync=${v}`),
  ];
  if (filters.length === 0)
    filters.push(
      ...fallbackFilters.parcel.map((v) => `parcel=${v}`),
      ...fallbackFilters.sync.map((v) => `sync=${v}`),
    );
  const day = (offsetDays: number) =>
    new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);
  filters.push(`from=${day(-30)}&to=${day(0)}`);
  const perFilter = new Map<string, Timed[]>(filters.map((f) => [f, []]));
  const filterStarted = performance.now();
  for (let round = 0; round < sampling.filterRounds; round++) {
    if (round > 0 && performance.now() - filterStarted > sampling.filterBudgetMs) break;
    for (const filter of filters)
      perFilter.get(filter)!.push(await apiGet(ctx, shop, `/shipments?${filter}`));
  }
  const allFilters = [...perFilter.values()].flat();
  record(
    summarise(
      'shipments_filter',
      allFilters,
      {
        details: [...perFilter].map(([name, samples]) => {
          const ok = samples.filter((s) => s.error === null);
          return {
            name,
            n: ok.length,
            p50: median(ok.map((s) => s.ms)),
            statements: ok.length && ok[0]!.statements !== null ? median(ok.map((s) => s.statements!)) : null,
          };
        }),
        note: `${filters.length} filters × ${Math.max(...[...perFilter.values()].map((s) => s.length))} round(s)`,
      },
      false,
    ),
  );

  const pick = <T>(list: T[], i: number) => list[i % Math.max(1, list.length)]!;
  record(
    summarise(
      'search',
      await repeat(sampling.samples, sampling.budgetMs, (i) =>
        apiGet(ctx, shop, `/shipments?search=${encodeURIComponent(pick(shop.numbers, i))}`),
      ),
      { note: 'a whole tracking number' },
    ),
  );
  record(
    summarise(
      'overview',
      await repeat(Math.min(sampling.samples, 10), sampling.budgetMs, () => apiGet(ctx, shop, '/overview')),
    ),
  );
  record(
    summarise(
      'failed',
      await repeat(Math.min(sampling.samples, 10), sampling.budgetMs, () => apiGet(ctx, shop, '/failed')),
    ),
  );
  let analyticsBody: string | null = null;
  record(
    summarise(
      'analytics',
      await repeat(Math.min(sampling.samples, 10), sampling.budgetMs, async (i) => {
        const t = await apiGet(ctx, shop, '/analytics?days=90', i === 0);
        if (i === 0 && t.error === null) analyticsBody = t.body;
        return t;
      }),
      { note: 'days=90' },
    ),
  );
  record(
    summarise(
      'carriers_seen',
      await repeat(Math.min(sampling.samples, 10), sampling.budgetMs, () =>
        apiGet(ctx, shop, '/carriers/seen'),
      ),
    ),
  );
  const proxyNumber = await repeat(sampling.proxySamples, sampling.budgetMs, (i) =>
    proxyGet(ctx, shop, { tracking: pick(shop.numbers, i + 7) }),
  );
  record(summarise('proxy_number', proxyNumber, { note: 'by tracking number' }));
  const proxyOrder = await repeat(sampling.proxySamples, sampling.budgetMs, (i) => {
    const order = pick(shop.orders, i);
    return proxyGet(ctx, shop, { order: order.name, email: order.email });
  });
  record(summarise('proxy_order', proxyOrder, { note: 'by order number and email' }));
  const both = [
    ...proxyNumber.slice(proxyNumber.length >= 5 ? 1 : 0),
    ...proxyOrder.slice(proxyOrder.length >= 5 ? 1 : 0),
  ];
  record(summarise('proxy', both, { note: 'both lookups' }, false));

  return {
    shop,
    kinds,
    paging,
    analyticsBody,
    listTotal: typeof answer.total === 'number' ? answer.total : null,
  };
}

export interface CsvResult {
  seconds: number;
  complete: boolean;
  rows: number;
  expectedRows: number | null;
  /** Seconds for every row: measured when complete, else extrapolated from the rate so far. */
  secondsAll: number;
  bytes: number;
  rssBeforeMb: number | null;
  rssPeakMb: number | null;
  statements: number | null;
  error: string | null;
}

/** The whole shop's CSV export, streamed; the app's RSS sampled every 100 ms; cut at `timeoutMs`. */
export async function measureCsv(
  ctx: RequestContext,
  shop: ShopUnderTest,
  expectedRows: number | null,
  timeoutMs: number,
): Promise<CsvResult> {
  const rssBefore = ctx.app.rssNow();
  let rssPeak = rssBefore ?? 0;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, ctx.app.rssNow() ?? 0);
  }, 100);
  const before = (await ctx.app.stats()).statements;
  const started = performance.now();
  let newlines = 0;
  let bytes = 0;
  let error: string | null = null;
  let complete = false;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    const response = await fetch(`${ctx.app.url}/api/shipments.csv`, {
      headers: { Authorization: `Bearer ${sessionToken(shop.domain, ctx.secret)}` },
      signal: abort.signal,
    });
    if (response.status !== 200) error = `HTTP ${response.status}`;
    else if (response.body) {
      for await (const chunk of response.body) {
        const bytesOf = chunk as Uint8Array;
        bytes += bytesOf.byteLength;
        for (const b of bytesOf) if (b === 10) newlines++;
      }
      complete = true;
    }
  } catch (e) {
    if (!abort.signal.aborted) error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
  } finally {
    clearTimeout(timer);
    clearInterval(sampler);
  }
  const seconds = (performance.now() - started) / 1000;
  // Let the app notice the cut and settle before counting its statements.
  if (!complete) await new Promise((resolve) => setTimeout(resolve, 2_000));
  const after = (await ctx.app.stats()).statements;
  const rows = Math.max(0, newlines - 1);
  const secondsAll = complete
    ? seconds
    : expectedRows && rows > 0
      ? (seconds * expectedRows) / rows
      : Number.NaN;
  return {
    seconds,
    complete,
    rows,
    expectedRows,
    secondsAll,
    bytes,
    rssBeforeMb: rssBefore === null ? null : rssBefore / 2 ** 20,
    rssPeakMb: rssPeak ? rssPeak / 2 ** 20 : null,
    statements: after - before,
    error,
  };
}

export interface RatioResult {
  ratio: number;
  rounds: number;
  alone: Array<{ kind: string; p50: number; p95: number }>;
  beside: Array<{ kind: string; p50: number; p95: number }>;
  bigRequests: number;
  bigErrors: string[];
}

/**
 * A small shop's requests alone, then beside a big shop's merchant loading pages back to back (one
 * client, its requests aborted when the small shop is done): the sum over request kinds of the p50
 * beside, over the sum alone.
 */
export async function measureSmallShopRatio(
  ctx: RequestContext,
  small: ShopUnderTest,
  big: ShopUnderTest,
  rounds: number,
): Promise<RatioResult> {
  const mix: Array<[string, (i: number) => Promise<Timed>]> = [
    ['shipments', () => apiGet(ctx, small, '/shipments', false, false)],
    ['overview', () => apiGet(ctx, small, '/overview', false, false)],
    ['analytics', () => apiGet(ctx, small, '/analytics?days=90', false, false)],
    [
      'search',
      (i) =>
        apiGet(
          ctx,
          small,
          `/shipments?search=${encodeURIComponent(small.numbers[i % small.numbers.length]!)}`,
          false,
          false,
        ),
    ],
    [
      'proxy_number',
      (i) => proxyGet(ctx, small, { tracking: small.numbers[(i + 3) % small.numbers.length]! }, false),
    ],
  ];
  const run = async () => {
    const samples = new Map<string, number[]>(mix.map(([k]) => [k, []]));
    for (let i = 0; i < rounds; i++)
      for (const [kind, one] of mix) {
        const t = await one(i);
        if (t.error === null) samples.get(kind)!.push(t.ms);
      }
    return [...samples].map(([kind, ms]) => ({ kind, p50: median(ms), p95: percentile(ms, 95) }));
  };
  // Warm the small shop's pages once.
  for (const [, one] of mix) await one(0);
  const alone = await run();

  const stop = new AbortController();
  let bigRequests = 0;
  const bigErrors = new Set<string>();
  const bigPaths = ['/shipments', '/overview', '/analytics?days=90', '/carriers/seen'];
  const background = (async () => {
    for (let i = 0; !stop.signal.aborted; i++) {
      const t = await timedRequest(`${ctx.app.url}/api${bigPaths[i % bigPaths.length]}`, {
        headers: { Authorization: `Bearer ${sessionToken(big.domain, ctx.secret)}` },
        timeoutMs: ctx.sampling.timeoutMs,
        signal: stop.signal,
      });
      bigRequests++;
      if (t.error && !stop.signal.aborted) bigErrors.add(t.error);
    }
  })();
  // Let the big shop's first request get going.
  await new Promise((resolve) => setTimeout(resolve, 200));
  const beside = await run();
  stop.abort();
  await background;
  const sum = (list: Array<{ p50: number }>) => list.reduce((n, k) => n + k.p50, 0);
  return { ratio: sum(beside) / sum(alone), rounds, alone, beside, bigRequests, bigErrors: [...bigErrors] };
}
