import type { AppContext } from '../../context/app-context.js';
import { z } from 'zod';
import { type DeliverySums, deliverySums, transitP90Tenths } from '../../shipments/queries/analytics.js';
import { shipmentCounts } from '../../shipments/queries/shipment-list.js';
import { type ParcelGroup, parcelGroups } from '../vocabulary.js';
import { currentShop } from './current-shop.js';

export const analyticsQuery = z.object({
  days: z.enum(['7', '30', '90'], { error: 'days must be 7, 30 or 90' }).transform(Number),
});

const dayMs = 86_400_000;

export interface DeliveryFigures {
  shipments: number;
  delivered: number;
  /** Days from the first carrier scan (else the tracker's creation) to delivery; one decimal. */
  avgTransitDays: number | null;
  /** 90th percentile (nearest rank) of the transit times in tenths of a day. */
  p90TransitDays: number | null;
  /** Delivered on or before the service's estimated delivery date, of those delivered with one. */
  onTime: { measured: number; onTime: number; rate: number | null };
  /** Shipments whose history or status ever had an exception. */
  exceptions: number;
  /** Shipments whose history or status ever had a failed delivery attempt. */
  failedAttempts: number;
}

export interface CarrierAnalytics extends DeliveryFigures {
  provider: string;
  label: string;
}

export interface Analytics {
  days: number;
  /** The first UTC day counted, 00:00, and now. */
  from: string;
  to: string;
  byStatus: Record<ParcelGroup, number>;
  /**
   * The Overview's "Shipments" figure: the Shipments page's own count for the same UTC days (`filter`, its
   * from/to), so the summary equals the rows it links to. A cancelled fulfilment counts, as a row of the
   * Shipments page shown as cancelled (both pages say so). The delivery figures below are the wanted
   * trackers' (transit, on time…).
   */
  shipments: { count: number; filter: { from: string; to: string } };
  total: DeliveryFigures;
  carriers: CarrierAnalytics[];
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function figuresOf(sums: readonly DeliverySums[], p90Tenths: number | undefined): DeliveryFigures {
  const total = (key: keyof Omit<DeliverySums, 'provider' | 'parcelGroup'>) =>
    sums.reduce((n, s) => n + s[key], 0);
  const transitCount = total('transitCount');
  const measured = total('onTimeMeasured');
  const onTime = total('onTime');
  return {
    shipments: total('shipments'),
    delivered: sums.filter((s) => s.parcelGroup === 'delivered').reduce((n, s) => n + s.shipments, 0),
    avgTransitDays: transitCount ? round1(total('transitSeconds') / transitCount / 86_400) : null,
    p90TransitDays: p90Tenths === undefined ? null : p90Tenths / 10,
    onTime: { measured, onTime, rate: measured ? onTime / measured : null },
    exceptions: total('exceptions'),
    failedAttempts: total('failedAttempts'),
  };
}

/**
 * Delivery analytics over the shop's wanted trackers created in the last `days` UTC days (today
 * included), beside the Shipments page's count of those days (`shipments`): shipments by status, transit times, on-time rate against the service's estimate, exceptions
 * and failed attempts, per carrier and in total. Sums of the DeliveryCount rollup, exact at any size. The
 * estimate's time zone is not stated by the service: a delivery counts as on time up to the end of that
 * day in UTC (src/shipments/delivery-facts.ts).
 */
export async function deliveryAnalytics(
  ctx: Pick<AppContext, 'prisma' | 'shops' | 'carriers'>,
  domain: string,
  days: number,
  now: Date = new Date(),
): Promise<Analytics> {
  const shop = await currentShop(ctx.shops, domain);
  const today = Date.parse(`${now.toISOString().slice(0, 10)}T00:00:00.000Z`);
  const from = new Date(today - (days - 1) * dayMs);
  const range = { from: from.toISOString().slice(0, 10), to: now.toISOString().slice(0, 10) };
  const [sums, p90, cells] = await Promise.all([
    deliverySums(ctx.prisma, shop.id, range),
    transitP90Tenths(ctx.prisma, shop.id, range),
    shipmentCounts(ctx.prisma, shop.id, range),
  ]);
  const labels = await ctx.carriers.labelsOf(sums.map((s) => s.provider));
  const byStatus = Object.fromEntries(parcelGroups.map((g) => [g, 0])) as Record<ParcelGroup, number>;
  for (const s of sums) byStatus[s.parcelGroup] += s.shipments;
  const carriers = [...new Set(sums.map((s) => s.provider))]
    .map((provider) => ({
      provider,
      label: labels.get(provider) ?? provider,
      ...figuresOf(
        sums.filter((s) => s.provider === provider),
        p90.get(provider),
      ),
    }))
    .sort((a, b) => b.shipments - a.shipments || a.label.localeCompare(b.label));
  return {
    days,
    from: from.toISOString(),
    to: now.toISOString(),
    byStatus,
    shipments: { count: cells.reduce((n, c) => n + c.count, 0), filter: range },
    total: figuresOf(sums, p90.get(null)),
    carriers,
  };
}
