import type { DatabaseProvider } from '../db/provider.js';
import { endedRows } from './parcel-model.js';
import { statusClassInsertSql, statusClassSql } from './status-classes.js';
import { syncStateSql } from './status-table.js';

/**
 * The figures a shop's pages show, kept by the database itself in the same statement as the rows they
 * count, so a count is a sum over a few hundred rollup rows whatever the shop's size, and no write path of
 * the app (intake, reconciler, poller, pushes, retention) can forget to keep them:
 *
 * - TrackingLine.parcelGroup / syncState: the line's class (src/shipments/status-table.ts) from its tracker,
 *   set when the line is written and whenever its tracker's status or sync columns change. The list filters
 *   on them through indexes.
 * - ShipmentCount: visible lines (wanted, or with a tracker) per shop, UTC day of creation, parcel group and
 *   sync state: the list's total and facet counts, and the health counts.
 * - DeliveryCount: wanted trackers per shop, UTC day of creation, carrier, parcel group and transit time:
 *   the analytics. Deleting a tracker (retention) does not lower it, so past figures stay exact.
 *
 * The triggers hold no status code: a tracker's group is read from the StatusClass table,
 * the status table as rows (./status-classes.ts), and the group is stored on the tracker (Tracker.parcelGroup)
 * so its lines and its analytics are counted, and later moved, from the group it was counted in. A change
 * to the status table is a forward migration of the StatusClass rows and of the trackers holding the codes
 * that changed (docs/development.md: "Add or regroup a status code"); the triggers stay as they are. The SQL is written
 * into migrations (prisma/migrations/<provider>/*_status_classes); test/shipments/rollups.test.ts checks the
 * live triggers of the newest migration against recounts from the rows.
 */

const q = (name: string) => `"${name}"`;

/** YYYY-MM-DD (UTC) of a DateTime column: PostgreSQL timestamp(3); SQLite ISO-8601 text. */
export function dayOf(column: string, provider: DatabaseProvider): string {
  return provider === 'postgresql' ? `to_char(${column}, 'YYYY-MM-DD')` : `substr(${column}, 1, 10)`;
}

/** The line is in the list: still wanted, or its tracker exists (even once removed). */
const visible = (row: string) => `(${row}."active" OR ${row}."trackerId" IS NOT NULL)`;

/** The group of a parcel with no status yet (a line waiting for its carrier has no tracker). */
const noStatusGroup = statusClassSql('NULL', 'NULL', 'parcelGroup');

/** A literal for generated SQL (trusted constants; quotes doubled anyway). */
const literal = (text: string) => `'${text.replace(/'/g, "''")}'`;

/** The line end reasons that have a row of their own in the parcel model (cancelled, number removed). */
const endings = Object.keys(endedRows);

/**
 * The group of a line: a line ended in the store (its order or fulfilment cancelled, its number removed) is
 * filed under its ended row's group, as every view shows it (src/shipments/parcel-model.ts); any other line
 * under its tracker's stored group (or, with no tracker, no scan yet).
 */
function lineGroupSql(endedReason: string, otherwise: string): string {
  const whens = Object.entries(endedRows).map(
    ([reason, row]) => `WHEN ${endedReason} = ${literal(reason)} THEN ${literal(row.group)}`,
  );
  return `CASE ${whens.join(' ')} ELSE ${otherwise} END`;
}

/** The class of a line from a tracker row (`t`, or NEW/OLD) and the line's own end reason. */
function lineClass(t: string, present: string, endedReason: string): { group: string; sync: string } {
  return {
    group: lineGroupSql(
      endedReason,
      present === 'TRUE'
        ? `${t}."parcelGroup"`
        : `CASE WHEN ${present} THEN ${t}."parcelGroup" ELSE ${noStatusGroup} END`,
    ),
    sync: syncStateSql({
      present,
      syncState: `${t}."syncState"`,
      desired: `${t}."desired"`,
      remote: `${t}."remote"`,
      endedReason,
    }),
  };
}

/** Transit time in tenths of a day (the analytics' resolution); -1: not delivered. */
const tenths = (row: string) =>
  `CASE WHEN ${row}."transitSeconds" IS NULL THEN -1 ELSE CAST(ROUND(${row}."transitSeconds" / 8640.0) AS INTEGER) END`;
const flag = (condition: string) => `CASE WHEN ${condition} THEN 1 ELSE 0 END`;

const shipmentCountKey = ['shopId', 'day', 'parcelGroup', 'syncState'].map(q).join(', ');
const deliveryCountKey = ['shopId', 'day', 'provider', 'parcelGroup', 'transitTenths'].map(q).join(', ');
export const deliveryMeasures = [
  'shipments',
  'transitSeconds',
  'onTimeMeasured',
  'onTime',
  'exceptions',
  'failedAttempts',
];

/** A new random id in SQL (the delta rows' key). */
function newId(provider: DatabaseProvider): string {
  return provider === 'postgresql' ? 'gen_random_uuid()::text' : 'lower(hex(randomblob(16)))';
}

/** Appends `sign` × one line (OLD or NEW) to ShipmentCountDelta, when the line is visible. */
function shipmentCountDelta(row: string, sign: 1 | -1, provider: DatabaseProvider): string {
  return [
    `INSERT INTO "ShipmentCountDelta" ("id", ${shipmentCountKey}, "delta")`,
    `SELECT ${newId(provider)}, ${row}."shopId", ${dayOf(`${row}."createdAt"`, provider)}, ${row}."parcelGroup", ${row}."syncState", ${sign}`,
    `WHERE ${visible(row)};`,
  ].join('\n    ');
}

/** Appends `sign` × one tracker (OLD or NEW) to DeliveryCountDelta, when it is wanted. */
function deliveryCountDelta(row: string, sign: 1 | -1, provider: DatabaseProvider): string {
  const s = sign === 1 ? '' : '-';
  const values = [
    `${s}1`,
    `${s}COALESCE(${row}."transitSeconds", 0)`,
    `${s}${flag(`${row}."deliveredOnTime" IS NOT NULL`)}`,
    `${s}${flag(`${row}."deliveredOnTime"`)}`,
    `${s}${flag(`${row}."hadException"`)}`,
    `${s}${flag(`${row}."hadFailedAttempt"`)}`,
  ];
  return [
    `INSERT INTO "DeliveryCountDelta" ("id", ${deliveryCountKey}, ${deliveryMeasures.map(q).join(', ')})`,
    `SELECT ${newId(provider)}, ${row}."shopId", ${dayOf(`${row}."createdAt"`, provider)}, ${row}."provider", ${row}."parcelGroup", ${tenths(row)}, ${values.join(', ')}`,
    `WHERE ${row}."desired" = 'active';`,
  ].join('\n    ');
}

/** `OLD.x IS DISTINCT FROM NEW.x OR …` (SQLite: IS NOT). */
function changed(columns: readonly string[], provider: DatabaseProvider): string {
  const distinct = provider === 'postgresql' ? 'IS DISTINCT FROM' : 'IS NOT';
  return columns.map((c) => `OLD.${q(c)} ${distinct} NEW.${q(c)}`).join(' OR ');
}

/** Columns of a tracker that decide its lines' class. */
const trackerClassColumns = ['parcelGroup', 'syncState', 'desired', 'remote'];
/** Columns of a line that decide where it is counted. */
const lineCountColumns = ['parcelGroup', 'syncState', 'active', 'trackerId', 'createdAt', 'shopId'];
/** Columns of a tracker that decide where it is counted in the analytics. */
const trackerDeliveryColumns = [
  'shopId',
  'createdAt',
  'provider',
  'desired',
  'parcelGroup',
  'transitSeconds',
  'deliveredOnTime',
  'hadException',
  'hadFailedAttempt',
];

/** Sets a tracker's lines' class from the tracker row `t` (NEW; or nothing: the tracker is going). */
function linesOfTrackerSql(t: 'NEW' | null, trackerId: string): string {
  const cls = t
    ? lineClass(t, 'TRUE', '"TrackingLine"."endedReason"')
    : { group: noStatusGroup, sync: `'waiting_carrier'` };
  return [
    `UPDATE "TrackingLine" SET "parcelGroup" = ${cls.group}, "syncState" = ${cls.sync}`,
    `WHERE "trackerId" = ${trackerId} AND ("parcelGroup" <> ${cls.group} OR "syncState" <> ${cls.sync});`,
  ].join('\n    ');
}

/** A line's class from its tracker, as one row of two columns (`parcelGroup`, `syncState`). */
function lineClassSelect(line: string): string {
  const cls = lineClass('t', `t."id" IS NOT NULL`, `${line}."endedReason"`);
  return `SELECT ${cls.group}, ${cls.sync} FROM (SELECT 1) AS one LEFT JOIN "Tracker" AS t ON t."id" = ${line}."trackerId"`;
}

function postgresqlTriggers(): string {
  const p: DatabaseProvider = 'postgresql';
  const fn = (name: string, returns: string, body: string) =>
    `CREATE OR REPLACE FUNCTION "${name}"() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    ${body}\n    RETURN ${returns};\nEND $$;`;
  return [
    fn(
      'tracksync_line_class',
      'NEW',
      `${lineClassSelect('NEW').replace('FROM (SELECT 1)', 'INTO NEW."parcelGroup", NEW."syncState" FROM (SELECT 1)')};`,
    ),
    `CREATE TRIGGER "TrackingLine_class" BEFORE INSERT OR UPDATE OF "trackerId", "endedReason" ON "TrackingLine" FOR EACH ROW EXECUTE FUNCTION "tracksync_line_class"();`,
    fn(
      'tracksync_line_counts',
      'NULL',
      [
        `IF TG_OP <> 'INSERT' THEN\n    ${shipmentCountDelta('OLD', -1, p)}\n    END IF;`,
        `IF TG_OP <> 'DELETE' THEN\n    ${shipmentCountDelta('NEW', 1, p)}\n    END IF;`,
      ].join('\n    '),
    ),
    `CREATE TRIGGER "TrackingLine_counts_insert" AFTER INSERT OR DELETE ON "TrackingLine" FOR EACH ROW EXECUTE FUNCTION "tracksync_line_counts"();`,
    `CREATE TRIGGER "TrackingLine_counts_update" AFTER UPDATE ON "TrackingLine" FOR EACH ROW WHEN (${changed(lineCountColumns, p)}) EXECUTE FUNCTION "tracksync_line_counts"();`,
    fn('tracksync_tracker_lines', 'NULL', linesOfTrackerSql('NEW', 'NEW."id"')),
    `CREATE TRIGGER "Tracker_lines" AFTER UPDATE ON "Tracker" FOR EACH ROW WHEN (${changed(trackerClassColumns, p)}) EXECUTE FUNCTION "tracksync_tracker_lines"();`,
    fn('tracksync_tracker_gone', 'OLD', linesOfTrackerSql(null, 'OLD."id"')),
    `CREATE TRIGGER "Tracker_gone" BEFORE DELETE ON "Tracker" FOR EACH ROW EXECUTE FUNCTION "tracksync_tracker_gone"();`,
    fn(
      'tracksync_tracker_deliveries',
      'NULL',
      [
        `IF TG_OP = 'UPDATE' THEN\n    ${deliveryCountDelta('OLD', -1, p)}\n    END IF;`,
        deliveryCountDelta('NEW', 1, p),
      ].join('\n    '),
    ),
    `CREATE TRIGGER "Tracker_deliveries_insert" AFTER INSERT ON "Tracker" FOR EACH ROW EXECUTE FUNCTION "tracksync_tracker_deliveries"();`,
    `CREATE TRIGGER "Tracker_deliveries_update" AFTER UPDATE ON "Tracker" FOR EACH ROW WHEN (${changed(trackerDeliveryColumns, p)}) EXECUTE FUNCTION "tracksync_tracker_deliveries"();`,
  ].join('\n\n');
}

function sqliteTriggers(): string {
  const p: DatabaseProvider = 'sqlite';
  const trigger = (name: string, on: string, body: string[]) =>
    `CREATE TRIGGER "${name}" ${on} BEGIN\n    ${body.join('\n    ')}\nEND;`;
  // SQLite cannot change NEW in a BEFORE trigger: the class is set by an UPDATE after the write, which
  // the counts trigger then sees as a move from the defaults to the class.
  const setClass = `UPDATE "TrackingLine" SET ("parcelGroup", "syncState") = (${lineClassSelect('NEW')}) WHERE "id" = NEW."id";`;
  return [
    trigger('TrackingLine_class_insert', `AFTER INSERT ON "TrackingLine"`, [
      shipmentCountDelta('NEW', 1, p),
      setClass,
    ]),
    trigger('TrackingLine_class_update', `AFTER UPDATE OF "trackerId", "endedReason" ON "TrackingLine"`, [
      setClass,
    ]),
    trigger(
      'TrackingLine_counts_update',
      `AFTER UPDATE OF ${lineCountColumns.map(q).join(', ')} ON "TrackingLine" WHEN ${changed(lineCountColumns, p)}`,
      [shipmentCountDelta('OLD', -1, p), shipmentCountDelta('NEW', 1, p)],
    ),
    trigger('TrackingLine_counts_delete', `AFTER DELETE ON "TrackingLine"`, [
      shipmentCountDelta('OLD', -1, p),
    ]),
    trigger(
      'Tracker_lines',
      `AFTER UPDATE OF ${trackerClassColumns.map(q).join(', ')} ON "Tracker" WHEN ${changed(trackerClassColumns, p)}`,
      [linesOfTrackerSql('NEW', 'NEW."id"')],
    ),
    trigger('Tracker_gone', `BEFORE DELETE ON "Tracker"`, [linesOfTrackerSql(null, 'OLD."id"')]),
    trigger('Tracker_deliveries_insert', `AFTER INSERT ON "Tracker"`, [deliveryCountDelta('NEW', 1, p)]),
    trigger(
      'Tracker_deliveries_update',
      `AFTER UPDATE OF ${trackerDeliveryColumns.map(q).join(', ')} ON "Tracker" WHEN ${changed(trackerDeliveryColumns, p)}`,
      [deliveryCountDelta('OLD', -1, p), deliveryCountDelta('NEW', 1, p)],
    ),
  ].join('\n\n');
}

/** The triggers that keep the rollups, for a migration. */
export function rollupTriggersSql(provider: DatabaseProvider): string {
  return provider === 'postgresql' ? postgresqlTriggers() : sqliteTriggers();
}

/* ------------------------------------------------------------------ carriers seen */

/** Columns of a line that decide where it is counted among the carriers seen. */
const lineCarrierColumns = ['shopId', 'carrierKey', 'carrierName', 'active', 'trackerId'];
const carrierCountKey = ['shopId', 'carrierKey', 'carrierName'].map(q).join(', ');
/** Still wanted and no tracker: waiting for a carrier mapping. */
const waitingLine = (row: string) => `${row}."active" AND ${row}."trackerId" IS NULL`;

/** Appends `sign` × one line (OLD or NEW) to CarrierCountDelta, when it names a carrier. */
function carrierCountDelta(row: string, sign: 1 | -1, provider: DatabaseProvider): string {
  const s = sign === 1 ? '' : '-';
  return [
    `INSERT INTO "CarrierCountDelta" ("id", ${carrierCountKey}, "lines", "waiting")`,
    `SELECT ${newId(provider)}, ${row}."shopId", ${row}."carrierKey", ${row}."carrierName", ${s}1, ${s}${flag(waitingLine(row))}`,
    `WHERE ${row}."carrierKey" IS NOT NULL AND ${row}."carrierName" IS NOT NULL;`,
  ].join('\n    ');
}

/** The triggers that keep CarrierCount (Settings' carriers seen), for a migration. */
export function carrierTriggersSql(provider: DatabaseProvider): string {
  if (provider === 'postgresql') {
    const p: DatabaseProvider = 'postgresql';
    return [
      `CREATE OR REPLACE FUNCTION "tracksync_line_carriers"() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    IF TG_OP <> 'INSERT' THEN\n    ${carrierCountDelta('OLD', -1, p)}\n    END IF;\n    IF TG_OP <> 'DELETE' THEN\n    ${carrierCountDelta('NEW', 1, p)}\n    END IF;\n    RETURN NULL;\nEND $$;`,
      `CREATE TRIGGER "TrackingLine_carriers_insert" AFTER INSERT OR DELETE ON "TrackingLine" FOR EACH ROW EXECUTE FUNCTION "tracksync_line_carriers"();`,
      `CREATE TRIGGER "TrackingLine_carriers_update" AFTER UPDATE ON "TrackingLine" FOR EACH ROW WHEN (${changed(lineCarrierColumns, p)}) EXECUTE FUNCTION "tracksync_line_carriers"();`,
    ].join('\n\n');
  }
  const p: DatabaseProvider = 'sqlite';
  return [
    `CREATE TRIGGER "TrackingLine_carriers_insert" AFTER INSERT ON "TrackingLine" BEGIN\n    ${carrierCountDelta('NEW', 1, p)}\nEND;`,
    `CREATE TRIGGER "TrackingLine_carriers_update" AFTER UPDATE OF ${lineCarrierColumns.map(q).join(', ')} ON "TrackingLine" WHEN ${changed(lineCarrierColumns, p)} BEGIN\n    ${carrierCountDelta('OLD', -1, p)}\n    ${carrierCountDelta('NEW', 1, p)}\nEND;`,
    `CREATE TRIGGER "TrackingLine_carriers_delete" AFTER DELETE ON "TrackingLine" BEGIN\n    ${carrierCountDelta('OLD', -1, p)}\nEND;`,
  ].join('\n\n');
}

/** CarrierCount from the lines already there (before its triggers exist). */
export function carrierBackfillSql(): string {
  return [
    `DELETE FROM "CarrierCount";`,
    `INSERT INTO "CarrierCount" (${carrierCountKey}, "lines", "waiting") SELECT l."shopId", l."carrierKey", l."carrierName", COUNT(*), SUM(${flag(waitingLine('l'))}) FROM "TrackingLine" AS l WHERE l."carrierKey" IS NOT NULL AND l."carrierName" IS NOT NULL GROUP BY 1, 2, 3;`,
  ].join('\n');
}

/* ------------------------------------------------------------------ a tracker's class */

/** Columns of a tracker that decide its group. */
const trackerClassInputs = ['status', 'statusDetail'];

/** Tracker.parcelGroup of the tracker row `t` (NEW, or the table), from the StatusClass rows. */
function trackerGroupOf(t: string): string {
  return statusClassSql(`${t}."status"`, `${t}."statusDetail"`, 'parcelGroup');
}

/**
 * The triggers that keep Tracker.parcelGroup (what its lines and analytics count) from the StatusClass rows.
 * PostgreSQL sets it before the row is written; SQLite, which cannot change NEW, right after it (the counts
 * triggers then see a move from the default group to the tracker's).
 */
export function trackerClassTriggersSql(provider: DatabaseProvider): string {
  const group = trackerGroupOf('NEW');
  if (provider === 'postgresql') {
    return [
      `CREATE OR REPLACE FUNCTION "tracksync_tracker_class"() RETURNS trigger LANGUAGE plpgsql AS $$\nBEGIN\n    NEW."parcelGroup" := ${group};\n    RETURN NEW;\nEND $$;`,
      `CREATE TRIGGER "Tracker_class" BEFORE INSERT OR UPDATE OF ${trackerClassInputs.map(q).join(', ')} ON "Tracker" FOR EACH ROW EXECUTE FUNCTION "tracksync_tracker_class"();`,
    ].join('\n\n');
  }
  const set = `UPDATE "Tracker" SET "parcelGroup" = ${group} WHERE "id" = NEW."id";`;
  return [
    `CREATE TRIGGER "Tracker_class_insert" AFTER INSERT ON "Tracker" BEGIN\n    ${set}\nEND;`,
    `CREATE TRIGGER "Tracker_class_update" AFTER UPDATE OF ${trackerClassInputs.map(q).join(', ')} ON "Tracker" WHEN ${changed(trackerClassInputs, provider)} BEGIN\n    ${set}\nEND;`,
  ].join('\n\n');
}

/** Every trigger that keeps the rollups and the trackers' class, for a migration. */
export function classAndRollupTriggersSql(provider: DatabaseProvider): string {
  return `${trackerClassTriggersSql(provider)}\n\n${rollupTriggersSql(provider)}`;
}

/** The triggers (and PostgreSQL functions) before the StatusClass table: they held the status lists. */
const listTriggers = {
  postgresql: {
    triggers: [
      ['TrackingLine', 'TrackingLine_class'],
      ['TrackingLine', 'TrackingLine_counts_insert'],
      ['TrackingLine', 'TrackingLine_counts_update'],
      ['Tracker', 'Tracker_lines'],
      ['Tracker', 'Tracker_gone'],
      ['Tracker', 'Tracker_deliveries_insert'],
      ['Tracker', 'Tracker_deliveries_update'],
      ['Tracker', 'Tracker_attention'],
    ],
    functions: ['tracksync_tracker_attention'],
  },
  sqlite: {
    triggers: [
      ['TrackingLine', 'TrackingLine_class_insert'],
      ['TrackingLine', 'TrackingLine_class_update'],
      ['TrackingLine', 'TrackingLine_counts_update'],
      ['TrackingLine', 'TrackingLine_counts_delete'],
      ['Tracker', 'Tracker_lines'],
      ['Tracker', 'Tracker_gone'],
      ['Tracker', 'Tracker_deliveries_insert'],
      ['Tracker', 'Tracker_deliveries_update'],
      ['Tracker', 'Tracker_attention_insert'],
      ['Tracker', 'Tracker_attention_update'],
    ],
    functions: [],
  },
} as const;

/**
 * What the migration that adds StatusClass and Tracker.parcelGroup appends to the schema engine's DDL: the
 * triggers that held the status lists dropped, the table's rows, the trackers' stored group (the one the
 * old triggers counted them in, by the same rules), and the triggers that read the rows.
 */
export function statusClassesMigrationSql(provider: DatabaseProvider): string {
  const drops = listTriggers[provider];
  return [
    '-- Status classes (generated by src/shipments/rollups.ts and status-classes.ts: do not edit by hand)',
    ...drops.triggers.map(([table, name]) =>
      provider === 'postgresql'
        ? `DROP TRIGGER IF EXISTS "${name}" ON "${table}";`
        : `DROP TRIGGER IF EXISTS "${name}";`,
    ),
    ...drops.functions.map((name) => `DROP FUNCTION IF EXISTS "${name}"();`),
    // The attention list these columns served reads the shipment problems now: they go with their triggers
    // (after them: SQLite refuses to drop a column a trigger names).
    `DROP INDEX IF EXISTS "Tracker_shopId_attention_quietSince_id_idx";`,
    ...(provider === 'postgresql'
      ? [`ALTER TABLE "Tracker" DROP COLUMN "attention", DROP COLUMN "quietSince";`]
      : [
          `ALTER TABLE "Tracker" DROP COLUMN "attention";`,
          `ALTER TABLE "Tracker" DROP COLUMN "quietSince";`,
        ]),
    statusClassInsertSql(),
    `UPDATE "Tracker" SET "parcelGroup" = ${trackerGroupOf('"Tracker"')};`,
    '',
    classAndRollupTriggersSql(provider),
    '',
    // Lines ended in the store before: filed under their ended group now (the counts' trigger moves them).
    `UPDATE "TrackingLine" SET "parcelGroup" = ${lineGroupSql('"endedReason"', '"parcelGroup"')} WHERE "endedReason" IN (${endings.map(literal).join(', ')});`,
    '',
  ].join('\n');
}

/**
 * Fills the lines' class and both rollups from the rows already there (before the triggers exist): for the
 * scale benchmark's seeding, which writes rows in bulk first.
 */
export function rollupBackfillSql(provider: DatabaseProvider): string {
  const cls = lineClass('t', 'TRUE', '"TrackingLine"."endedReason"');
  const day = (c: string) => dayOf(c, provider);
  return [
    `UPDATE "Tracker" SET "parcelGroup" = ${trackerGroupOf('"Tracker"')};`,
    `UPDATE "TrackingLine" SET ("parcelGroup", "syncState") = (SELECT ${cls.group}, ${cls.sync} FROM "Tracker" AS t WHERE t."id" = "TrackingLine"."trackerId") WHERE "trackerId" IS NOT NULL;`,
    `DELETE FROM "ShipmentCount";`,
    `INSERT INTO "ShipmentCount" (${shipmentCountKey}, "count") SELECT l."shopId", ${day('l."createdAt"')}, l."parcelGroup", l."syncState", COUNT(*) FROM "TrackingLine" AS l WHERE ${visible('l')} GROUP BY 1, 2, 3, 4;`,
    `DELETE FROM "DeliveryCount";`,
    `INSERT INTO "DeliveryCount" (${deliveryCountKey}, ${deliveryMeasures.map(q).join(', ')}) SELECT t."shopId", ${day('t."createdAt"')}, t."provider", t."parcelGroup", ${tenths('t')}, COUNT(*), SUM(COALESCE(t."transitSeconds", 0)), SUM(${flag('t."deliveredOnTime" IS NOT NULL')}), SUM(${flag('t."deliveredOnTime"')}), SUM(${flag('t."hadException"')}), SUM(${flag('t."hadFailedAttempt"')}) FROM "Tracker" AS t WHERE t."desired" = 'active' GROUP BY 1, 2, 3, 4, 5;`,
  ].join('\n');
}

/**
 * Recounts both rollups from the rows, dropping pending deltas (for a database whose rows were written with
 * the triggers off, such as the scale benchmark's seeding). Not for a database in use: run it alone.
 */
export function rebuildRollupsSql(provider: DatabaseProvider): string {
  return `DELETE FROM "ShipmentCountDelta";\nDELETE FROM "DeliveryCountDelta";\nDELETE FROM "CarrierCountDelta";\n${rollupBackfillSql(provider)}\n${carrierBackfillSql()}`;
}
