import type { DatabaseClient } from '../../db/client.js';
import { countOf, dateOf, queryRows, SqlParams } from '../../db/sql.js';

/**
 * The attention list's queries (Overview, Activity): a shop's wanted trackers in trouble (a status in a
 * trouble group) or late (held by the service, not final, no sign of life since `lateBefore`), the most
 * recent sign of life first, paged by keyset on (quietSince, id). Both kinds are ranges of the index
 * (shopId, attention, quietSince, id), whose two columns the database keeps (src/shipments/rollups.ts), so
 * a page reads a page's rows and the count reads the index only, whatever the shop's size.
 */

export interface AttentionCursor {
  quietSince: Date;
  id: string;
}

/** The two kinds' conditions over `t`, their parameters in text order (trouble, then late). */
function conditions(p: SqlParams, shopId: string, lateBefore: Date): { trouble: string; late: string } {
  const trouble = `t."shopId" = ${p.text(shopId)} AND t."attention" = 'trouble'`;
  const late = `t."shopId" = ${p.text(shopId)} AND t."attention" = 'watch' AND t."quietSince" <= ${p.time(lateBefore)}`;
  return { trouble, late };
}

/** The ids of one page of the list (at most `limit`), and whether more follow. */
export async function attentionPageIds(
  prisma: DatabaseClient,
  shopId: string,
  lateBefore: Date,
  page: { after?: AttentionCursor | undefined; limit: number },
): Promise<{ ids: string[]; more: boolean }> {
  const p = SqlParams.for(prisma);
  const range = (kind: 'trouble' | 'watch', alias: string) => {
    const where = [`t."shopId" = ${p.text(shopId)}`, `t."attention" = ${p.text(kind)}`];
    if (kind === 'watch') where.push(`t."quietSince" <= ${p.time(lateBefore)}`);
    if (page.after)
      where.push(`(t."quietSince", t."id") < (${p.time(page.after.quietSince)}, ${p.text(page.after.id)})`);
    return `SELECT * FROM (SELECT t."id", t."quietSince" FROM "Tracker" AS t WHERE ${where.join(' AND ')} ORDER BY t."quietSince" DESC, t."id" DESC LIMIT ${p.int(page.limit + 1)}) AS ${alias}`;
  };
  const sql = `SELECT * FROM (${range('trouble', 'a')} UNION ALL ${range('watch', 'b')}) AS u ORDER BY "quietSince" DESC, "id" DESC LIMIT ${p.int(page.limit + 1)}`;
  const rows = await queryRows<{ id: string; quietSince: unknown }>(prisma, sql, p);
  return { ids: rows.slice(0, page.limit).map((r) => r.id), more: rows.length > page.limit };
}

/** How many shipments the list holds (all pages): two index ranges counted. */
export async function countAttention(
  prisma: DatabaseClient,
  shopId: string,
  lateBefore: Date,
): Promise<number> {
  const p = SqlParams.for(prisma);
  const { trouble, late } = conditions(p, shopId, lateBefore);
  const sql = `SELECT (SELECT COUNT(*) FROM "Tracker" AS t WHERE ${trouble}) + (SELECT COUNT(*) FROM "Tracker" AS t WHERE ${late}) AS "count"`;
  const [row] = await queryRows<{ count: unknown }>(prisma, sql, p);
  return countOf(row?.count);
}

export function attentionCursorOf(row: { quietSince: unknown; id: string }): AttentionCursor {
  return { quietSince: dateOf(row.quietSince), id: row.id };
}

/** The rows of one page of the list, in the order of `ids`. */
export async function attentionTrackers(prisma: DatabaseClient, ids: readonly string[]) {
  if (ids.length === 0) return [];
  const found = await prisma.tracker.findMany({
    where: { id: { in: [...ids] } },
    select: {
      id: true,
      trackingNumber: true,
      provider: true,
      orderKey: true,
      status: true,
      statusDetail: true,
      lastEventAt: true,
      lastEventMessage: true,
      lastEventLocation: true,
      quietSince: true,
      syncedAt: true,
      createdAt: true,
    },
  });
  const byId = new Map(found.map((t) => [t.id, t]));
  return ids.map((id) => byId.get(id)).filter((t) => t !== undefined);
}
