import type { DatabaseClient } from '../../db/client.js';
import { queryRows, SqlParams } from '../../db/sql.js';

/**
 * The instant Slack posts' reads and writes (src/notifications/instant-problems.ts): the pass's hold (an
 * AppState row), the shops' cursors (`Shop.slackPostedThrough`), the shops with new problems and each one's
 * new problems (ShipmentProblem).
 */

/** What a pass reads of a shop that posts its new problems. */
export interface InstantShop {
  id: string;
  domain: string;
  slackPostedThrough: Date | null;
  slackWebhookCiphertext: string | null;
  slackWebhookKeyId: string | null;
}

/** The AppState row's value under `key` (the pass's hold: until when it is held), if there is a row. */
export async function passHoldOf(prisma: DatabaseClient, key: string): Promise<string | null> {
  const existing = await prisma.appState.findUnique({ where: { key } });
  return existing ? existing.value : null;
}

/** Writes the AppState row `key` with `value`; throws a unique violation when another process wrote it. */
export async function createPassHold(prisma: DatabaseClient, key: string, value: string): Promise<void> {
  await prisma.appState.create({ data: { key, value } });
}

/**
 * Sets the AppState row `key` to `to`, only while it still holds `from` (a conditional write: of several
 * processes, one wins). How many rows (0 or 1).
 */
export async function swapPassHold(
  prisma: DatabaseClient,
  key: string,
  from: string,
  to: string,
): Promise<number> {
  const { count } = await prisma.appState.updateMany({ where: { key, value: from }, data: { value: to } });
  return count;
}

/** The shops that switched instant posts on with no cursor yet start from `from` (Shop.slackPostedThrough). */
export async function startInstantCursors(prisma: DatabaseClient, from: Date): Promise<void> {
  await prisma.shop.updateMany({
    where: { slackInstantProblems: true, slackPostedThrough: null },
    data: { slackPostedThrough: from },
  });
}

/**
 * Moves a shop's cursor (Shop.slackPostedThrough) from `from` to `to`, only while it is still `from` (a
 * settings save meanwhile wins).
 */
export async function moveInstantCursor(
  prisma: DatabaseClient,
  shopId: string,
  from: Date,
  to: Date,
): Promise<void> {
  await prisma.shop.updateMany({
    where: { id: shopId, slackPostedThrough: from },
    data: { slackPostedThrough: to },
  });
}

/**
 * The shops that post new problems to Slack and have one still open that opened after their cursor and
 * up to `until`, those waiting longest first, at most `limit`: one statement, each shop's problems probed
 * through the (shopId, openedAt) index; then their rows.
 */
export async function shopsWithNewProblems(
  prisma: DatabaseClient,
  until: Date,
  limit: number,
): Promise<InstantShop[]> {
  const p = SqlParams.for(prisma);
  const sql = `SELECT s."id" FROM "Shop" s
    WHERE s."slackInstantProblems" AND s."slackWebhookCiphertext" IS NOT NULL AND s."uninstalledAt" IS NULL
      AND s."slackPostedThrough" IS NOT NULL
      AND EXISTS (SELECT 1 FROM "ShipmentProblem" p
        WHERE p."shopId" = s."id" AND p."openedAt" > s."slackPostedThrough" AND p."openedAt" <= ${p.time(until)}
          AND p."closedAt" IS NULL)
    ORDER BY s."slackPostedThrough", s."id"
    LIMIT ${p.int(limit)}`;
  const ids = (await queryRows<{ id: string }>(prisma, sql, p)).map((r) => r.id);
  if (ids.length === 0) return [];
  const shops = await prisma.shop.findMany({
    where: { id: { in: ids } },
    select: {
      id: true,
      domain: true,
      slackPostedThrough: true,
      slackWebhookCiphertext: true,
      slackWebhookKeyId: true,
    },
  });
  const order = new Map(ids.map((id, i) => [id, i]));
  return shops.sort((a, b) => order.get(a.id)! - order.get(b.id)!);
}

/**
 * A shop's problems still open that opened after `after` and up to `until`: the first `take` of them,
 * oldest first, with their kind, detail and tracking number, and how many there are in all (two
 * statements at once).
 */
export async function newProblemsOf(
  prisma: DatabaseClient,
  shopId: string,
  after: Date,
  until: Date,
  take: number,
): Promise<{
  rows: Array<{ kind: string; detail: string | null; tracker: { trackingNumber: string } }>;
  total: number;
}> {
  const where = { shopId, openedAt: { gt: after, lte: until }, closedAt: null };
  const [rows, total] = await Promise.all([
    prisma.shipmentProblem.findMany({
      where,
      orderBy: [{ openedAt: 'asc' }, { id: 'asc' }],
      take,
      select: { kind: true, detail: true, tracker: { select: { trackingNumber: true } } },
    }),
    prisma.shipmentProblem.count({ where }),
  ]);
  return { rows, total };
}
