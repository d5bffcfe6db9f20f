import type { DatabaseClient } from '../../db/client.js';
import { countOf, queryRows, SqlParams } from '../../db/sql.js';

/** The shoppers' page's limit counters (LookupLimit rows: src/proxy/lookup-limits.ts decides with them). */

export type Kind = 'visitor' | 'shop_failures' | 'service_calls';

interface CounterRow {
  kind: Kind;
  count: unknown;
  windowStartMs: unknown;
  blockedUntilMs: unknown;
}

/** These counters' rows (those that exist). */
export function lookupCounters(prisma: DatabaseClient, ids: string[]): Promise<CounterRow[]> {
  const p = SqlParams.for(prisma);
  return queryRows<CounterRow>(
    prisma,
    `SELECT "kind", "count", "windowStartMs", "blockedUntilMs" FROM "LookupLimit" WHERE "id" IN ${p.texts(ids)}`,
    p,
  );
}

/** What a bump compares with and writes: times in ms (now, the first hold, the fresh-streak bounds). */
export interface BumpAt {
  now: number;
  allowance: number;
  firstHold: number;
  expiresAt: Date;
  /** A visitor's streak whose last failure is older than this starts again. */
  forgetBefore: number;
  /** A shop's count whose window began before this starts again. */
  windowBefore: number;
  maxShift: number;
  backoffMs: number;
  backoffMaxMs: number;
}

/**
 * Counts one more at each row, in one statement, and returns the rows. A visitor's streak starts again
 * when its last failure is older than forgetAfterMs, a shop's counts every minute; a visitor over its
 * allowance is held for backoffMs << (failures over it - 1), at most backoffMaxMs.
 */
export async function bumpLookupCounters(
  prisma: DatabaseClient,
  rows: { id: string; shopId: string; kind: Kind }[],
  at: BumpAt,
): Promise<{ kind: Kind; count: number; blockedUntilMs: number }[]> {
  const p = SqlParams.for(prisma);
  const ms = (value: number) => p.value(value, 'bigint');
  const row = '"LookupLimit"';
  const fresh = () =>
    `((${row}."kind" = 'visitor' AND ${row}."lastAtMs" < ${ms(at.forgetBefore)})
        OR (${row}."kind" <> 'visitor' AND ${row}."windowStartMs" < ${ms(at.windowBefore)}))`;
  const newCount = () => `(CASE WHEN ${fresh()} THEN 1 ELSE ${row}."count" + 1 END)`;
  const over = () => `(${newCount()} - ${p.int(at.allowance)} - 1)`;
  const values = rows
    .map(
      (r) =>
        `(${p.text(r.id)}, ${p.text(r.shopId)}, ${p.text(r.kind)}, 1, ${ms(at.now)}, ${ms(at.now)}, ${ms(r.kind === 'visitor' ? at.firstHold : 0)}, ${p.time(at.expiresAt)})`,
    )
    .join(', ');
  const sql = `INSERT INTO ${row} ("id", "shopId", "kind", "count", "windowStartMs", "lastAtMs", "blockedUntilMs", "expiresAt")
      VALUES ${values}
      ON CONFLICT ("id") DO UPDATE SET
        "blockedUntilMs" = CASE WHEN ${row}."kind" = 'visitor' AND ${over()} >= 0
          THEN ${ms(at.now)} + CASE WHEN ${over()} > ${p.int(at.maxShift)} THEN ${ms(at.backoffMaxMs)} ELSE ${ms(at.backoffMs)} << ${over()} END
          ELSE ${row}."blockedUntilMs" END,
        "windowStartMs" = CASE WHEN ${fresh()} THEN excluded."windowStartMs" ELSE ${row}."windowStartMs" END,
        "count" = ${newCount()},
        "lastAtMs" = excluded."lastAtMs",
        "expiresAt" = excluded."expiresAt"
      RETURNING "kind", "count", "blockedUntilMs"`;
  const result = await queryRows<CounterRow>(prisma, sql, p);
  return result.map((r) => ({
    kind: r.kind,
    count: countOf(r.count),
    blockedUntilMs: countOf(r.blockedUntilMs),
  }));
}

/**
 * The shop's visitor rows, counted up to `bound` and no further: at most `bound` entries of the
 * (shopId, kind) index read, whatever the table holds.
 */
export async function visitorRowsUpTo(
  prisma: DatabaseClient,
  shopId: string,
  bound: number,
): Promise<number> {
  const p = SqlParams.for(prisma);
  const [row] = await queryRows<{ count: unknown }>(
    prisma,
    `SELECT COUNT(*) AS "count" FROM (SELECT 1 FROM "LookupLimit" WHERE "shopId" = ${p.text(shopId)} AND "kind" = 'visitor' LIMIT ${p.int(bound)}) AS v`,
    p,
  );
  return row ? countOf(row.count) : 0;
}

/** Notes on the shop's failure counter that its visitor rows are full until `untilMs`. */
export async function markVisitorRowsFull(
  prisma: DatabaseClient,
  shopRowId: string,
  untilMs: number,
): Promise<void> {
  await prisma.lookupLimit.updateMany({
    where: { id: shopRowId },
    data: { blockedUntilMs: BigInt(untilMs) },
  });
}
