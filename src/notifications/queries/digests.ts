import type { DatabaseClient } from '../../db/client.js';
import type { DigestRun, Prisma } from '../../generated/sqlite/client.js';
import type { Shop } from '../../shops/shop-repository.js';
import { countOf, queryRows, SqlParams } from '../../db/sql.js';

/**
 * The daily digest's reads and writes (src/notifications/send-digests.ts, digest-schedule.ts): the shops
 * due from the `nextDigestAt` index, each channel's `DigestRun`, and the problems a run's window counts.
 */

/** What the digest pass reads of a shop. */
export const digestShopColumns = {
  id: true,
  domain: true,
  timezone: true,
  digestEnabled: true,
  digestHour: true,
  digestRecipients: true,
  contactEmail: true,
  slackWebhookCiphertext: true,
  slackWebhookKeyId: true,
  uninstalledAt: true,
  nextDigestAt: true,
} as const;
export type DigestShop = Pick<Shop, keyof typeof digestShopColumns>;

/** Up to `limit` shops that have no digest time yet. */
export function shopsWithoutDigestTime(
  prisma: DatabaseClient,
  limit: number,
): Promise<Array<{ id: string; digestHour: number; timezone: string }>> {
  return prisma.shop.findMany({
    where: { nextDigestAt: null },
    select: { id: true, digestHour: true, timezone: true },
    take: limit,
  });
}

/**
 * Moves a shop's digest time from `from` to `to`, only while it is still `from` (a conditional write: of
 * several workers, or against a settings save, one wins). How many rows (0 or 1).
 */
export async function moveDigestTime(
  prisma: DatabaseClient,
  shopId: string,
  from: Date | null,
  to: Date,
): Promise<number> {
  const { count } = await prisma.shop.updateMany({
    where: { id: shopId, nextDigestAt: from },
    data: { nextDigestAt: to },
  });
  return count;
}

/** Up to `limit` shops whose digest is due, the most overdue first. */
export function dueDigestShops(prisma: DatabaseClient, now: Date, limit: number): Promise<DigestShop[]> {
  return prisma.shop.findMany({
    where: { nextDigestAt: { lte: now } },
    orderBy: { nextDigestAt: 'asc' },
    take: limit,
    select: digestShopColumns,
  });
}

/** The channel's run for the shop's day, if any. */
export function digestRunOf(
  prisma: DatabaseClient,
  shopId: string,
  day: string,
  channel: string,
): Promise<DigestRun | null> {
  return prisma.digestRun.findUnique({
    where: { shopId_day_channel: { shopId, day, channel } },
  });
}

/** Inserts the channel's run for the day (pending); a second insert fails on the unique key. */
export function insertDigestRun(
  prisma: DatabaseClient,
  run: { shopId: string; day: string; channel: string; createdAt: Date },
): Promise<DigestRun> {
  return prisma.digestRun.create({
    data: {
      shopId: run.shopId,
      day: run.day,
      channel: run.channel,
      state: 'pending',
      createdAt: run.createdAt,
    },
  });
}

/** Takes a failed run back (pending), only while it is still failed with the same error: how many (0 or 1). */
export async function retakeFailedRun(
  prisma: DatabaseClient,
  id: string,
  error: string | null,
): Promise<number> {
  const { count } = await prisma.digestRun.updateMany({
    where: { id, state: 'failed', error },
    data: { state: 'pending' },
  });
  return count;
}

/** Records a run's state, counts or error. */
export async function updateDigestRun(
  prisma: DatabaseClient,
  id: string,
  data: Prisma.DigestRunUpdateInput,
): Promise<void> {
  await prisma.digestRun.update({ where: { id }, data });
}

/**
 * The parcels (trackers) with a problem opened in [since, until): how many per kind, and how many in all (a
 * parcel with two kinds counts once). Parcels, not problem rows: one parcel's troubles are one line of the
 * digest however often they began. On the (shopId, openedAt) index.
 */
export async function parcelsWithProblemsOpened(
  prisma: DatabaseClient,
  shopId: string,
  since: Date,
  until: Date,
): Promise<{ byKind: Array<{ kind: string; parcels: number }>; parcels: number }> {
  const window = (p: SqlParams) =>
    `"shopId" = ${p.text(shopId)} AND "openedAt" >= ${p.time(since)} AND "openedAt" < ${p.time(until)}`;
  const k = SqlParams.for(prisma);
  const t = SqlParams.for(prisma);
  const [byKind, total] = await Promise.all([
    queryRows<{ kind: string; parcels: unknown }>(
      prisma,
      `SELECT "kind", COUNT(DISTINCT "trackerId") AS "parcels" FROM "ShipmentProblem" WHERE ${window(k)} GROUP BY "kind"`,
      k,
    ),
    queryRows<{ parcels: unknown }>(
      prisma,
      `SELECT COUNT(DISTINCT "trackerId") AS "parcels" FROM "ShipmentProblem" WHERE ${window(t)}`,
      t,
    ),
  ]);
  return {
    byKind: byKind.map((r) => ({ kind: r.kind, parcels: countOf(r.parcels) })),
    parcels: countOf(total[0]?.parcels ?? 0),
  };
}

/** How many of the shop's problems closed in [since, until) for one of these reasons. */
export function problemsClosedFor(
  prisma: DatabaseClient,
  shopId: string,
  since: Date,
  until: Date,
  reasons: string[],
): Promise<number> {
  return prisma.shipmentProblem.count({
    where: {
      shopId,
      closedAt: { gte: since, lt: until },
      closedReason: { in: reasons },
    },
  });
}

/** The channel's last run sent or skipped before `before` (its createdAt). */
export function lastDoneRunBefore(
  prisma: DatabaseClient,
  shopId: string,
  channel: string,
  before: Date,
): Promise<{ createdAt: Date } | null> {
  return prisma.digestRun.findFirst({
    where: {
      shopId,
      channel,
      state: { in: ['sent', 'skipped'] },
      createdAt: { lt: before },
    },
    orderBy: { createdAt: 'desc' },
    select: { createdAt: true },
  });
}

/** The channel's first run before `before` (its createdAt). */
export function firstRunBefore(
  prisma: DatabaseClient,
  shopId: string,
  channel: string,
  before: Date,
): Promise<{ createdAt: Date } | null> {
  return prisma.digestRun.findFirst({
    where: { shopId, channel, createdAt: { lt: before } },
    orderBy: { createdAt: 'asc' },
    select: { createdAt: true },
  });
}
