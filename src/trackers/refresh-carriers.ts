import type { AppContext } from '../context/app-context.js';
import { carrierOverrides } from '../carriers/carrier-repository.js';
import { remapLines } from './desired-state.js';
import { inTransaction } from '../db/transaction.js';
import { shopsWithWaitingLines } from '../shops/shop-repository.js';
import { safeReason } from '../errors/safe-reason.js';

/**
 * Fetches the service's carrier list into the cache, then gives every line still waiting for a carrier
 * another chance to match.
 */
export async function refreshCarriers(
  ctx: Pick<AppContext, 'prisma' | 'client' | 'carriers' | 'logger'>,
): Promise<{ carriers: number; linesMatched: number }> {
  const result = await ctx.client.listProviders();
  if (!result.ok) throw new Error(`carrier list not refreshed: ${result.error.message}`);
  const carriers = await ctx.carriers.replaceProviders(result.value);
  const linesMatched = await remapWaitingLines(ctx);
  ctx.logger.info({ carriers, linesMatched }, 'carrier list refreshed');
  return { carriers, linesMatched };
}

/** Every shop's lines still waiting for a carrier, matched again (after a refresh or a new mapping). */
export async function remapWaitingLines(ctx: Pick<AppContext, 'prisma' | 'carriers'>, shopId?: string) {
  const matcher = await ctx.carriers.matcher();
  const shops = await shopsWithWaitingLines(ctx.prisma, shopId);
  let matched = 0;
  for (const shop of shops) {
    const outcome = await inTransaction(ctx.prisma, async (tx) =>
      remapLines(tx, shop, { matcher, overrides: await carrierOverrides(tx, shop.id) }),
    );
    matched += outcome.linesRemapped - outcome.stillWaiting;
  }
  return matched;
}

/** The daily refresh, run by one process of the fleet (the one that claims it). */
export async function refreshCarriersIfDue(
  ctx: Pick<AppContext, 'prisma' | 'client' | 'carriers' | 'logger'>,
): Promise<void> {
  if (!(await ctx.carriers.claimRefresh(new Date()))) return;
  try {
    await refreshCarriers(ctx);
  } catch (error) {
    ctx.logger.warn({ err: safeReason(error) }, 'carrier refresh failed; will try again');
    await ctx.carriers.scheduleRefreshRetry();
  }
}
