import { type CarrierRepository, carrierOverrides } from '../carriers/carrier-repository.js';
import type { DatabaseClient } from '../db/client.js';
import type { Logger } from '../logger.js';
import type { TrackingClient } from '../tracking/client.js';
import { remapLines } from './desired-state.js';
import { inTransaction } from '../db/transaction.js';
import { shopsWithWaitingLines } from '../shops/shop-repository.js';
import { safeReason } from '../errors/safe-reason.js';

export interface RefreshDeps {
  prisma: DatabaseClient;
  client: TrackingClient;
  carriers: CarrierRepository;
  logger: Logger;
}

/**
 * Fetches the service's carrier list into the cache, then gives every line still waiting for a carrier
 * another chance to match.
 */
export async function refreshCarriers(
  deps: RefreshDeps,
): Promise<{ carriers: number; linesMatched: number }> {
  const result = await deps.client.listProviders();
  if (!result.ok) throw new Error(`carrier list not refreshed: ${result.error.message}`);
  const carriers = await deps.carriers.replaceProviders(result.value);
  const linesMatched = await remapWaitingLines(deps);
  deps.logger.info({ carriers, linesMatched }, 'carrier list refreshed');
  return { carriers, linesMatched };
}

/** Every shop's lines still waiting for a carrier, matched again (after a refresh or a new mapping). */
export async function remapWaitingLines(deps: Pick<RefreshDeps, 'prisma' | 'carriers'>, shopId?: string) {
  const matcher = await deps.carriers.matcher();
  const shops = await shopsWithWaitingLines(deps.prisma, shopId);
  let matched = 0;
  for (const shop of shops) {
    const outcome = await inTransaction(deps.prisma, async (tx) =>
      remapLines(tx, shop, { matcher, overrides: await carrierOverrides(tx, shop.id) }),
    );
    matched += outcome.linesRemapped - outcome.stillWaiting;
  }
  return matched;
}

/** The daily refresh, run by one process of the fleet (the one that claims it). */
export async function refreshCarriersIfDue(deps: RefreshDeps): Promise<void> {
  if (!(await deps.carriers.claimRefresh(new Date()))) return;
  try {
    await refreshCarriers(deps);
  } catch (error) {
    deps.logger.warn({ err: safeReason(error) }, 'carrier refresh failed; will try again');
    await deps.carriers.scheduleRefreshRetry();
  }
}
