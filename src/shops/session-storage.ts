import { Session } from '@shopify/shopify-api';
import type { SessionStorage } from '@shopify/shopify-app-session-storage';
import { providerOf } from '../db/provider-of.js';
import { truncateWal } from '../db/sqlite-checkpointer.js';
import { type DatabaseClient, isUniqueViolation } from '../db/client.js';
import type { Session as SessionRow } from '../generated/sqlite/client.js';
import { type Logger, silentLogger } from '../logger.js';
import { type EncryptionKeyring, openText, sealText, textNeedsSealing } from './crypto.js';
import {
  countSessions,
  deleteSessionRow,
  deleteSessionRows,
  replaceSessionTokens,
  sessionRowOf,
  sessionRowsOfShop,
  storedSessionTokens,
  upsertSessionRow,
  vacuumSessionTable,
} from './session-repository.js';

/**
 * Shopify sessions in our Prisma database (model Session in prisma/schema.prisma).
 *
 * The behaviour is that of the official `@shopify/shopify-app-session-storage-prisma` adapter
 * (Shopify/shopify-app-js, packages/apps/session-storage/shopify-app-session-storage-prisma/src/prisma.ts),
 * which needs Prisma 6: the same columns and conversions, upsert retried once on a unique-key race
 * (P2002), deleting an unknown id is not an error, findSessionsByShop returns at most 25 sessions,
 * newest expiry first, and a missing table is reported as MissingSessionTableError after a few tries.
 *
 * Differences: the table check runs on first use rather than in the constructor (no promise left
 * rejected when the storage is never used), its failure keeps the driver's error as `cause` and is
 * remembered only when the table is missing (P2021), not when the database is merely unreachable;
 * `connectionRetries` counts retries after the first try (the default 2 means 3 tries, 5 s apart);
 * a field the Session does not have is stored as NULL and read back as absent (not as "null" or
 * false) and an empty scope stays "", so a session equals itself after the round trip even when its
 * user is only partly known;
 * deleteSession ignores only "no such row", not database errors.
 *
 * Sessions carry the store's access and refresh tokens: they are sealed at rest (AES-256-GCM with the
 * ENCRYPTION_KEY keyring, like the service API keys) and opened only here; nothing here logs a session or
 * a row. Rows written before tokens were sealed are read as they are and sealed by sealStoredTokens(),
 * which the runtime runs at start (and which also re-seals tokens of a rotated-out key).
 */
export interface PrismaSessionStorageOptions {
  /** Seals and opens the tokens. */
  keyring: EncryptionKeyring;
  /** How many more times to look for the Session table after the first failure. Default 2. */
  connectionRetries?: number;
  /** Wait between two looks, in ms. Default 5000. */
  connectionRetryIntervalMs?: number;
  logger?: Logger;
}

/** Prisma's "table does not exist" error code. */
const TABLE_DOES_NOT_EXIST = 'P2021';

/** findSessionsByShop's page size, as in the official adapter. */
export const FIND_SESSIONS_LIMIT = 25;

export class PrismaSessionStorage implements SessionStorage {
  private readonly connectionRetries: number;
  private readonly connectionRetryIntervalMs: number;
  private readonly logger: Logger;
  private readonly keyring: EncryptionKeyring;
  private ready: Promise<boolean> | undefined;

  constructor(
    private readonly prisma: DatabaseClient,
    {
      keyring,
      connectionRetries = 2,
      connectionRetryIntervalMs = 5000,
      logger = silentLogger,
    }: PrismaSessionStorageOptions,
  ) {
    this.keyring = keyring;
    this.connectionRetries = Math.max(0, Math.floor(connectionRetries));
    this.connectionRetryIntervalMs = Math.max(0, connectionRetryIntervalMs);
    this.logger = logger;
  }

  async storeSession(session: Session): Promise<boolean> {
    await this.ensureReady();
    const data = sealTokens(this.keyring, sessionToRow(session));
    const upsert = () => upsertSessionRow(this.prisma, data).then(() => true);
    try {
      return await upsert();
    } catch (error) {
      // Two upserts of a new id at once: both miss, both insert, one loses. The row exists now, so
      // the retry updates it.
      if (!isUniqueViolation(error)) throw error;
      this.logger.debug({ code: 'P2002' }, 'session upsert raced a concurrent insert; retrying once');
      return upsert();
    }
  }

  async loadSession(id: string): Promise<Session | undefined> {
    await this.ensureReady();
    const row = await sessionRowOf(this.prisma, id);
    return row ? rowToSession(openTokens(this.keyring, row)) : undefined;
  }

  async deleteSession(id: string): Promise<boolean> {
    await this.ensureReady();
    // deleteMany: no error when the id is unknown (the session is gone either way).
    await deleteSessionRow(this.prisma, id);
    return true;
  }

  async deleteSessions(ids: string[]): Promise<boolean> {
    await this.ensureReady();
    if (ids.length > 0) await deleteSessionRows(this.prisma, ids);
    return true;
  }

  async findSessionsByShop(shop: string): Promise<Session[]> {
    await this.ensureReady();
    const rows = await sessionRowsOfShop(this.prisma, shop, FIND_SESSIONS_LIMIT);
    return rows.map((row) => rowToSession(openTokens(this.keyring, row)));
  }

  /**
   * Seals every token still stored in plain text (rows written before tokens were sealed) or sealed with a
   * key that is no longer the current one. Each row is written only if its tokens are still the ones read,
   * so two processes doing this at once, or a session stored meanwhile, lose nothing. Returns how many
   * rows it sealed.
   */
  async sealStoredTokens(): Promise<number> {
    await this.ensureReady();
    const rows = await storedSessionTokens(this.prisma);
    let sealed = 0;
    for (const row of rows) {
      const stale = (value: string | null) =>
        value !== null && value !== '' && textNeedsSealing(this.keyring, value);
      if (!stale(row.accessToken) && !stale(row.refreshToken)) continue;
      const reseal = (value: string | null) =>
        value === null || value === '' ? value : sealText(this.keyring, openText(this.keyring, value));
      sealed += await replaceSessionTokens(this.prisma, row, {
        accessToken: reseal(row.accessToken) ?? '',
        refreshToken: reseal(row.refreshToken),
      });
    }
    if (sealed > 0) {
      this.logger.info({ sessions: sealed }, 'stored store tokens sealed');
      // SQLite: the pages holding the plaintext are zeroed (secure_delete, see db/client.ts) once the
      // write-ahead log is written back; do it now rather than at some later checkpoint (retried while the
      // checkpointer thread runs one of its own).
      if (providerOf(this.prisma) === 'sqlite') {
        if (!(await truncateWal(this.prisma)))
          this.logger.warn('the write-ahead log could not be emptied now; the next checkpoint clears it');
      }
      // PostgreSQL keeps each replaced row version, plaintext tokens included, in the table's file until
      // its space is reused: VACUUM FULL writes the table anew without them (a short exclusive lock on a
      // small table, once, after the upgrade that sealed them). The WAL, replicas and backups still hold
      // them until recycled: docs/security.md, "Secrets".
      else await vacuumSessionTable(this.prisma);
    }
    return sealed;
  }

  /**
   * Looks for the Session table again (with the configured retries) and remembers the answer: true
   * when the storage can be used. After false, every other method throws MissingSessionStorageError
   * until a later isReady() finds the table.
   */
  async isReady(): Promise<boolean> {
    const ready = this.pollForTable().then(
      () => true,
      () => false,
    );
    this.ready = ready;
    return ready;
  }

  private async ensureReady(): Promise<void> {
    // The first use looks for the table. A missing table (P2021) is kept, as in the official adapter:
    // every call rethrows it until isReady() finds the table. Any other failure (database down) is
    // not kept, so the next call looks again.
    if (!this.ready) {
      const ready: Promise<boolean> = this.pollForTable().then(
        () => true,
        (cause: unknown) => {
          if (errorCode(cause) !== TABLE_DOES_NOT_EXIST && this.ready === ready) this.ready = undefined;
          throw new MissingSessionTableError(
            'The Session table does not exist in the database (or the database cannot be reached): ' +
              'apply the migrations (npm run db:migrate), then call isReady().',
            cause,
          );
        },
      );
      this.ready = ready;
    }
    if (!(await this.ready)) {
      throw new MissingSessionStorageError(
        'Prisma session storage is not ready. Use the `isReady` method to poll for the table.',
      );
    }
  }

  /** Resolves once `SELECT count(*)` on the table works; rejects with the last error after the retries. */
  private async pollForTable(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await countSessions(this.prisma);
        return;
      } catch (error) {
        this.logger.warn({ attempt: attempt + 1, code: errorCode(error) }, 'Session table not available');
        if (attempt >= this.connectionRetries) throw error;
      }
      await sleep(this.connectionRetryIntervalMs);
    }
  }
}

/** The Session table is missing or unreachable: the migrations have not been applied. */
export class MissingSessionTableError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'MissingSessionTableError';
  }
}

/** isReady() last found no table. */
export class MissingSessionStorageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MissingSessionStorageError';
  }
}

function sealTokens(keyring: EncryptionKeyring, row: SessionRow): SessionRow {
  return {
    ...row,
    accessToken: row.accessToken === '' ? '' : sealText(keyring, row.accessToken),
    refreshToken: row.refreshToken === null ? null : sealText(keyring, row.refreshToken),
  };
}

/** The row with its tokens opened (a token stored before sealing reads as it is). */
function openTokens(keyring: EncryptionKeyring, row: SessionRow): SessionRow {
  return {
    ...row,
    accessToken: row.accessToken === '' ? '' : openText(keyring, row.accessToken),
    refreshToken: row.refreshToken === null ? null : openText(keyring, row.refreshToken),
  };
}

function sessionToRow(session: Session): SessionRow {
  const user = session.toObject().onlineAccessInfo?.associated_user;
  return {
    id: session.id,
    shop: session.shop,
    state: session.state,
    isOnline: session.isOnline,
    scope: session.scope ?? null,
    expires: session.expires ?? null,
    accessToken: session.accessToken ?? '',
    refreshToken: session.refreshToken ?? null,
    refreshTokenExpires: session.refreshTokenExpires ?? null,
    userId: toBigInt(user?.id),
    firstName: user?.first_name ?? null,
    lastName: user?.last_name ?? null,
    email: user?.email ?? null,
    accountOwner: user?.account_owner ?? null,
    locale: user?.locale ?? null,
    collaborator: user?.collaborator ?? null,
    emailVerified: user?.email_verified ?? null,
  };
}

/**
 * Back to a Session through Session.fromPropertyArray(…, true), like the official adapter: dates as
 * epoch ms, the associated user (online sessions only) from the user columns. NULL columns are left
 * out, so they come back absent rather than as "null" strings or false.
 */
function rowToSession(row: SessionRow): Session {
  const entries: [string, string | number | boolean][] = [
    ['id', row.id],
    ['shop', row.shop],
    ['state', row.state],
    ['isOnline', row.isOnline],
  ];
  const add = (key: string, value: string | number | boolean | null) => {
    if (value !== null) entries.push([key, value]);
  };
  add('scope', row.scope);
  if (row.expires) add('expires', row.expires.getTime());
  if (row.accessToken) add('accessToken', row.accessToken);
  add('refreshToken', row.refreshToken);
  if (row.refreshTokenExpires) add('refreshTokenExpires', row.refreshTokenExpires.getTime());
  add('userId', row.userId === null ? null : Number(row.userId));
  add('firstName', row.firstName);
  add('lastName', row.lastName);
  add('email', row.email);
  add('accountOwner', row.accountOwner);
  add('locale', row.locale);
  add('collaborator', row.collaborator);
  add('emailVerified', row.emailVerified);
  return Session.fromPropertyArray(entries, true);
}

function toBigInt(id: unknown): bigint | null {
  if (typeof id === 'bigint') return id;
  if (typeof id === 'number' && Number.isSafeInteger(id)) return BigInt(id);
  if (typeof id === 'string' && /^\d+$/.test(id)) return BigInt(id);
  return null;
}

function errorCode(error: unknown): string | undefined {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? code : undefined;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
