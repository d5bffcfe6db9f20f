import { type CarrierRepository, createCarrierRepository } from '../carriers/carrier-repository.js';
import type { DatabaseClient } from '../db/client.js';
import type { Logger } from '../logger.js';
import type { EncryptionKeyring } from '../shops/crypto.js';
import { createShopRepository, type ShopRepository } from '../shops/shop-repository.js';
import type { TrackingClient } from '../tracking/client.js';

/**
 * What every use case works with, built once at the composition root (src/app/runtime.ts) and handed down
 * whole: the one database client, the shops' and carriers' repositories, the tracking service's client and
 * the logger. A use case names the parts it reads (`Pick<AppContext, 'prisma' | 'shops'>`) and takes its
 * own settings as arguments; none assembles a bag of its own, and none is given one per call.
 */
export interface AppContext {
  prisma: DatabaseClient;
  logger: Logger;
  /** Shops and their sealed credentials (opened only inside the repository). */
  shops: ShopRepository;
  /** The service's carrier list and the shops' carrier mappings. */
  carriers: CarrierRepository;
  /** The tracking service's one client (timeouts, bounded reads, retries where safe). */
  client: TrackingClient;
}

/** The context over one database: its repositories are made here, once. */
export function createAppContext(parts: {
  prisma: DatabaseClient;
  logger: Logger;
  keyring: EncryptionKeyring;
  client: TrackingClient;
}): AppContext {
  return {
    prisma: parts.prisma,
    logger: parts.logger,
    shops: createShopRepository(parts.prisma, parts.keyring),
    carriers: createCarrierRepository(parts.prisma),
    client: parts.client,
  };
}
