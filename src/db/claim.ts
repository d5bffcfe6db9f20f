import type { DatabaseClient, Tx } from './client.js';
import type { DatabaseProvider } from './provider.js';

/**
 * Leasing rows for one worker. Every queue table (deliveries, trackers, backfill jobs) is claimed the same
 * way: pick due, lease-free rows, write this pass's lease token and expiry on them, read them back by token.
 *
 * On PostgreSQL the pick and the lease are one statement whose subquery takes row locks with
 * `FOR UPDATE SKIP LOCKED`: two workers claiming at the same moment each get different rows at once,
 * neither waits for the other, neither comes back with fewer rows than were due. On SQLite (one writer at
 * a time, so there is nothing to skip) a select and a conditional update do the same job; the condition
 * repeats the lease-free test, so a row is never leased twice.
 */

const providers = new WeakMap<object, DatabaseProvider>();

/** Called by createDatabase: which provider a client talks to. */
export function registerProvider(prisma: DatabaseClient, provider: DatabaseProvider): void {
  providers.set(prisma, provider);
}

/**
 * The provider of a client made by createDatabase, or of a transaction's client (Prisma keeps the provider
 * it was generated for on every client it makes); anything else is taken as SQLite.
 */
export function providerOf(prisma: DatabaseClient | Tx): DatabaseProvider {
  const registered = providers.get(prisma);
  if (registered) return registered;
  const active = (prisma as { _activeProvider?: unknown })._activeProvider;
  return active === 'postgresql' ? 'postgresql' : 'sqlite';
}

/** What to claim, in SQL for PostgreSQL (alias `q` for the table) and as a Prisma filter for SQLite. */
export interface ClaimQuery {
  table: 'Tracker' | 'WebhookDelivery' | 'BackfillJob';
  /**
   * Extra PostgreSQL conditions beyond "lease free", with `$now` standing for the claim's time. Trusted
   * SQL written in this codebase only: never built from input.
   */
  sqlWhere: string;
  /** Column to take the oldest rows first by. */
  orderBy: 'nextAttemptAt' | 'receivedAt' | 'updatedAt';
  /** Also bump the row's optimistic-lock `version` (the Tracker table has one). */
  bumpVersion?: boolean;
  /** The table has a Prisma `@updatedAt` column, which raw SQL must set itself. */
  hasUpdatedAt: boolean;
}

export interface ClaimRequest {
  token: string;
  now: Date;
  leaseMs: number;
  limit: number;
}

/** PostgreSQL: leases up to `limit` due rows with FOR UPDATE SKIP LOCKED, returns their ids. */
export async function claimSkipLocked(
  prisma: DatabaseClient,
  query: ClaimQuery,
  request: ClaimRequest,
): Promise<string[]> {
  // DateTime columns are `timestamp(3)` holding UTC; an ISO string cast to timestamp keeps its UTC wall
  // clock whatever the session's time zone is.
  const now = '$1::timestamp(3)';
  const sql = `
    UPDATE "${query.table}" AS u
       SET "leaseOwner" = $2,
           "leaseExpiresAt" = $3::timestamp(3)
           ${query.bumpVersion ? `, "version" = u."version" + 1` : ''}
           ${query.hasUpdatedAt ? `, "updatedAt" = ${now}` : ''}
     WHERE u."id" IN (
       SELECT q."id" FROM "${query.table}" AS q
        WHERE (q."leaseExpiresAt" IS NULL OR q."leaseExpiresAt" < ${now})
          AND ${query.sqlWhere.replaceAll('$now', now)}
        ORDER BY q."${query.orderBy}" ASC
        LIMIT $4
        FOR UPDATE OF q SKIP LOCKED)
    RETURNING u."id"`;
  const rows = await prisma.$queryRawUnsafe<{ id: string }[]>(
    sql,
    request.now.toISOString(),
    request.token,
    new Date(request.now.getTime() + request.leaseMs).toISOString(),
    request.limit,
  );
  return rows.map((r) => r.id);
}
