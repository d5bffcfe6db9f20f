import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { srcDir } from '../helpers/module-graph.js';

/**
 * The page API's use cases (src/ui/api) and the shoppers' routes (src/proxy) hold no ORM or SQL call of
 * their own: every list, count and figure is a query of its domain's query module (src/shipments/queries,
 * the repositories), where its index and plan are checked. This finds a model call or raw SQL written in
 * those folders.
 */
const calls =
  /\bprisma\.(\w+\.(find\w*|count|groupBy|aggregate|update\w*|create\w*|upsert|delete\w*)\(|\$(queryRaw|executeRaw|transaction)\w*)/g;

function offenders(folder: string): string[] {
  return readdirSync(path.join(srcDir, folder))
    .filter((f) => f.endsWith('.ts'))
    .flatMap((f) => {
      const text = readFileSync(path.join(srcDir, folder, f), 'utf8');
      return [...text.matchAll(calls)].map((m) => `${folder}/${f}: ${m[0]}`);
    });
}

describe('queries live in their query modules', () => {
  it('no ORM or SQL call in src/ui/api or src/proxy', () => {
    expect([...offenders('ui/api'), ...offenders('proxy')]).toEqual([]);
  });

  it('finds one when there is one (the check itself works)', () => {
    expect('await deps.prisma.shipmentProblem.findMany({'.match(calls)).toHaveLength(1);
    expect('await prisma.$queryRawUnsafe(sql)'.match(calls)).toHaveLength(1);
  });
});
