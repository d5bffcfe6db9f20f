import { randomUUID } from 'node:crypto';
import type { Logger } from '../logger.js';
import type { DatabaseClient, Tx } from './client.js';
import { sqlTimestamp } from './insert-rows.js';
import type { DatabaseProvider } from './provider.js';
import { providerOf } from './provider-of.js';

/**
 * One lease queue for every kind of background work. A queue is a table whose due rows a worker leases
 * for a while (owner token + expiry), works on, and then either completes (its own update, conditional on
 * still holding the lease) or gives back. A queue is described once, as data (see src/db/queues.ts); this
 * module claims, renews, releases and counts for all of them, on both databases:
 *
 * - PostgreSQL: the pick and the lease are one UPDATE whose subquery locks the rows it picks with
 *   `FOR UPDATE SKIP LOCKED`: two workers claiming at the same moment get different rows at once, neither
 *   waits for the other, neither comes back with fewer rows than were due.
 * - SQLite: the same UPDATE without the locking clause. SQLite has one writer at a time, so the statement
 *   is atomic on its own and there is nothing to skip.
 *
 * Leases are short and renewed by a heartbeat while their holder still works on the rows
 * (`createLeaseHolder`), so the work of a process that died is taken over within one lease, not minutes.
 */

export interface LeaseColumns {
  owner: string;
  expiresAt: string;
}

export interface QueueDescription {
  /** For logs and metrics. */
  name: string;
  /** The table, as in the schema. */
  table:
    | 'WebhookDelivery'
    | 'Tracker'
    | 'BackfillJob'
    | 'StoreFulfillmentEvent'
    | 'StoreTrackingLink'
    | 'StatusPush';
  /** The lease's columns (the Tracker table has a second lease for status reads). */
  lease: LeaseColumns;
  /**
   * When a row is due, in SQL over the table aliased `q`, with `:now` for the claim's time. Trusted SQL
   * written in this codebase only: never built from input. "Lease free" is added by the queue.
   */
  due: string;
  /** Oldest first, in SQL over `q`. */
  orderBy: string;
  /** The column a due row has waited since (for the oldest-due age in metrics). */
  dueSince: string;
  /** Claiming also bumps the row's optimistic-lock `version`. */
  bumpVersion?: boolean;
  /** The table has a Prisma `@updatedAt` column, which raw SQL must set itself. */
  hasUpdatedAt?: boolean;
  /** At most `max` rows per value of `column` in one claim, so one big shop never takes a whole claim. */
  perGroup?: { column: string; max: number };
}

type Db = DatabaseClient | Tx;

/** Builds one statement's text and parameters in the provider's placeholder style. */
class Statement {
  readonly params: unknown[] = [];
  constructor(readonly provider: DatabaseProvider) {}

  value(value: unknown, pgType: string): string {
    this.params.push(value);
    return this.provider === 'postgresql' ? `$${this.params.length}::${pgType}` : '?';
  }

  time(date: Date): string {
    return this.value(sqlTimestamp(date, this.provider), 'timestamp(3)');
  }

  list(ids: readonly string[]): string {
    return ids.map((id) => this.value(id, 'text')).join(', ');
  }

  /** Trusted SQL with `:now` placeholders. */
  sql(text: string, now: Date): string {
    return text.replaceAll(':now', () => this.time(now));
  }
}

function leaseFree(queue: QueueDescription, s: Statement, now: Date): string {
  return `(q."${queue.lease.expiresAt}" IS NULL OR q."${queue.lease.expiresAt}" < ${s.time(now)})`;
}

function touched(queue: QueueDescription, s: Statement, now: Date): string {
  return [
    queue.bumpVersion ? `, "version" = "version" + 1` : '',
    queue.hasUpdatedAt ? `, "updatedAt" = ${s.time(now)}` : '',
  ].join('');
}

const idChunk = 500;

export interface ClaimRequest {
  token: string;
  now: Date;
  leaseMs: number;
  limit: number;
  /** Overrides the queue's `perGroup.max` for this claim. */
  perGroupMax?: number;
}

/**
 * Leases up to `limit` due, lease-free rows to `token` (the oldest first); returns their ids in no particular
 * order: callers read the rows back in the order they need.
 */
export async function claimDue(db: Db, queue: QueueDescription, request: ClaimRequest): Promise<string[]> {
  if (request.limit <= 0) return [];
  const s = new Statement(providerOf(db));
  const { now } = request;
  const lease = queue.lease;
  const head = `UPDATE "${queue.table}" SET "${lease.owner}" = ${s.value(request.token, 'text')}, "${lease.expiresAt}" = ${s.time(new Date(now.getTime() + request.leaseMs))}${touched(queue, s, now)}`;
  // Placeholders are numbered (PostgreSQL) or positional (SQLite): every part is built in text order.
  const group = () =>
    queue.perGroup
      ? ` AND q."id" IN (SELECT w."id" FROM (SELECT q."id", ROW_NUMBER() OVER (PARTITION BY q."${queue.perGroup.column}" ORDER BY ${queue.orderBy}) AS rn FROM "${queue.table}" AS q WHERE ${leaseFree(queue, s, now)} AND (${s.sql(queue.due, now)})) AS w WHERE w.rn <= ${s.value(request.perGroupMax ?? queue.perGroup.max, 'integer')})`
      : '';
  const pick = `SELECT q."id" FROM "${queue.table}" AS q WHERE ${leaseFree(queue, s, now)} AND (${s.sql(queue.due, now)})${group()} ORDER BY ${queue.orderBy} LIMIT ${s.value(request.limit, 'integer')}${s.provider === 'postgresql' ? ' FOR UPDATE OF q SKIP LOCKED' : ''}`;
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    `${head} WHERE "id" IN (${pick}) RETURNING "id"`,
    ...s.params,
  );
  return rows.map((x) => x.id);
}

/** Extends the lease of those of `ids` still held by `token`; returns the ids still held. */
export async function renewLeases(
  db: Db,
  queue: QueueDescription,
  token: string,
  ids: readonly string[],
  expiresAt: Date,
): Promise<string[]> {
  const held: string[] = [];
  for (let start = 0; start < ids.length; start += idChunk) {
    const s = new Statement(providerOf(db));
    const rows = await db.$queryRawUnsafe<{ id: string }[]>(
      `UPDATE "${queue.table}" SET "${queue.lease.expiresAt}" = ${s.time(expiresAt)} WHERE "${queue.lease.owner}" = ${s.value(token, 'text')} AND "id" IN (${s.list(ids.slice(start, start + idChunk))}) RETURNING "id"`,
      ...s.params,
    );
    for (const row of rows) held.push(row.id);
  }
  return held;
}

/** Gives back those of `ids` still held by `token`, untouched otherwise; returns how many. */
export async function releaseLeases(
  db: Db,
  queue: QueueDescription,
  token: string,
  ids: readonly string[],
  now: Date = new Date(),
): Promise<number> {
  let released = 0;
  for (let start = 0; start < ids.length; start += idChunk) {
    const s = new Statement(providerOf(db));
    released += await db.$executeRawUnsafe(
      `UPDATE "${queue.table}" SET "${queue.lease.owner}" = NULL, "${queue.lease.expiresAt}" = NULL${touched(queue, s, now)} WHERE "${queue.lease.owner}" = ${s.value(token, 'text')} AND "id" IN (${s.list(ids.slice(start, start + idChunk))})`,
      ...s.params,
    );
  }
  return released;
}

export interface QueueDepth {
  /** Rows due now and not leased. */
  due: number;
  /** How long the oldest of them has waited, in seconds (0 when none). */
  oldestDueAgeS: number;
}

export async function queueDepth(
  db: Db,
  queue: QueueDescription,
  now: Date = new Date(),
): Promise<QueueDepth> {
  const s = new Statement(providerOf(db));
  const rows = await db.$queryRawUnsafe<{ n: number | bigint; oldest: string | Date | null }[]>(
    `SELECT COUNT(*) AS n, MIN(q."${queue.dueSince}") AS oldest FROM "${queue.table}" AS q WHERE ${leaseFree(queue, s, now)} AND (${s.sql(queue.due, now)})`,
    ...s.params,
  );
  const row = rows[0];
  const oldest = row?.oldest ? new Date(row.oldest) : null;
  return {
    due: Number(row?.n ?? 0),
    oldestDueAgeS: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
  };
}

/** Lease length and heartbeat, settable by env (WORKER_LEASE_MS, WORKER_LEASE_RENEW_MS). */
export interface LeaseTiming {
  leaseMs: number;
  /** How often held leases are renewed; default a third of the lease. */
  renewEveryMs?: number;
}

export const defaultLeaseTiming: Required<LeaseTiming> = { leaseMs: 15_000, renewEveryMs: 5_000 };

/**
 * A process's hold on one queue: one token for all it claims, a heartbeat that renews the leases of the
 * rows it still works on, and the knowledge of whether a lease can still be relied on (a holder whose
 * heartbeat stalled, e.g. a blocked event loop, must not start a call another process may be making).
 */
export interface LeaseHolder {
  readonly queue: QueueDescription;
  readonly token: string;
  readonly leaseMs: number;
  /** Leases up to `limit` due rows, the oldest first; returns their ids (in no particular order). */
  claim(limit: number, options?: { now?: Date; perGroupMax?: number }): Promise<string[]>;
  /** The row's lease is this holder's and has not run out as far as this process knows. */
  holds(id: string): boolean;
  /** Stops renewing these rows: done (completed by their own update) or left leased on purpose. */
  forget(ids: Iterable<string>): void;
  /** Gives back rows not worked on. */
  release(ids: readonly string[]): Promise<number>;
  /** Renews now (the heartbeat calls this); returns how many rows are still held. */
  renew(): Promise<number>;
  /** Ends the heartbeat and gives back every row still held. */
  close(): Promise<void>;
}

/** What a claimer needs to hold its queue for one pass: the worker's holder, or what to make one from. */
export interface PassLeaseDeps {
  prisma: DatabaseClient;
  /** The worker's hold on the queue, renewed for the worker's whole life. */
  leases?: LeaseHolder;
  owner?: string;
  logger?: Logger;
  /** Lease length of a holder made for the pass. */
  leaseMs?: number;
  now?: () => Date;
}

/**
 * Runs one pass over a queue with the worker's holder or, when there is none (a test, the CLI), with a
 * holder made for the pass and closed after it, which gives back whatever it still holds.
 */
export async function withPassLeases<T>(
  deps: PassLeaseDeps,
  queue: QueueDescription,
  pass: (leases: LeaseHolder) => Promise<T>,
): Promise<T> {
  if (deps.leases) return pass(deps.leases);
  const leases = createLeaseHolder(deps.prisma, queue, {
    owner: deps.owner ?? 'worker',
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.leaseMs ? { timing: { leaseMs: deps.leaseMs } } : {}),
    ...(deps.now ? { now: deps.now } : {}),
  });
  try {
    return await pass(leases);
  } finally {
    await leases.close();
  }
}

export function createLeaseHolder(
  db: DatabaseClient,
  queue: QueueDescription,
  options: { owner: string; timing?: LeaseTiming; logger?: Logger; now?: () => Date },
): LeaseHolder {
  const leaseMs = options.timing?.leaseMs ?? defaultLeaseTiming.leaseMs;
  const renewEveryMs = options.timing?.renewEveryMs ?? Math.max(1, Math.floor(leaseMs / 3));
  const clock = options.now ?? (() => new Date());
  const token = `${options.owner}:${queue.name}:${randomUUID()}`;
  /** Held rows and until when their lease is known to run (by this process's clock). */
  const held = new Map<string, number>();
  let timer: NodeJS.Timeout | null = null;
  let renewing: Promise<number> | null = null;

  const schedule = () => {
    if (timer || held.size === 0) return;
    timer = setInterval(() => {
      void holder.renew().catch((error: unknown) => {
        options.logger?.warn(
          { queue: queue.name, err: error instanceof Error ? error.message : String(error) },
          'lease renewal failed; will try again',
        );
      });
    }, renewEveryMs);
    timer.unref();
  };
  const unschedule = () => {
    if (timer && held.size === 0) {
      clearInterval(timer);
      timer = null;
    }
  };

  const holder: LeaseHolder = {
    queue,
    token,
    leaseMs,
    async claim(limit, claimOptions = {}) {
      // Counted from before the statement: never longer than the lease really runs.
      const until = Date.now() + leaseMs;
      const now = claimOptions.now ?? clock();
      const ids = await claimDue(db, queue, {
        token,
        now,
        leaseMs,
        limit,
        ...(claimOptions.perGroupMax === undefined ? {} : { perGroupMax: claimOptions.perGroupMax }),
      });
      for (const id of ids) held.set(id, until);
      schedule();
      return ids;
    },
    holds(id) {
      const until = held.get(id);
      return until !== undefined && Date.now() < until;
    },
    forget(ids) {
      for (const id of ids) held.delete(id);
      unschedule();
    },
    async release(ids) {
      holder.forget(ids);
      return ids.length === 0 ? 0 : releaseLeases(db, queue, token, ids, clock());
    },
    renew() {
      renewing ??= (async () => {
        try {
          const ids = [...held.keys()];
          if (ids.length === 0) return 0;
          const started = Date.now();
          const still = new Set(
            await renewLeases(db, queue, token, ids, new Date(clock().getTime() + leaseMs)),
          );
          let lost = 0;
          for (const id of ids) {
            if (!held.has(id)) continue; // finished while the renewal ran
            if (still.has(id)) held.set(id, started + leaseMs);
            else {
              held.delete(id);
              lost++;
            }
          }
          if (lost > 0) {
            options.logger?.warn(
              { queue: queue.name, count: lost },
              'leases lost; another process has the rows',
            );
          }
          unschedule();
          return held.size;
        } finally {
          renewing = null;
        }
      })();
      return renewing;
    },
    async close() {
      const ids = [...held.keys()];
      held.clear();
      unschedule();
      if (ids.length > 0) await releaseLeases(db, queue, token, ids, clock());
    },
  };
  return holder;
}
