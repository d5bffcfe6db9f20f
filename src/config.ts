import { isIP } from 'node:net';
import { z } from 'zod';

/**
 * The one place that reads the environment. Every other module receives its settings as arguments.
 * Each loader takes the environment as a parameter (default: process.env) so tests can pass their own.
 */

export type Env = Record<string, string | undefined>;

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

const boolFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses env with a schema; on failure names every bad variable, never its value (it may be a secret). */
export function parseEnv<S extends z.ZodType>(schema: S, env: Env): z.output<S> {
  const cleaned: Env = {};
  for (const [k, v] of Object.entries(env)) cleaned[k] = v === '' ? undefined : v;
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  // One wording for every entry point (npm start, the CLI, dev): an unset variable "is not set".
  throw new ConfigError(
    result.error.issues.map((i) =>
      /received undefined$/.test(i.message)
        ? `${i.path.join('.')} is not set`
        : `${i.path.join('.') || '(env)'}: ${i.message}`,
    ),
  );
}

export { boolFlag, logLevel };

/** Address ranges Express names (proxy-addr): 127.0.0.1/8 and ::1; 169.254/16 and fe80::/10; private ranges. */
const namedRanges = ['loopback', 'linklocal', 'uniquelocal'];

/**
 * TRUST_PROXY: the proxies in front of the app, whose `X-Forwarded-For` entries are believed
 * (src/lib/client-address.ts). A hop count (0–10: 1 is one reverse proxy or load balancer), or a
 * comma-separated list of their addresses, ranges (a.b.c.d/n) and loopback|linklocal|uniquelocal.
 * `true` (believe every hop) is refused: the client could then name any address it likes.
 */
export const trustProxySetting = z
  .string()
  .optional()
  .transform((value, ctx): number | string[] => {
    const text = (value ?? '1').trim();
    if (/^\d+$/.test(text)) {
      const hops = Number(text);
      if (hops <= 10) return hops;
      ctx.addIssue({ code: 'custom', message: 'a hop count is at most 10' });
      return z.NEVER;
    }
    if (/^(true|false|yes|no|all)$/i.test(text)) {
      ctx.addIssue({
        code: 'custom',
        message:
          'give the number of proxies in front of the app (e.g. 1) or their addresses; trusting every hop would let a visitor name its own address',
      });
      return z.NEVER;
    }
    const entries = text.split(',').map((entry) => entry.trim());
    for (const entry of entries) {
      if (namedRanges.includes(entry)) continue;
      const [address = '', bits, extra] = entry.split('/');
      const family = isIP(address);
      const maxBits = family === 6 ? 128 : 32;
      const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits);
      if (family === 0 || !bitsOk || extra !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: `"${entry.slice(0, 60)}" is not a hop count, an address, a range (a.b.c.d/n) or ${namedRanges.join('|')}`,
        });
        return z.NEVER;
      }
    }
    return entries;
  });

/** A sender: `address@domain`, or `Name <address@domain>` (no line breaks, no second address). */
const mailFromPattern = /^(?:[^<>\r\n@]*<[^<>\s@]+@[^<>\s@]+>|[^<>\s@]+@[^<>\s@]+)$/;

const appEnv = z
  .object({
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    DATABASE_URL: z
      .string()
      .regex(/^(file:|postgres(ql)?:\/\/)/, 'must start with file: (SQLite) or postgres:// (PostgreSQL)')
      .default('file:./data/tracksync.db'),
    SHOPIFY_API_KEY: z.string().min(1),
    SHOPIFY_API_SECRET: z.string().min(1),
    SHOPIFY_APP_URL: z.url({ protocol: /^https?$/ }),
    TRACKING_API_BASE_URL: z
      .url({ protocol: /^https?$/ })
      .regex(/\/v\d+\/?$/, 'must end with the version segment, e.g. /v1'),
    ENCRYPTION_KEY: z.string().min(1),
    LOG_LEVEL: logLevel,
    /** web: HTTP only; worker: background work only; all: both in one process. */
    ROLE: z.enum(['all', 'web', 'worker']).default('all'),
    WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
    /** How long a worker's claim on a row lasts without renewal: a dead worker's work waits at most this. */
    WORKER_LEASE_MS: z.coerce.number().int().min(1_000).max(600_000).default(15_000),
    /** How often held leases are renewed (default a third of WORKER_LEASE_MS). */
    WORKER_LEASE_RENEW_MS: z.coerce.number().int().min(100).max(300_000).optional(),
    /** How long one request to the tracking service may take. */
    TRACKING_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
    /** GET /metrics on its own listener at this port (bound to METRICS_HOST). Unset: no such listener. */
    METRICS_PORT: z.coerce.number().int().min(0).max(65535).optional(),
    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    /** GET /metrics on the app's port, only with `Authorization: Bearer <METRICS_TOKEN>`. Unset: no such route. */
    METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
    /** How often /metrics reads its database figures (queue depths, trackers by state, paused shops) again. */
    METRICS_DATABASE_EVERY_MS: z.coerce.number().int().min(0).max(3_600_000).default(60_000),
    /**
     * Where the page loads App Bridge and Polaris from: the platform's CDN (cdn, as it requires), or the
     * app's offline stand-ins (stand-in: tests and offline development only; it is not the admin).
     */
    ADMIN_UI_SCRIPTS: z.enum(['cdn', 'stand-in']).default('cdn'),
    /** The shoppers' tracking page reads an order again when its newest stored status is older than this. */
    TRACKING_PAGE_REFRESH_MINUTES: z.coerce.number().int().min(1).max(1440).default(30),
    /** The proxies in front of the app (see trustProxySetting). */
    TRUST_PROXY: trustProxySetting,
    /** A visitor's failed lookups at a shop before each further one holds it back (2 s, doubling, up to 1 h). */
    TRACKING_PAGE_FAILED_LOOKUPS: z.coerce.number().int().min(1).max(100).default(5),
    /** Failed lookups a minute at which a shop is under attack: then every visitor backs off after one. */
    TRACKING_PAGE_SHOP_FAILED_LOOKUPS_PER_MINUTE: z.coerce.number().int().min(1).max(100_000).default(60),
    /** Tracking service calls (order refreshes) a shop's tracking page may cause a minute. */
    TRACKING_PAGE_REFRESHES_PER_MINUTE: z.coerce.number().int().min(0).max(10_000).default(30),
    /**
     * Retention (src/jobs/retention.ts). Processed webhook deliveries and applied status pushes are kept this
     * long: the duplicate window (the platform retries for 48 h, so at least 3 days).
     */
    RETENTION_DELIVERY_DAYS: z.coerce.number().int().min(3).max(365).default(7),
    /** Deliveries and pushes that failed are kept this long for an operator to look at and retry. */
    RETENTION_FAILED_DELIVERY_DAYS: z.coerce.number().int().min(3).max(3650).default(30),
    /** Store fulfilment events written (or skipped) are deleted this long after they were queued. */
    RETENTION_STORE_EVENT_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
    /** Settled trackers (no work left for them), their lines and fulfilments go after this long with no activity. */
    RETENTION_TRACKER_DAYS: z.coerce.number().int().min(30).max(3650).default(400),
    /** Rows per retention statement: each is short, and the worker yields between them. */
    RETENTION_BATCH_SIZE: z.coerce.number().int().min(10).max(5000).default(200),
    /**
     * The SMTP server the daily digest e-mails go through (src/notifications/mailer.ts): smtp://host:port
     * (STARTTLS when the server offers it), smtps://host:465, credentials as user:password@. Unset: no
     * e-mail digests (the Slack ones still go).
     */
    SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
    /** The digest's sender: `address@domain` or `Name <address@domain>`. Needed with SMTP_URL. */
    MAIL_FROM: z
      .string()
      .regex(mailFromPattern, 'must be address@domain or Name <address@domain>')
      .optional(),
  })
  .refine((e) => e.WORKER_LEASE_RENEW_MS === undefined || e.WORKER_LEASE_RENEW_MS * 2 <= e.WORKER_LEASE_MS, {
    message: 'must be at most half of WORKER_LEASE_MS, so one missed renewal does not lose the lease',
    path: ['WORKER_LEASE_RENEW_MS'],
  })
  // A failed delivery deleted before the duplicate window ends would let a duplicate of it in again.
  .refine((e) => e.RETENTION_FAILED_DELIVERY_DAYS >= e.RETENTION_DELIVERY_DAYS, {
    message: 'must be at least RETENTION_DELIVERY_DAYS (the duplicate window)',
    path: ['RETENTION_FAILED_DELIVERY_DAYS'],
  })
  .refine((e) => e.SMTP_URL === undefined || e.MAIL_FROM !== undefined, {
    message: 'must be set when SMTP_URL is (the digest e-mails need a sender)',
    path: ['MAIL_FROM'],
  });

/** The shoppers' tracking page's limits (src/proxy/lookup-limits.ts; defaults: defaultLookupLimits). */
export interface LookupLimits {
  /** A visitor's failed lookups at a shop before each further failure holds it back. */
  failuresBeforeBackoff: number;
  /** The same while the shop is under attack. */
  failuresBeforeBackoffUnderAttack: number;
  /** The first hold; each further failure doubles it, up to backoffMaxMs. */
  backoffMs: number;
  backoffMaxMs: number;
  /** A visitor's streak is forgotten this long after its last failure. */
  forgetAfterMs: number;
  /** Failed lookups at a shop in a minute at which it is under attack. */
  shopFailuresPerMinute: number;
  /** Tracking service calls a shop's lookups may cause in a minute. */
  serviceCallsPerMinute: number;
  /** Visitors of a shop with a failure row of their own; beyond it new visitors are held shop-wide. */
  visitorRowsPerShop: number;
}

export interface AppConfig {
  port: number;
  host: string;
  databaseUrl: string;
  shopify: { apiKey: string; apiSecret: string; appUrl: string };
  trackingApiBaseUrl: string;
  /** Raw ENCRYPTION_KEY; parsed into a keyring by the shop repository's factory. */
  encryptionKey: string;
  logLevel: z.infer<typeof logLevel>;
  role: 'all' | 'web' | 'worker';
  workerConcurrency: number;
  lease: { leaseMs: number; renewEveryMs: number };
  trackingTimeoutMs: number;
  /** Where GET /metrics is served: its own listener and/or the app's port behind a token; neither by default. */
  metrics: {
    port: number | null;
    host: string;
    token: string | null;
    /** How often the scrape reads the database figures again (default 60 000; 0: at every scrape). */
    databaseEveryMs?: number;
  };
  adminUiScripts: AdminUiScripts;
  /** The proxies in front of the app: a hop count or their addresses (Express's `trust proxy`). */
  trustProxy: number | string[];
  /** The shoppers' tracking page (GET /proxy): when an order is read again, and its limits (default: defaultLookupLimits). */
  trackingPage: { refreshAfterMs: number; limits?: Partial<LookupLimits> };
  /** How long finished rows are kept (src/jobs/retention.ts), and rows per retention statement; unset: defaults. */
  retention?: {
    deliveryMs: number;
    failedDeliveryMs: number;
    storeEventMs: number;
    trackerMs: number;
    batchSize: number;
  };
  /**
   * The daily digest e-mails (src/notifications/mailer.ts): the SMTP server (SMTP_URL; null: no e-mail
   * digests) and the sender (MAIL_FROM). Unset: as if SMTP_URL were unset.
   */
  mail?: MailSettings;
}

/** Where digest e-mails go out: null smtpUrl means they are not sent. Never logged (it may hold a password). */
export interface MailSettings {
  smtpUrl: string | null;
  from: string | null;
}

export type AdminUiScripts = 'cdn' | 'stand-in';

const day = 24 * 3_600_000;

export function loadAppConfig(env: Env = process.env): AppConfig {
  const e = parseEnv(appEnv, env);
  return {
    port: e.PORT,
    host: e.HOST,
    databaseUrl: e.DATABASE_URL,
    shopify: { apiKey: e.SHOPIFY_API_KEY, apiSecret: e.SHOPIFY_API_SECRET, appUrl: e.SHOPIFY_APP_URL },
    trackingApiBaseUrl: e.TRACKING_API_BASE_URL,
    encryptionKey: e.ENCRYPTION_KEY,
    logLevel: e.LOG_LEVEL,
    role: e.ROLE,
    workerConcurrency: e.WORKER_CONCURRENCY,
    lease: {
      leaseMs: e.WORKER_LEASE_MS,
      renewEveryMs: e.WORKER_LEASE_RENEW_MS ?? Math.floor(e.WORKER_LEASE_MS / 3),
    },
    trackingTimeoutMs: e.TRACKING_TIMEOUT_MS,
    metrics: {
      port: e.METRICS_PORT ?? null,
      host: e.METRICS_HOST,
      token: e.METRICS_TOKEN ?? null,
      databaseEveryMs: e.METRICS_DATABASE_EVERY_MS,
    },
    adminUiScripts: e.ADMIN_UI_SCRIPTS,
    trustProxy: e.TRUST_PROXY,
    trackingPage: {
      refreshAfterMs: e.TRACKING_PAGE_REFRESH_MINUTES * 60_000,
      limits: {
        failuresBeforeBackoff: e.TRACKING_PAGE_FAILED_LOOKUPS,
        shopFailuresPerMinute: e.TRACKING_PAGE_SHOP_FAILED_LOOKUPS_PER_MINUTE,
        serviceCallsPerMinute: e.TRACKING_PAGE_REFRESHES_PER_MINUTE,
      },
    },
    retention: {
      deliveryMs: e.RETENTION_DELIVERY_DAYS * day,
      failedDeliveryMs: e.RETENTION_FAILED_DELIVERY_DAYS * day,
      storeEventMs: e.RETENTION_STORE_EVENT_DAYS * day,
      trackerMs: e.RETENTION_TRACKER_DAYS * day,
      batchSize: e.RETENTION_BATCH_SIZE,
    },
    mail: { smtpUrl: e.SMTP_URL ?? null, from: e.MAIL_FROM ?? null },
  };
}

/** The dev defaults `npm run dev` fills in for whatever the environment leaves unset. */
export const devDefaults: Env = {
  PORT: '3000',
  HOST: '127.0.0.1',
  DATABASE_URL: 'file:./data/dev.db',
  SHOPIFY_API_KEY: 'dev-api-key',
  SHOPIFY_API_SECRET: 'dev-app-secret',
  SHOPIFY_APP_URL: 'http://127.0.0.1:3000',
  // A fixed key for local development only: it protects nothing but the emulator's demo key.
  ENCRYPTION_KEY: 'dev:ZGV2LW9ubHktZW5jcnlwdGlvbi1rZXktMzItYnl0ZXM=',
  LOG_LEVEL: 'info',
  // The page runs without the platform's CDN (no admin around it locally): the offline stand-ins.
  ADMIN_UI_SCRIPTS: 'stand-in',
  // The digest e-mails go to the dev mail catcher (tools/dev/mail-catcher.ts), which sets SMTP_URL.
  MAIL_FROM: 'tracksync dev <digest@tracksync.test>',
};

/** Where `npm run dev` writes the settings the operator CLI reads: DEV_ENV_FILE, default `.env.development`. */
export function devEnvFilePath(env: Env = process.env): string {
  return env.DEV_ENV_FILE || '.env.development';
}

/** Loads `.env` from the working directory when there is one (Node's own parser); the real environment wins. */
export function loadDotEnvFile(path = '.env'): void {
  try {
    process.loadEnvFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
}
