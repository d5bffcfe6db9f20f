import type { DatabaseClient } from '../db/client.js';
import { statusClassTable } from './queries/status-classes.js';
import {
  finalStatuses,
  groupByDetail,
  isFinalStatus,
  isTroubleStatus,
  movingStatuses,
  type ParcelGroup,
  parcelGroupOf,
  parcelGroupStatuses,
} from './status-table.js';

/**
 * The status table (./status-table.ts) as rows of the StatusClass table, which the database's triggers
 * read (./rollups.ts): the triggers hold no status code, so adding or regrouping a status code is an edit
 * to the status table plus a generated forward migration that rewrites these rows and re-classifies the
 * trackers holding the codes that changed (`npm run db:migration:create -- <name>`, see
 * docs/development.md, "Add or regroup a status code").
 *
 * One row per status code (detail ''), one per status and detail whose group differs from the status's
 * own (a moving status whose detail names a group), '' for no status yet, '*' for a status in no list.
 * Every row is computed by the status table's own functions, so the rows and the TypeScript rules agree.
 */

export interface StatusClassRow {
  code: string;
  detail: string;
  parcelGroup: ParcelGroup;
  final: boolean;
  trouble: boolean;
}

/** The key of a status in no list of the table. */
export const OTHER_STATUS = '*';

const rowOf = (code: string, detail: string): StatusClassRow => ({
  code,
  detail,
  parcelGroup: parcelGroupOf(code, detail),
  final: code !== OTHER_STATUS && isFinalStatus(code),
  trouble: isTroubleStatus(code, detail),
});

/** Every row the StatusClass table should hold for today's status table, ordered by key. */
export function statusClassRows(): StatusClassRow[] {
  const codes = [
    ...new Set([...Object.values(parcelGroupStatuses).flat(), ...finalStatuses, ...movingStatuses]),
  ];
  const details = Object.keys(groupByDetail);
  const rows = [rowOf('', ''), rowOf(OTHER_STATUS, '')];
  for (const code of codes) {
    rows.push(rowOf(code, ''));
    for (const detail of details) {
      if (parcelGroupOf(code, detail) !== parcelGroupOf(code)) rows.push(rowOf(code, detail));
    }
  }
  return rows.sort((a, b) => keyOf(a).localeCompare(keyOf(b)));
}

export const keyOf = (row: { code: string; detail: string }) => `${row.code}\u0000${row.detail}`;

/**
 * One column of a status's class, in SQL, over two column expressions holding the stored (normalised)
 * status and detail: the row of the status and detail, else of the status, else of a status in no list
 * (each a lookup of the primary key).
 */
export function statusClassSql(
  status: string,
  detail: string,
  column: 'parcelGroup' | 'final' | 'trouble',
): string {
  const row = (code: string, detail: string) =>
    `(SELECT c."${column}" FROM "StatusClass" AS c WHERE c."code" = ${code} AND c."detail" = ${detail})`;
  const code = `COALESCE(${status}, '')`;
  return `COALESCE(${row(code, `COALESCE(${detail}, '')`)}, ${row(code, "''")}, ${row(`'${OTHER_STATUS}'`, "''")})`;
}

/* ------------------------------------------------------------------ forward migrations */

const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;
const bool = (value: boolean) => (value ? 'TRUE' : 'FALSE');
const columns = `"code", "detail", "parcelGroup", "final", "trouble"`;
const values = (r: StatusClassRow) =>
  `(${literal(r.code)}, ${literal(r.detail)}, ${literal(r.parcelGroup)}, ${bool(r.final)}, ${bool(r.trouble)})`;

/** Fills an empty StatusClass table with today's rows. */
export function statusClassInsertSql(rows: readonly StatusClassRow[] = statusClassRows()): string {
  return `INSERT INTO "StatusClass" (${columns}) VALUES\n    ${rows.map(values).join(',\n    ')};`;
}

/** The class column a tracker row stores, from its status (for a re-classification). */
export function trackerClassSet(t: string): string {
  return `"parcelGroup" = ${statusClassSql(`${t}."status"`, `${t}."statusDetail"`, 'parcelGroup')}`;
}

/** The codes whose rows differ between two versions of the table ('' and '*' included). */
export function changedCodes(
  before: readonly StatusClassRow[],
  after: readonly StatusClassRow[] = statusClassRows(),
): string[] {
  const same = (a: StatusClassRow | undefined, b: StatusClassRow | undefined) =>
    a !== undefined &&
    b !== undefined &&
    a.parcelGroup === b.parcelGroup &&
    a.final === b.final &&
    a.trouble === b.trouble;
  const was = new Map(before.map((r) => [keyOf(r), r]));
  const now = new Map(after.map((r) => [keyOf(r), r]));
  const codes = new Set<string>();
  for (const key of new Set([...was.keys(), ...now.keys()])) {
    if (!same(was.get(key), now.get(key))) codes.add((was.get(key) ?? now.get(key))!.code);
  }
  return [...codes].sort();
}

/**
 * The forward migration of a status-table change: the StatusClass rows rewritten, then the trackers
 * holding a changed code re-classified (their group; the triggers move their lines and
 * their counts from the group they were counted in), shop by shop on the (shopId, status) index, so it
 * costs the trackers that change, not the table. A change to '*' (a status in no list) re-classifies
 * every tracker whose stored class differs. Empty when nothing changed.
 */
export function statusClassMigrationSql(
  before: readonly StatusClassRow[],
  after: readonly StatusClassRow[] = statusClassRows(),
): string {
  const codes = changedCodes(before, after);
  if (codes.length === 0) return '';
  const known = codes.filter((c) => c !== '' && c !== OTHER_STATUS);
  const holders = [
    ...(known.length > 0 ? [`t."status" IN (${known.map(literal).join(', ')})`] : []),
    ...(codes.includes('') ? [`t."status" IS NULL OR t."status" = ''`] : []),
    ...(codes.includes(OTHER_STATUS)
      ? [`NOT EXISTS (SELECT 1 FROM "StatusClass" AS c WHERE c."code" = t."status")`]
      : []),
  ];
  const set = trackerClassSet('"Tracker"');
  const noTracker = statusClassSql('NULL', 'NULL', 'parcelGroup');
  return [
    '-- Status classes (generated by src/shipments/status-classes.ts from src/shipments/status-table.ts)',
    'DELETE FROM "StatusClass";',
    statusClassInsertSql(after),
    '',
    '-- Trackers holding a changed code take their new class; the triggers move their lines and counts.',
    `UPDATE "Tracker" SET ${set}`,
    `WHERE "id" IN (SELECT t."id" FROM "Shop" AS s CROSS JOIN "Tracker" AS t WHERE t."shopId" = s."id" AND (${holders.join(' OR ')}));`,
    ...(codes.includes('')
      ? [
          '-- Lines waiting for their carrier (no tracker) have no status yet.',
          `UPDATE "TrackingLine" SET "parcelGroup" = ${noTracker} WHERE "trackerId" IS NULL AND "parcelGroup" <> ${noTracker};`,
        ]
      : []),
    '',
  ].join('\n');
}

/** The class the rows give a status and detail: what statusClassSql selects, in TypeScript. */
export function statusClassOf(
  rows: readonly StatusClassRow[],
  status: string | null,
  detail: string | null,
): StatusClassRow {
  const byKey = new Map(rows.map((r) => [keyOf(r), r]));
  const code = status ?? '';
  const found =
    byKey.get(keyOf({ code, detail: detail ?? '' })) ??
    byKey.get(keyOf({ code, detail: '' })) ??
    byKey.get(keyOf({ code: OTHER_STATUS, detail: '' }));
  if (!found) throw new Error(`The status classes have no row for a status in no list ('${OTHER_STATUS}')`);
  return found;
}

/** The StatusClass rows a database holds; none before the migration that adds the table. */
export async function storedStatusClassRows(prisma: DatabaseClient): Promise<StatusClassRow[] | null> {
  const rows = await statusClassTable(prisma);
  return rows && rows.map((r) => ({ ...r, parcelGroup: r.parcelGroup as ParcelGroup }));
}

/**
 * For `createMigration`'s `generated` (scripts/db-migration-create.ts): the forward migration that takes
 * the StatusClass rows at the end of the history to `after` (default: today's status table), '' when they
 * agree or the history has no StatusClass table yet.
 */
export function statusClassChanges(after: readonly StatusClassRow[] = statusClassRows()) {
  return async (prisma: DatabaseClient): Promise<string> => {
    const before = await storedStatusClassRows(prisma);
    return before === null ? '' : statusClassMigrationSql(before, after);
  };
}
