import { z } from 'zod';
import type { CarrierRepository } from '../../carriers/carrier-repository.js';
import type { DatabaseClient } from '../../db/client.js';
import type { ShopRepository } from '../../shops/shop-repository.js';
import { type ParcelGroup, parcelGroupOf, parcelGroups } from '../vocabulary.js';
import { currentShop } from './current-shop.js';
import { storedEventsOf } from './shipment-status.js';

export const analyticsQuery = z.object({
  days: z.enum(['7', '30', '90'], { error: 'days must be 7, 30 or 90' }).transform(Number),
});

/** At most this many of the period's newest trackers are read (the answer says when there were more). */
export const analyticsTrackerCap = 20_000;

const dayMs = 86_400_000;

export interface DeliveryFigures {
  shipments: number;
  delivered: number;
  /** Days from the first carrier scan (else the tracker's creation) to delivery; one decimal. */
  avgTransitDays: number | null;
  /** 90th percentile, nearest rank. */
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
  from: string;
  to: string;
  byStatus: Record<ParcelGroup, number>;
  total: DeliveryFigures;
  carriers: CarrierAnalytics[];
  truncated: boolean;
}

interface Measured {
  delivered: boolean;
  transitDays: number | null;
  onTime: boolean | null;
  exception: boolean;
  failedAttempt: boolean;
}

const round1 = (n: number) => Math.round(n * 10) / 10;

/** Nearest-rank percentile of sorted values. */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

function figuresOf(items: Measured[]): DeliveryFigures {
  const transit = items
    .map((m) => m.transitDays)
    .filter((d): d is number => d !== null)
    .sort((a, b) => a - b);
  const measured = items.filter((m) => m.onTime !== null);
  const onTime = measured.filter((m) => m.onTime).length;
  return {
    shipments: items.length,
    delivered: items.filter((m) => m.delivered).length,
    avgTransitDays: transit.length ? round1(transit.reduce((a, b) => a + b, 0) / transit.length) : null,
    p90TransitDays: transit.length ? round1(percentile(transit, 90)!) : null,
    onTime: { measured: measured.length, onTime, rate: measured.length ? onTime / measured.length : null },
    exceptions: items.filter((m) => m.exception).length,
    failedAttempts: items.filter((m) => m.failedAttempt).length,
  };
}

/** A date text (YYYY-MM-DD first) → the end of that day in UTC; null when not a date. */
function endOfDay(text: string | null): number | null {
  const match = /^(\d{4}-\d{2}-\d{2})/.exec(text ?? '');
  if (!match) return null;
  const start = Date.parse(`${match[1]}T00:00:00Z`);
  return Number.isNaN(start) ? null : start + dayMs;
}

/**
 * Delivery analytics over the shop's trackers wanted and created in the last `days` days: shipments by
 * status, transit times, on-time rate against the service's estimate, exceptions and failed attempts,
 * per carrier and in total. The estimate's time zone is not stated by the service: a delivery counts as
 * on time up to the end of that day in UTC.
 */
export async function deliveryAnalytics(
  deps: { prisma: DatabaseClient; shops: ShopRepository; carriers: CarrierRepository },
  domain: string,
  days: number,
  now: Date = new Date(),
): Promise<Analytics> {
  const shop = await currentShop(deps.shops, domain);
  const from = new Date(now.getTime() - days * dayMs);
  const [trackers, providers] = await Promise.all([
    deps.prisma.tracker.findMany({
      where: { shopId: shop.id, desired: 'active', createdAt: { gte: from, lte: now } },
      select: {
        provider: true,
        status: true,
        statusDetail: true,
        events: true,
        estimatedDelivery: true,
        lastEventAt: true,
        createdAt: true,
      },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: analyticsTrackerCap + 1,
    }),
    deps.carriers.providers(),
  ]);
  const truncated = trackers.length > analyticsTrackerCap;
  const read = trackers.slice(0, analyticsTrackerCap);
  const labels = new Map(providers.map((p) => [p.slug, p.label]));
  const byStatus = Object.fromEntries(parcelGroups.map((g) => [g, 0])) as Record<ParcelGroup, number>;
  const byCarrier = new Map<string, Measured[]>();
  const all: Measured[] = [];

  for (const t of read) {
    const group = parcelGroupOf(t.status, t.statusDetail);
    byStatus[group] += 1;
    const events = storedEventsOf(t.events);
    const groups = events.map((e) => parcelGroupOf(e.status, e.statusDetail));
    const delivered = group === 'delivered';
    let transitDays: number | null = null;
    let onTime: boolean | null = null;
    if (delivered) {
      const times = events.map((e) => (e.at ? Date.parse(e.at) : Number.NaN));
      const deliveredIndex = groups.lastIndexOf('delivered');
      const deliveredAt =
        deliveredIndex >= 0 && !Number.isNaN(times[deliveredIndex]!)
          ? times[deliveredIndex]!
          : (t.lastEventAt?.getTime() ?? null);
      const firstScan = times.find((time) => !Number.isNaN(time)) ?? t.createdAt.getTime();
      if (deliveredAt !== null) {
        transitDays = Math.max(0, (deliveredAt - Math.min(firstScan, deliveredAt)) / dayMs);
        const due = endOfDay(t.estimatedDelivery);
        if (due !== null) onTime = deliveredAt < due;
      }
    }
    const measured: Measured = {
      delivered,
      transitDays,
      onTime,
      exception: group === 'exception' || groups.includes('exception'),
      failedAttempt: group === 'failed_attempt' || groups.includes('failed_attempt'),
    };
    all.push(measured);
    const list = byCarrier.get(t.provider) ?? [];
    list.push(measured);
    byCarrier.set(t.provider, list);
  }

  const carriers = [...byCarrier.entries()]
    .map(([provider, items]) => ({ provider, label: labels.get(provider) ?? provider, ...figuresOf(items) }))
    .sort((a, b) => b.shipments - a.shipments || a.label.localeCompare(b.label));
  return {
    days,
    from: from.toISOString(),
    to: now.toISOString(),
    byStatus,
    total: figuresOf(all),
    carriers,
    truncated,
  };
}
