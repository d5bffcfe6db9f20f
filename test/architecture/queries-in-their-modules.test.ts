import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { modules, srcDir } from '../helpers/module-graph.js';

/**
 * Data access lives in one place per domain: its query and repository modules (a `queries/` folder, a file
 * named `*-queries.ts` or `*-repository.ts`) and the database layer (src/db). Every other module of src/
 * holds no ORM or SQL call of its own: it calls its domain's small named queries, which take the client
 * (or the transaction) and return typed rows, where their index and plan are checked.
 *
 * A call is found on any client variable (prisma, tx, db, client, deps.prisma, ctx.tx, this.prisma …):
 * a model delegate's read or write (the model names are read from the Prisma schema, so `shops.findByDomain`
 * of a repository is no call), `$queryRaw*`, `$executeRaw*`, `$transaction`, and raw SQL run through
 * src/db's helpers (`queryRows`, `hotPathOf`, `inHotTransaction`). A use case opens its unit of work with
 * src/db/transaction.ts `inTransaction`, and the queries it runs inside take the transaction's client.
 */
const schema = readFileSync(path.resolve(srcDir, '../prisma/schema.prisma'), 'utf8');
const delegates = [...schema.matchAll(/^model (\w+) \{/gm)].map(
  (m) => m[1]![0]!.toLowerCase() + m[1]!.slice(1),
);

const operations = 'find\\w*|count|groupBy|aggregate|update\\w*|create\\w*|upsert|delete\\w*';
export const calls = new RegExp(
  [
    `\\.(?:${delegates.join('|')})\\s*\\.\\s*(?:${operations})\\s*\\(`,
    `\\.\\$(?:queryRaw|executeRaw|transaction)\\w*`,
    `\\b(?:queryRows|hotPathOf|inHotTransaction)\\s*(?:<[^>]*>)?\\(`,
  ].join('|'),
  'g',
);

/** Where data access belongs: the database layer and each domain's query and repository modules. */
function isDataModule(relative: string): boolean {
  return (
    relative.startsWith('db/') ||
    relative.startsWith('generated/') ||
    relative.split('/').includes('queries') ||
    /-(queries|repository)\.ts$/.test(relative)
  );
}

/** Every module outside the data modules that holds a call, with how many. */
function offenders(): Map<string, number> {
  const found = new Map<string, number>();
  for (const file of modules()) {
    const relative = path.relative(srcDir, file).split(path.sep).join('/');
    if (isDataModule(relative)) continue;
    const count = [...readFileSync(file, 'utf8').matchAll(calls)].length;
    if (count > 0) found.set(relative, count);
  }
  return found;
}

describe('queries live in their query modules', () => {
  const found = offenders();

  it('no ORM or SQL call outside src/db and the query and repository modules', () => {
    expect([...found.entries()].sort()).toEqual([]);
  });

  it('finds one when there is one, on any client (the check itself works)', () => {
    const count = (text: string) => [...text.matchAll(calls)].length;
    expect(count('await deps.prisma.shipmentProblem.findMany({')).toBe(1);
    expect(count('await prisma.$queryRawUnsafe(sql)')).toBe(1);
    expect(count('await ctx.tx.shop.updateMany({')).toBe(1);
    expect(count('await db.tracker.count({ where })')).toBe(1);
    expect(count('await this.prisma.session.upsert({')).toBe(1);
    expect(count('return client.$transaction(async (tx) => {')).toBe(1);
    expect(count('await tx.$executeRawUnsafe(sql, ...params)')).toBe(1);
    expect(count('await queryRows<{ id: string }>(prisma, sql, p)')).toBe(1);
    expect(count('await hotPathOf(db).rows(sql, params)')).toBe(1);
    // A repository's own methods and other objects' finds are no ORM call.
    expect(count('await deps.shops.findByDomain(shop)')).toBe(0);
    expect(count('listed.value.find((x) => x.id)')).toBe(0);
    expect(count('await deps.api.create(input)')).toBe(0);
    // And the query modules it leaves out hold the real calls it would find.
    const queryModule = (relative: string) => readFileSync(path.join(srcDir, relative), 'utf8');
    expect(count(queryModule('jobs/queries/retention.ts'))).toBeGreaterThan(0);
    expect(count(queryModule('shops/shop-repository.ts'))).toBeGreaterThan(0);
    expect(isDataModule('webhooks/queries/deliveries.ts')).toBe(true);
    expect(isDataModule('webhooks/process-deliveries.ts')).toBe(false);
  });
});
