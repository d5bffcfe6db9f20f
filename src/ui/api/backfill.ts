import type { AppContext } from '../../context/app-context.js';
import { z } from 'zod';
import type { BackfillJob } from '../../generated/sqlite/client.js';
import { BACKFILL_MAX_DAYS, latestBackfill, startBackfill } from '../../jobs/backfill.js';
import { currentShop } from './current-shop.js';

export const backfillBody = z.object({ days: z.number().int().min(1).max(BACKFILL_MAX_DAYS) }).strict();
export type BackfillBody = z.output<typeof backfillBody>;

export interface BackfillView {
  state: string;
  days: number;
  pagesDone: number;
  fulfillmentsSeen: number;
  trackersWanted: number;
  error: string | null;
  startedAt: string;
  finishedAt: string | null;
}

function view(job: BackfillJob | null): BackfillView | null {
  if (!job) return null;
  return {
    state: job.state,
    days: job.days,
    pagesDone: job.pagesDone,
    fulfillmentsSeen: job.fulfillmentsSeen,
    trackersWanted: job.trackersWanted,
    error: job.error,
    startedAt: job.startedAt.toISOString(),
    finishedAt: job.finishedAt?.toISOString() ?? null,
  };
}

/** Starts (or returns the running) backfill of the session's shop. */
export async function startShopBackfill(
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
  body: BackfillBody,
): Promise<{ job: BackfillView | null }> {
  const shop = await currentShop(ctx.shops, domain);
  return { job: view(await startBackfill(ctx.prisma, shop.id, body.days)) };
}

/** The session's shop's newest backfill, or null. */
export async function getShopBackfill(
  ctx: Pick<AppContext, 'prisma' | 'shops'>,
  domain: string,
): Promise<{ job: BackfillView | null }> {
  const shop = await ctx.shops.findByDomain(domain);
  return { job: shop ? view(await latestBackfill(ctx.prisma, shop.id)) : null };
}
