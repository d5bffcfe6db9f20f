import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../../src/db/client.js';
import { statusRows } from '../../../src/shipments/parcel-model.js';
import type { Analytics } from '../../../src/ui/api/analytics.js';
import type { Overview } from '../../../src/ui/api/overview.js';
import type { ProblemsPage } from '../../../src/ui/api/problems.js';
import type { ShipmentsList } from '../../../src/ui/api/shipment-list.js';
import { healthWords } from '../../../src/ui/vocabulary.js';
import { cliEnv, killRunningClis, runCli } from '../../cli/cli-process.js';
import { createTracker, type TrackerOverrides } from '../../helpers/factories.js';
import { type PageApiHarness, startPageApi, uniqueName } from './harness.js';

/**
 * Issue 32, "one parcel, one story": the parcel the tracking service cannot follow (invalid_carrier, PostNL
 * in the dev samples) and a cancelled fulfilment are told the same way by every view — the Shipments list,
 * Needs attention, the CSV, the CLI and the Overview — and the Overview's count equals the list's rows.
 */

let api: PageApiHarness;
let prisma: DatabaseClient;
let shop: { domain: string; id: string };

const wrongCarrier = statusRows.invalid_carrier!;
const today = new Date().toISOString().slice(0, 10);

async function seedLine(
  number: string,
  orderId: string,
  tracker: TrackerOverrides,
  line: { carrierName: string; active?: boolean; endedReason?: string } = { carrierName: 'UPS' },
): Promise<string> {
  const t = await createTracker(prisma, shop.id, { trackingNumber: number, ...tracker });
  await prisma.trackingLine.create({
    data: {
      shopId: shop.id,
      fulfillmentId: `f-${orderId}`,
      fulfillmentName: `#${orderId}.1`,
      orderId,
      orderName: `#${orderId}`,
      trackingNumber: number,
      carrierName: line.carrierName,
      carrierKey: line.carrierName.toLowerCase(),
      trackingUrl: `https://carrier.example/track/${number}`,
      active: line.active ?? true,
      endedReason: line.endedReason ?? null,
      trackerId: t.id,
    },
  });
  return t.id;
}

beforeAll(async () => {
  api = await startPageApi();
  prisma = api.app.database.prisma;
  const domain = `${uniqueName('story')}.myshopify.com`;
  await api.as(domain).get('/shop');
  shop = { domain, id: (await prisma.shop.findUniqueOrThrow({ where: { domain } })).id };
  const followed = { desired: 'active', remote: 'present', syncState: 'synced' } as const;
  const postnl = await seedLine(
    'POSTNL-0001',
    '1001',
    { ...followed, provider: 'postnl', status: 'invalid_carrier', estimatedDelivery: '2026-11-29' },
    { carrierName: 'PostNL' },
  );
  await prisma.shipmentProblem.create({
    data: {
      shopId: shop.id,
      trackerId: postnl,
      kind: 'tracking_problem',
      since: new Date(),
      detail: 'invalid_carrier',
    },
  });
  await seedLine('UPS-MOVING-01', '1002', {
    ...followed,
    status: 'in_transit',
    estimatedDelivery: '2026-11-30',
  });
  await seedLine(
    'UPS-CANCEL-01',
    '1003',
    {
      desired: 'removed',
      remote: 'absent',
      syncState: 'synced',
      status: 'pre_transit',
      statusDetail: 'label_created',
      estimatedDelivery: '2026-11-29',
    },
    { carrierName: 'UPS', active: false, endedReason: 'fulfillment_cancelled' },
  );
});
afterAll(async () => {
  killRunningClis();
  api?.expectNoKeyLeaked();
  await api?.close();
});

async function shipments(query = ''): Promise<ShipmentsList> {
  const res = await api.as(shop.domain).get(`/shipments${query}`);
  expect(res.status).toBe(200);
  return res.body as ShipmentsList;
}

describe('the parcel the service cannot follow (invalid_carrier)', () => {
  it('Shipments: the model’s label, one advice, the action in Settings → Carrier mapping, counted in Needs action', async () => {
    const list = await shipments();
    const row = list.rows.find((r) => r.trackingNumber === 'POSTNL-0001')!;
    expect(row.parcel).toMatchObject({
      group: 'not_followed',
      label: wrongCarrier.label,
      advice: wrongCarrier.advice,
      action: wrongCarrier.action,
    });
    expect(row.estimatedDelivery).toBeNull();
    expect(row.estimate).toBeNull();
    expect(row.sync.problem).toBe(true);
    expect(list.counts.sync.problem).toBe(1);
    const needsAction = await shipments('?sync=problem');
    expect(needsAction.rows.map((r) => r.trackingNumber)).toEqual(['POSTNL-0001']);
    expect(needsAction.total).toBe(1);
  });

  it('Needs attention: the same label on its badge, ONE advice and the same action, no raw code', async () => {
    const res = await api.as(shop.domain).get('/problems');
    expect(res.status).toBe(200);
    const page = res.body as ProblemsPage;
    const problem = page.problems.find((p) => p.shipment.trackingNumber === 'POSTNL-0001')!;
    expect(problem.advice).toBe(wrongCarrier.advice);
    expect(problem.action).toEqual(wrongCarrier.action);
    expect(problem).not.toHaveProperty('todo');
    expect(problem.shipment.status).toMatchObject({ label: wrongCarrier.label, tone: 'exception' });
    expect(problem.shipment.status).not.toHaveProperty('advice');
    expect(problem.shipment.status).not.toHaveProperty('action');
    expect(problem.detail).toBe(wrongCarrier.label);
    expect(JSON.stringify({ ...problem, shipment: { ...problem.shipment, status: null } })).not.toMatch(
      /invalid_carrier/,
    );
  });

  it('CSV: the same label and advice, no estimate, columns named for what they hold', async () => {
    const res = await api.as(shop.domain).get('/shipments.csv');
    expect(res.status).toBe(200);
    const [header, ...lines] = res.text
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    const columns = header!.split(',');
    expect(columns).toContain('What to do');
    expect(columns).toContain('Carrier tracking page');
    expect(columns).not.toContain('Tracking page');
    const cells = (number: string) => {
      const line = lines.find((l) => l.includes(number))!;
      const values = line
        .match(/("([^"]|"")*"|[^,]*)(,|$)/g)!
        .map((v) => v.replace(/,$/, '').replace(/^"|"$/g, ''));
      return Object.fromEntries(columns.map((c, i) => [c, values[i]]));
    };
    const postnl = cells('POSTNL-0001');
    expect(postnl['Parcel status']).toBe(wrongCarrier.label);
    expect(postnl['What to do']).toBe(wrongCarrier.advice);
    expect(postnl['Estimated delivery']).toBe('');
    expect(postnl['Carrier tracking page']).toBe('https://carrier.example/track/POSTNL-0001');
    const cancelled = cells('UPS-CANCEL-01');
    expect(cancelled['Parcel status']).toBe('Fulfilment cancelled');
    expect(cancelled['Estimated delivery']).toBe('');
    expect(cells('UPS-MOVING-01')['Estimated delivery']).toBe('2026-11-30');
  });

  it('CLI: trackers:list prints the same label and advice, and no estimate', async () => {
    const env = cliEnv({
      databaseUrl: api.app.database.url,
      trackingApiBaseUrl: api.app.emulator.baseUrl,
      encryptionKey: api.app.config.encryptionKey,
    });
    const out = await runCli(['trackers:list', '--shop', shop.domain, '--json'], env);
    expect(out.code).toBe(0);
    const json = JSON.parse(out.stdout) as {
      trackers: Array<{
        trackingNumber: string;
        estimatedDelivery: string | null;
        parcel: { label: string; advice: string | null; action: unknown } | null;
      }>;
    };
    const postnl = json.trackers.find((t) => t.trackingNumber === 'POSTNL-0001')!;
    expect(postnl.parcel).toEqual({
      label: wrongCarrier.label,
      advice: wrongCarrier.advice,
      action: wrongCarrier.action,
    });
    expect(postnl.estimatedDelivery).toBeNull();
    const cancelled = json.trackers.find((t) => t.trackingNumber === 'UPS-CANCEL-01')!;
    expect(cancelled.parcel?.label).toBe('Fulfilment cancelled');
    expect(cancelled.estimatedDelivery).toBeNull();
    const text = await runCli(['trackers:list', '--shop', shop.domain], env);
    expect(text.stdout).toMatch(/POSTNL-0001.*Not followed: wrong carrier/);
    expect(text.stdout).not.toMatch(/POSTNL-0001.*2026-11-29/);
  });

  it('Overview: counted as needing action, and the carrier line does not say every carrier is matched', async () => {
    const res = await api.as(shop.domain).get('/overview');
    expect(res.status).toBe(200);
    const overview = res.body as Overview;
    const health = Object.fromEntries(overview.health.map((h) => [h.key, h]));
    expect(health.not_followed).toMatchObject({
      count: 1,
      filter: { parcel: 'not_followed', sync: 'tracked' },
    });
    expect(healthWords(health.not_followed!).text).toMatch(/not followed/);
    for (const item of overview.health)
      expect(healthWords(item).text).not.toMatch(/Every carrier is matched/);
    expect(overview.setup.steps.find((s) => s.key === 'carriers')!.done).toBe(false);
    // The line links to exactly those rows.
    expect((await shipments('?parcel=not_followed&sync=tracked')).total).toBe(1);
  });
});

describe('summaries equal their rows', () => {
  it('the Overview’s Shipments figure is the Shipments page’s count of the same days, cancelled fulfilments included', async () => {
    for (const days of [7, 30, 90]) {
      const res = await api.as(shop.domain).get(`/analytics?days=${days}`);
      expect(res.status).toBe(200);
      const analytics = res.body as Analytics;
      const { from, to } = analytics.shipments.filter;
      expect(to).toBe(today);
      const list = await shipments(`?from=${from}&to=${to}`);
      expect(analytics.shipments.count).toBe(list.total);
      expect(list.rows).toHaveLength(list.total);
      expect(list.total).toBe(3);
    }
  });

  it('a cancelled fulfilment shows its cancellation and no estimate on the page', async () => {
    const row = (await shipments()).rows.find((r) => r.trackingNumber === 'UPS-CANCEL-01')!;
    expect(row.parcel).toMatchObject({ label: 'Fulfilment cancelled', tone: 'ended' });
    expect(row.estimatedDelivery).toBeNull();
    expect(row.estimate).toBeNull();
    const detail = await api.as(shop.domain).get(`/shipments/${row.trackerId}`);
    expect(detail.status).toBe(200);
    expect(detail.body.estimate).toBeNull();
    expect(detail.body.tracker.estimatedDelivery).toBeNull();
    expect(detail.body.tracker.status.label).toBe('Fulfilment cancelled');
  });

  it('a cancelled fulfilment is counted and filtered where its badge says it is: Ended, not Label created', async () => {
    const list = await shipments();
    const row = list.rows.find((r) => r.trackingNumber === 'UPS-CANCEL-01')!;
    expect(row.parcel.group).toBe('ended');
    expect(list.counts.parcel.ended).toBe(1);
    expect(list.counts.parcel.info_received).toBe(0);
    // The facet's count is the filtered list's rows (the summary equals its rows).
    const ended = await shipments('?parcel=ended');
    expect(ended.rows.map((r) => r.trackingNumber)).toEqual(['UPS-CANCEL-01']);
    expect(ended.total).toBe(1);
    expect((await shipments('?parcel=info_received')).rows).toEqual([]);
  });
});
