import { createHash } from 'node:crypto';
import { type DatabaseClient, isUniqueViolation, type Tx } from '../db/client.js';
import { hotPathOf } from '../db/hot-path.js';
import { SqlParams } from '../db/sql.js';
import type { Prisma, Shop } from '../generated/sqlite/client.js';
import { type EncryptionKeyring, needsReseal, open, type SealedSecret, seal } from './crypto.js';
import { type PauseReason, pausedColumns } from './pause-reasons.js';

export type { Shop };

export interface ShopCredentials {
  apiKey: string;
  appName: string;
}

/** Why a shop's work is held. The first three come from the service; the rest from the store side. */
export type { PauseReason } from './pause-reasons.js';

export interface ShopSettings {
  createOnFulfillment: boolean;
  deleteOnCancel: boolean;
  orderIdSource: 'id' | 'name';
  /** Write the service's status changes to the store's order timeline as fulfilment events. */
  postFulfillmentEvents: boolean;
  /** Show an order as delivered in the app once every tracker of it is delivered. */
  showOrderDelivered: boolean;
  /** "Send customers to the store's tracking page": fulfilments' tracking links point at /apps/track. */
  linkToTrackingPage: boolean;
  /** While status pushes arrive, each shipment is still read at least every this many hours (1 to 168). */
  pushSafetyPollHours: number;
}

/** A shop as shown to operators and the page: never the key itself, only whether one is stored. */
export interface ShopView {
  id: string;
  domain: string;
  appName: string | null;
  hasApiKey: boolean;
  settings: ShopSettings;
  trackersBalance: number | null;
  userPlan: string | null;
  paused: { reason: string; message: string | null; since: Date } | null;
  uninstalledAt: Date | null;
}

export function viewOf(shop: Shop): ShopView {
  return {
    id: shop.id,
    domain: shop.domain,
    appName: shop.appName,
    hasApiKey: shop.apiKeyCiphertext !== null,
    settings: {
      createOnFulfillment: shop.createOnFulfillment,
      deleteOnCancel: shop.deleteOnCancel,
      orderIdSource: shop.orderIdSource === 'name' ? 'name' : 'id',
      postFulfillmentEvents: shop.postFulfillmentEvents,
      showOrderDelivered: shop.showOrderDelivered,
      linkToTrackingPage: shop.linkToTrackingPage,
      pushSafetyPollHours: shop.pushSafetyPollHours,
    },
    trackersBalance: shop.trackersBalance,
    userPlan: shop.userPlan,
    paused:
      shop.pausedReason && shop.pausedAt
        ? { reason: shop.pausedReason, message: shop.pausedMessage, since: shop.pausedAt }
        : null,
    uninstalledAt: shop.uninstalledAt,
  };
}

const newShop = (domain: string) => ({ domain, ...pausedColumns('not_connected') });

/** The shop row for a domain, made (not connected, so paused) when a delivery is the first we hear of it. */
export function ensureShop(db: DatabaseClient | Tx, domain: string): Promise<Shop> {
  return db.shop.upsert({ where: { domain }, update: {}, create: newShop(domain) });
}

/** The shop rows of these domains: id, domain and whether (when) the app was uninstalled. */
export function shopsInstallState(
  db: DatabaseClient | Tx,
  domains: string[],
): Promise<Array<{ id: string; domain: string; uninstalledAt: Date | null }>> {
  return db.shop.findMany({
    where: { domain: { in: domains } },
    select: { id: true, domain: true, uninstalledAt: true },
  });
}

/** app/uninstalled: the shop's row marked uninstalled, its work held. How many rows (0: unknown shop). */
export async function markShopUninstalled(tx: Tx, domain: string): Promise<number> {
  const now = new Date();
  const { count } = await tx.shop.updateMany({
    where: { domain },
    data: {
      uninstalledAt: now,
      // Share links made before an uninstall stay dead after a reinstall (src/proxy/view-link.ts).
      viewLinksValidFrom: now,
      ...pausedColumns('uninstalled'),
    },
  });
  return count;
}

/** The shop's pushes arrive: the newest arrival, kept only when later than the one stored. */
export async function noteStatusPushesUntil(
  prisma: DatabaseClient,
  shopId: string,
  newest: Date,
): Promise<void> {
  await prisma.shop.updateMany({
    where: { id: shopId, OR: [{ lastStatusPushAt: null }, { lastStatusPushAt: { lt: newest } }] },
    data: { lastStatusPushAt: newest },
  });
}

/** The shop's status push token (src/status-pushes/token.ts), or null; the shop must exist. */
export async function statusPushTokenOf(prisma: DatabaseClient, shopId: string): Promise<string | null> {
  const shop = await prisma.shop.findUniqueOrThrow({
    where: { id: shopId },
    select: { statusPushToken: true },
  });
  return shop.statusPushToken;
}

/** Sets the shop's status push token unless it has one (two callers at once: the first wins). */
export async function setStatusPushTokenIfNone(
  prisma: DatabaseClient,
  shopId: string,
  token: string,
): Promise<void> {
  await prisma.shop.updateMany({
    where: { id: shopId, statusPushToken: null },
    data: { statusPushToken: token },
  });
}

/** Sets the shop's status push token. */
export async function setStatusPushToken(
  prisma: DatabaseClient,
  shopId: string,
  token: string,
): Promise<void> {
  await prisma.shop.update({ where: { id: shopId }, data: { statusPushToken: token }, select: { id: true } });
}

/** The shop's id by its domain, if there is a row. */
export function shopIdByDomain(db: DatabaseClient | Tx, domain: string): Promise<{ id: string } | null> {
  return db.shop.findUnique({ where: { domain }, select: { id: true } });
}

/** A reinstall: the shop's uninstall cleared, installed now, with its pause columns as given. */
export function markShopReinstalled(
  tx: Tx,
  shopId: string,
  pause: Pick<Prisma.ShopUpdateInput, 'pausedReason' | 'pausedMessage' | 'pausedAt' | 'probeAt'>,
): Promise<Shop> {
  return tx.shop.update({
    where: { id: shopId },
    data: {
      uninstalledAt: null,
      installedAt: new Date(),
      ...pause,
    },
  });
}

/** Up to `limit` installed shops whose store profile was never read or last read at `readBefore` or earlier. */
export function shopsDueProfileRead(
  prisma: DatabaseClient,
  readBefore: Date,
  limit: number,
): Promise<Array<{ id: string; domain: string; timezone: string }>> {
  return prisma.shop.findMany({
    where: {
      uninstalledAt: null,
      OR: [{ profileCheckedAt: null }, { profileCheckedAt: { lte: readBefore } }],
    },
    select: { id: true, domain: true, timezone: true },
    orderBy: { profileCheckedAt: { sort: 'asc', nulls: 'first' } },
    take: limit,
  });
}

/** Writes what was read of the store's profile, or when to read it again. */
export async function updateShopProfile(
  prisma: DatabaseClient,
  shopId: string,
  data: Pick<Prisma.ShopUpdateInput, 'timezone' | 'contactEmail' | 'profileCheckedAt' | 'nextDigestAt'>,
): Promise<void> {
  await prisma.shop.update({ where: { id: shopId }, data });
}

/**
 * One shop's store events are applied one at a time: each use case first writes the shop's row, so a
 * concurrent one (another worker, on PostgreSQL) waits until this transaction ends and then reads what it
 * wrote. Without it two workers could each read the state from before the other's change, and an older
 * update (or a fulfilment racing its order's cancellation) could win.
 */
export async function lockShop(tx: Tx, shopId: string): Promise<{ linkToTrackingPage: boolean }> {
  // What it returns is read under the lock: a setting changed meanwhile (in its own locked transaction)
  // is seen here.
  return tx.shop.update({
    where: { id: shopId },
    data: { updatedAt: new Date() },
    select: { linkToTrackingPage: true },
  });
}

/** A paused shop's probe taken: its next probe at `probeAt` (only shops still paused). */
export async function setPausedShopsProbeAt(
  prisma: DatabaseClient,
  shopIds: string[],
  probeAt: Date,
): Promise<void> {
  await prisma.shop.updateMany({
    where: { id: { in: shopIds }, pausedAt: { not: null } },
    data: { probeAt },
  });
}

/** The shop's row by its domain, if there is one. */
export function shopByDomain(db: DatabaseClient | Tx, domain: string): Promise<Shop | null> {
  return db.shop.findUnique({ where: { domain } });
}

/** The shop's row by its id, if there is one. */
export function shopById(db: DatabaseClient | Tx, id: string): Promise<Shop | null> {
  return db.shop.findUnique({ where: { id } });
}

/** The shop's row by its id; throws when there is none. */
export function shopByIdOrThrow(db: DatabaseClient | Tx, id: string): Promise<Shop> {
  return db.shop.findUniqueOrThrow({ where: { id } });
}

/** The shops (all, or the one named) that have active lines still waiting for a carrier. */
export function shopsWithWaitingLines(prisma: DatabaseClient, shopId?: string): Promise<Shop[]> {
  return prisma.shop.findMany({
    where: { ...(shopId ? { id: shopId } : {}), trackingLines: { some: { active: true, trackerId: null } } },
  });
}

/** Writes a shop's settings: the row as it is then. */
export function updateShopSettings(
  db: DatabaseClient | Tx,
  shopId: string,
  settings: Partial<ShopSettings>,
): Promise<Shop> {
  return db.shop.update({ where: { id: shopId }, data: settings });
}

/**
 * Makes the shop row, outside any transaction, if it is missing. Two workers applying the first
 * deliveries of a new store at once would otherwise both insert it inside their transactions, and on
 * PostgreSQL the loser's whole transaction is aborted by the unique violation; here the loser simply
 * finds the winner's row.
 */
export async function ensureShopExists(prisma: DatabaseClient, domain: string): Promise<void> {
  if (await prisma.shop.findUnique({ where: { domain }, select: { id: true } })) return;
  try {
    await prisma.shop.create({ data: newShop(domain), select: { id: true } });
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
  }
}

/**
 * Shops and their secrets. The API key and the Slack webhook URL are sealed on the way in and opened on
 * the way out here, and nowhere else; a secret sealed with a retired key id is re-sealed with the current
 * one when read.
 */
export function createShopRepository(prisma: DatabaseClient, keyring: EncryptionKeyring) {
  /** API keys' SHA-256 digests by sealed value (see pushReceiver): each key opened once, not per push. */
  const keyDigests = new Map<string, Buffer>();
  /** Opens a sealed secret; one sealed under a retired key is sealed again under the current one (`keep`). */
  async function openResealing(
    sealed: SealedSecret,
    keep: (fresh: SealedSecret) => Promise<unknown>,
  ): Promise<string> {
    const plaintext = open(keyring, sealed);
    if (needsReseal(keyring, sealed)) await keep(seal(keyring, plaintext));
    return plaintext;
  }
  const repository = {
    findByDomain(domain: string): Promise<Shop | null> {
      return prisma.shop.findUnique({ where: { domain } });
    },

    findById(id: string): Promise<Shop | null> {
      return prisma.shop.findUnique({ where: { id } });
    },

    list(): Promise<Shop[]> {
      return prisma.shop.findMany({ orderBy: { domain: 'asc' } });
    },

    /**
     * The shop's row, made (not connected) when missing. Two requests of a new store's first page load
     * race here: the loser of the insert finds the winner's row instead of failing (PostgreSQL P2002).
     */
    async ensure(domain: string): Promise<Shop> {
      await ensureShopExists(prisma, domain);
      return prisma.shop.findUniqueOrThrow({ where: { domain } });
    },

    /** Stores credentials and lifts any pause they could have caused; the shop's queued work resumes. */
    async saveCredentials(domain: string, credentials: ShopCredentials): Promise<Shop> {
      const sealed = seal(keyring, credentials.apiKey);
      const data = {
        appName: credentials.appName,
        apiKeyCiphertext: sealed.ciphertext,
        apiKeyKeyId: sealed.keyId,
        pausedReason: null,
        pausedMessage: null,
        pausedAt: null,
        probeAt: null,
        uninstalledAt: null,
      };
      return prisma.shop.upsert({ where: { domain }, update: data, create: { domain, ...data } });
    },

    /**
     * The installed shop a status push URL names (null: none), with its API key's SHA-256 digest to check the
     * push's key against (null: no key stored). Read on every push, on the hot path (src/db/hot-path.ts), so a
     * rotated URL or a new key counts at once; the key is opened once per sealed value and kept as its
     * digest only. Throws SecretUnreadableError when the key cannot be opened.
     */
    async pushReceiver(token: string): Promise<{ shopId: string; keyDigest: Buffer | null } | null> {
      const p = SqlParams.for(prisma);
      const [shop] = await hotPathOf(prisma).rows<
        Pick<Shop, 'id' | 'appName' | 'apiKeyCiphertext' | 'apiKeyKeyId'>
      >(
        `SELECT "id", "appName", "apiKeyCiphertext", "apiKeyKeyId" FROM "Shop" WHERE "statusPushToken" = ${p.text(token)} AND "uninstalledAt" IS NULL`,
        p.values,
      );
      if (!shop) return null;
      const sealedAs = `${shop.apiKeyKeyId}:${shop.apiKeyCiphertext}`;
      let keyDigest = keyDigests.get(sealedAs);
      if (!keyDigest) {
        const credentials = await repository.credentials(shop);
        if (!credentials) return { shopId: shop.id, keyDigest: null };
        keyDigest = createHash('sha256').update(credentials.apiKey, 'utf8').digest();
        if (keyDigests.size >= 10_000) keyDigests.clear();
        keyDigests.set(sealedAs, keyDigest);
      }
      return { shopId: shop.id, keyDigest };
    },

    /** The shop's credentials, or null when it has none stored. */
    async credentials(shop: Pick<Shop, 'id' | 'appName' | 'apiKeyCiphertext' | 'apiKeyKeyId'>) {
      if (!shop.appName || !shop.apiKeyCiphertext || !shop.apiKeyKeyId) return null;
      const sealed = { keyId: shop.apiKeyKeyId, ciphertext: shop.apiKeyCiphertext };
      const apiKey = await openResealing(sealed, (fresh) =>
        prisma.shop.updateMany({
          where: { id: shop.id, apiKeyCiphertext: shop.apiKeyCiphertext },
          data: { apiKeyCiphertext: fresh.ciphertext, apiKeyKeyId: fresh.keyId },
        }),
      );
      return { apiKey, appName: shop.appName } satisfies ShopCredentials;
    },

    async pause(
      shopId: string,
      reason: PauseReason,
      message: string | null,
      probeAt: Date | null,
    ): Promise<void> {
      await prisma.shop.update({
        where: { id: shopId },
        data: { pausedReason: reason, pausedMessage: message, pausedAt: new Date(), probeAt },
      });
    },

    /** Lifts a pause caused by the service (not "not connected" or "uninstalled", which need the merchant). */
    async resumeAfterProbe(shopId: string): Promise<void> {
      await prisma.shop.updateMany({
        where: { id: shopId, pausedReason: { in: ['ssl_error', 'unauthorized', 'balance_exhausted'] } },
        data: { pausedReason: null, pausedMessage: null, pausedAt: null, probeAt: null },
      });
    },

    /**
     * Stores the balance and plan a create reported (a value the answer lacked is left alone; a balance is
     * truncated and held within the column's range, past which it is as good as unlimited). One statement
     * on the hot path (the reconciler records it for each shop in each batch of outcomes); it answers what
     * the balance warning needs, or null for a shop that is gone.
     */
    async recordAccount(
      shopId: string,
      account: { trackersBalance: number | null; userPlan: string | null },
    ): Promise<RecordedAccount | null> {
      const p = SqlParams.for(prisma);
      const balance = account.trackersBalance === null ? null : storableBalance(account.trackersBalance);
      const returning = `RETURNING "trackersBalance", "balanceWarnDays"`;
      const sql =
        balance === null && account.userPlan === null
          ? `SELECT "trackersBalance", "balanceWarnDays" FROM "Shop" WHERE "id" = ${p.text(shopId)}`
          : `UPDATE "Shop" SET "trackersBalance" = COALESCE(${p.value(balance, 'integer')}, "trackersBalance"), ` +
            `"userPlan" = COALESCE(${p.value(account.userPlan, 'text')}, "userPlan"), "updatedAt" = ${p.time(new Date())} ` +
            `WHERE "id" = ${p.text(shopId)} ${returning}`;
      const [row] = await hotPathOf(prisma).rows<{ trackersBalance: unknown; balanceWarnDays: unknown }>(
        sql,
        p.values,
      );
      if (!row) return null;
      return {
        trackersBalance: row.trackersBalance === null ? null : Number(row.trackersBalance),
        balanceWarnDays: Number(row.balanceWarnDays),
      };
    },

    /**
     * Stores the shop's Slack incoming-webhook URL sealed like the API key (null removes it). The URL is a
     * secret (whoever has it posts to the merchant's channel): it is opened only by slackWebhook below.
     */
    async saveSlackWebhook(shopId: string, url: string | null): Promise<void> {
      const sealed = url === null ? null : seal(keyring, url);
      await prisma.shop.update({
        where: { id: shopId },
        data: {
          slackWebhookCiphertext: sealed?.ciphertext ?? null,
          slackWebhookKeyId: sealed?.keyId ?? null,
        },
      });
    },

    /** The shop's Slack incoming-webhook URL, or null when none is set; re-sealed when its key is retired. */
    async slackWebhook(
      shop: Pick<Shop, 'id' | 'slackWebhookCiphertext' | 'slackWebhookKeyId'>,
    ): Promise<string | null> {
      if (!shop.slackWebhookCiphertext || !shop.slackWebhookKeyId) return null;
      const sealed = { keyId: shop.slackWebhookKeyId, ciphertext: shop.slackWebhookCiphertext };
      return openResealing(sealed, (fresh) =>
        prisma.shop.updateMany({
          where: { id: shop.id, slackWebhookCiphertext: shop.slackWebhookCiphertext },
          data: { slackWebhookCiphertext: fresh.ciphertext, slackWebhookKeyId: fresh.keyId },
        }),
      );
    },

    /** The notification settings' columns (src/ui/api/notifications.ts decides them; the Slack URL is apart). */
    async updateNotifications(
      shopId: string,
      data: {
        digestEnabled?: boolean;
        digestHour?: number;
        digestRecipients?: string | null;
        nextDigestAt?: Date;
        slackInstantProblems?: boolean;
        slackPostedThrough?: Date;
      },
    ): Promise<Shop> {
      return prisma.shop.update({ where: { id: shopId }, data });
    },
  };
  return repository;
}

export type ShopRepository = ReturnType<typeof createShopRepository>;

/** A shop's balance as stored after a create, and when it is to be warned about (recordAccount). */
export interface RecordedAccount {
  trackersBalance: number | null;
  balanceWarnDays: number;
}

/** The Int column's range (a balance past two billion is as good as unlimited). */
function storableBalance(balance: number): number {
  return Math.min(2 ** 31 - 1, Math.max(-(2 ** 31), Math.trunc(balance)));
}
