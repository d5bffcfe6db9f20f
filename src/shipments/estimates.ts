import type { DatabaseClient } from '../db/client.js';
import type { Tracker } from '../generated/sqlite/client.js';
import { transitStartOf } from './delivery-facts.js';
import {
  noteTransitKey,
  removeTransitStat,
  saveTransitStat,
  staleTransitKeys,
  transitFigures,
  transitStatOf,
  type TransitKey,
} from './queries/analytics-transit.js';
import type { StoredEvent } from './status.js';
import { isFinalStatus, parcelOf } from './parcel-model.js';

/**
 * Delivery estimates. The service's own (Tracker.estimatedDelivery) is kept as given; where it gives none,
 * one is predicted from the shop's own delivered parcels of the same carrier and destination country: the
 * first carrier scan (else the tracker's creation) plus the median transit of the last 90 days, once at
 * least 30 such parcels were delivered (TransitStat, kept by `refreshTransitStats`). A predicted estimate
 * is labelled so wherever it is shown.
 */

/** Parcels needed before a key's median is trusted for predictions. */
export const minTransitSamples = 30;
/** The deliveries the statistics are taken from. */
export const transitWindowDays = 90;
/** A key's figures are recomputed once they are this old. */
export const transitStatsRefreshMs = 12 * 3_600_000;

const dayMs = 86_400_000;

/** An estimate as shown: the date text, and whether tracksync predicted it (else the service gave it). */
export interface Estimate {
  date: string;
  predicted: boolean;
}

/** What the estimates are decided from: the tracker's stored status and both estimates. */
export type EstimateSource = Pick<
  Tracker,
  'status' | 'statusDetail' | 'estimatedDelivery' | 'predictedDelivery'
>;

/**
 * The estimate the merchant sees: the service's, else the predicted one; none at all where the parcel
 * model says an estimate means nothing (a tracker the service cannot follow, a cancelled parcel), nor for a
 * line that ended in the store (`ended`: its fulfilment or order cancelled, its number removed).
 */
export function estimateOf(parcel: EstimateSource, ended: string | null = null): Estimate | null {
  if (ended || !parcelOf(parcel.status, parcel.statusDetail).estimates) return null;
  if (parcel.estimatedDelivery) return { date: parcel.estimatedDelivery, predicted: false };
  if (parcel.predictedDelivery) return { date: parcel.predictedDelivery, predicted: true };
  return null;
}

/** The estimate the shopper sees: as the merchant's, but only for a parcel still on its way. */
export function arrivalEstimateOf(parcel: EstimateSource, ended: string | null = null): Estimate | null {
  return isFinalStatus(parcel.status) ? null : estimateOf(parcel, ended);
}

/** Whether a parcel in this status gets a predicted estimate: on its way, and followed by the service. */
export function predictable(status: string | null, statusDetail: string | null): boolean {
  return !isFinalStatus(status) && parcelOf(status, statusDetail).estimates;
}

/** The start of the transit plus the median transit, as a UTC date (YYYY-MM-DD). */
export function predictedDate(startMs: number, medianSeconds: number): string {
  return new Date(startMs + medianSeconds * 1000).toISOString().slice(0, 10);
}

/** The key of a tracker's statistics. */
export function transitKeyOf(
  tracker: Pick<Tracker, 'shopId' | 'provider' | 'destinationCountry'>,
): TransitKey {
  return {
    shopId: tracker.shopId,
    provider: tracker.provider,
    destinationCountry: tracker.destinationCountry ?? '',
  };
}

/**
 * The predicted estimate to store with a read: null when the service gave its own, when the parcel is
 * delivered, final or not followed, or when its key has too few deliveries (no TransitStat row). One
 * primary-key read, only when a prediction may be made.
 */
export async function predictedDeliveryOf(
  prisma: DatabaseClient,
  tracker: Pick<Tracker, 'shopId' | 'provider' | 'destinationCountry' | 'createdAt'>,
  read: {
    status: string;
    statusDetail: string | null;
    estimatedDelivery: string | null;
    events: readonly StoredEvent[];
  },
): Promise<string | null> {
  if (read.estimatedDelivery !== null || !predictable(read.status, read.statusDetail)) return null;
  const stat = await transitStatOf(prisma, transitKeyOf(tracker));
  if (!stat || stat.samples < minTransitSamples) return null;
  return predictedDate(transitStartOf(read.events, tracker.createdAt), stat.medianSeconds);
}

export interface TransitStatsPass {
  /** Keys recomputed at most in this call. */
  batch: number;
  now: Date;
  /** Keys computed more recently than this are left alone (default 12 hours). */
  refreshAfterMs?: number;
}

export interface TransitStatsResult {
  /** Rows written (new or recomputed). */
  saved: number;
  /** Rows removed: their key has fallen below the samples needed. */
  removed: number;
}

/**
 * One pass over the transit statistics: recomputes at most `batch` keys, those whose row is oldest first
 * (rows younger than `refreshAfterMs` are left), then keys with no row yet that now have enough deliveries.
 * A key with fewer than 30 parcels delivered in the last 90 days keeps no row. Two statements per key (its
 * figures, its write), plus the choice of keys: run it every 15 minutes or so with a batch of a few
 * hundred.
 */
export async function refreshTransitStats(
  prisma: DatabaseClient,
  pass: TransitStatsPass,
): Promise<TransitStatsResult> {
  const since = new Date(pass.now.getTime() - transitWindowDays * dayMs);
  const staleBefore = new Date(pass.now.getTime() - (pass.refreshAfterMs ?? transitStatsRefreshMs));
  const stale = await staleTransitKeys(prisma, staleBefore, pass.batch);
  const result: TransitStatsResult = { saved: 0, removed: 0 };
  for (const key of stale) {
    const figures = await transitFigures(prisma, key, since);
    // Kept with fewer than 30 samples too (it predicts nothing then), so the key is not looked for again.
    if (figures) {
      await saveTransitStat(prisma, key, figures, pass.now);
      result.saved++;
    } else {
      result.removed += await removeTransitStat(prisma, key);
    }
  }
  return result;
}

/** A parcel just delivered: its key is made known to the statistics pass (once; see noteTransitKey). */
export function noteDelivered(
  prisma: DatabaseClient,
  tracker: Pick<Tracker, 'shopId' | 'provider' | 'destinationCountry'>,
): Promise<void> {
  return noteTransitKey(prisma, transitKeyOf(tracker));
}
