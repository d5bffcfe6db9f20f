import type { DatabaseClient } from '../db/client.js';
import { shipmentsCountedSince } from './queries/shipment-counts.js';

/**
 * How long the tracking service balance lasts at the shop's current volume: parcels taken in the last 14
 * days (from the ShipmentCount rollup and its pending deltas: a few rows per day, whatever the shop's size)
 * against the balance the service last reported with a create. Warned about when it lasts fewer days than
 * the shop's `balanceWarnDays`. At 0 the existing pause ("balance exhausted") stays as it is.
 */

export const forecastDays = 14;

export interface BalanceForecast {
  /** Parcels a day, averaged over the last 14 days. */
  perDay: number;
  /** Whole days the balance lasts at that rate; null when nothing was taken (it lasts). */
  daysLeft: number | null;
  /** Lasts fewer days than the shop's threshold. */
  warn: boolean;
}

export async function balanceForecast(
  prisma: DatabaseClient,
  shop: { id: string; trackersBalance: number | null; balanceWarnDays: number },
  now: Date = new Date(),
): Promise<BalanceForecast | null> {
  if (shop.trackersBalance === null) return null;
  const from = new Date(now.getTime() - (forecastDays - 1) * 86_400_000).toISOString().slice(0, 10);
  const perDay = (await shipmentsCountedSince(prisma, shop.id, from)) / forecastDays;
  const daysLeft = perDay > 0 ? Math.floor(shop.trackersBalance / perDay) : null;
  return { perDay, daysLeft, warn: daysLeft !== null && daysLeft < shop.balanceWarnDays };
}
