import type { DatabaseClient } from '../../db/client.js';
import { countOf, queryRows, SqlParams } from '../../db/sql.js';

/** The Overview's own figures (the others come from the lists they link to). */

/**
 * The tracking-page links of the shop's fulfilments wanting `wanted`, per state, and the latest problem:
 * one statement (the problem rides on each state's row).
 */
export async function trackingLinkProgress(
  prisma: DatabaseClient,
  shopId: string,
  wanted: 'store' | 'carrier',
): Promise<{ byState: Map<string, number>; problem: string | null }> {
  const p = SqlParams.for(prisma);
  const scope = `"shopId" = ${p.text(shopId)} AND "wanted" = ${p.text(wanted)}`;
  const latestProblem = `(SELECT k."error" FROM "StoreTrackingLink" AS k WHERE k."shopId" = ${p.text(shopId)} AND k."wanted" = ${p.text(wanted)}
      AND k."error" IS NOT NULL AND k."state" IN ('pending', 'failed') ORDER BY k."updatedAt" DESC LIMIT 1)`;
  const rows = await queryRows<{ state: string; n: unknown; problem: string | null }>(
    prisma,
    `SELECT "state", COUNT(*) AS "n", ${latestProblem} AS "problem" FROM "StoreTrackingLink" WHERE ${scope} GROUP BY "state"`,
    p,
  );
  return {
    byState: new Map(rows.map((r) => [r.state, countOf(r.n)])),
    problem: rows.find((r) => r.problem !== null)?.problem ?? null,
  };
}

/** Whether the shop ever had a tracker (the first setup step). */
export async function hasAnyTracker(prisma: DatabaseClient, shopId: string): Promise<boolean> {
  return (await prisma.tracker.findFirst({ where: { shopId }, select: { id: true } })) !== null;
}
