/**
 * Intake: signed deliveries per second through the app's `POST /webhooks` (HMAC, dedupe, durable insert),
 * against a no-op Express route and a bare node:http server measured in the same run, each a child process
 * loaded by the load-generator child over 127.0.0.1. Then latency at half the app's maximum rate.
 */
import { startApp } from './app-process.js';
import type { Cleanup } from './cleanup.js';
import { type CpuUsage, formatCpu, measureCpu } from './cpu.js';
import { type BenchDatabase, scratchDatabase, withDatabase } from './database.js';
import type { LoadGenerator } from './load-client.js';
import type { LoadResult, WebhookTarget } from './load-protocol.js';
import { type Child, spawnTsx } from './processes.js';

export interface IntakeServerOptions {
  secret: string;
  encryptionKey: string;
  trackingApiBaseUrl: string;
  postgresAdminUrl: string;
  cleanup: Cleanup;
}

export interface IntakeOptions {
  warmupSec: number;
  durationSec: number;
  halfLoadSec: number;
  connections: number;
  secret: string;
  /** Shop domains the deliveries rotate over. */
  shops: string[];
  /** The fulfilments/create body. */
  fixture: Record<string, unknown>;
  loadgen: LoadGenerator;
  log: (line: string) => void;
}

/** A measured load run, with the CPU the server and the load generator used meanwhile. */
export type IntakeRun = LoadResult & { cpu: CpuUsage };

export interface IntakeResult {
  nodeHttp: IntakeRun;
  express: IntakeRun;
  app: IntakeRun;
  appPg: IntakeRun;
  halfLoad: {
    rate: number;
    /** autocannon with overallRate = half the app's max. */
    autocannon: IntakeRun;
    /** The same rate, evenly spaced (open loop). */
    paced: IntakeRun;
  };
  /** WebhookDelivery rows after the runs vs 2xx answers the app gave (every 2xx must be a stored row). */
  stored: { sqlite: { rows: number; accepted: number }; postgresql: { rows: number; accepted: number } };
}

interface Server {
  url: string;
  pid: number;
  child: Child;
}

/** The four servers under test, started and idle. */
export interface IntakeServers {
  nodeHttp: Server;
  express: Server;
  /** The app (`--role web`) on a fresh SQLite file. */
  app: Server;
  /** The app (`--role web`) on a fresh PostgreSQL database. */
  appPg: Server;
  /** Stops the four processes (the databases stay). */
  stopProcesses(): Promise<void>;
  /** WebhookDelivery rows of the app's databases. */
  storedRows(): Promise<{ sqlite: number; postgresql: number }>;
  /** Stops the processes and drops the databases (idempotent). */
  dispose(): Promise<void>;
}

async function startNoop(name: string, script: string): Promise<{ child: Child; url: string }> {
  const child = spawnTsx(name, script, ['0'], {});
  const line = await child.waitForLine(`${name} to listen`, (l) => l.startsWith('listening http://'), 30_000);
  return { child, url: line.slice('listening '.length).trim() };
}

export async function startIntakeServers(options: IntakeServerOptions): Promise<IntakeServers> {
  const databases: BenchDatabase[] = [];
  const children: Child[] = [];
  const stop = async () => {
    await Promise.all(children.map((c) => c.stop(5_000)));
  };
  try {
    const startApps = async () => {
      const [sqliteDb, pgDb] = await Promise.all([
        scratchDatabase('sqlite', options.cleanup),
        scratchDatabase('postgresql', options.cleanup, options.postgresAdminUrl),
      ]);
      databases.push(sqliteDb, pgDb);
      const appSettings = (databaseUrl: string) => ({
        databaseUrl,
        trackingApiBaseUrl: options.trackingApiBaseUrl,
        secret: options.secret,
        encryptionKey: options.encryptionKey,
      });
      return Promise.all([
        startApp('app-web-sqlite', 'web', appSettings(sqliteDb.url)),
        startApp('app-web-pg', 'web', appSettings(pgDb.url)),
      ]);
    };
    const [nodeHttp, express, [app, appPg]] = await Promise.all([
      startNoop('noop-http', 'bench/noop-http-server.ts'),
      startNoop('noop-express', 'bench/noop-express-server.ts'),
      startApps(),
    ]);
    children.push(nodeHttp.child, express.child, app.child, appPg.child);
    const server = (url: string, child: Child): Server => ({ url, pid: child.pid, child });
    return {
      nodeHttp: server(nodeHttp.url, nodeHttp.child),
      express: server(express.url, express.child),
      app: server(app.url!, app.child),
      appPg: server(appPg.url!, appPg.child),
      async storedRows() {
        const [sqlite, postgresql] = await Promise.all(
          databases.map((db) => withDatabase(db.url, (client) => client.prisma.webhookDelivery.count())),
        );
        return { sqlite: sqlite ?? 0, postgresql: postgresql ?? 0 };
      },
      stopProcesses: stop,
      async dispose() {
        await stop();
        await Promise.all(databases.map((d) => d.drop()));
      },
    };
  } catch (error) {
    await stop();
    await Promise.all(databases.map((d) => d.drop()));
    throw error;
  }
}

/** Max rate of each server (one at a time), then the app at half its max rate. */
export async function measureIntake(servers: IntakeServers, options: IntakeOptions): Promise<IntakeResult> {
  const { loadgen, log } = options;
  try {
    const target = (url: string): WebhookTarget => ({
      url,
      secret: options.secret,
      topic: 'fulfillments/create',
      shops: options.shops,
      fixture: options.fixture,
    });
    const accepted = new Map<string, number>();
    const describe = (r: IntakeRun) =>
      `p50 ${r.latencyMs.p50.toFixed(2)} ms, p99 ${r.latencyMs.p99.toFixed(2)} ms; ${formatCpu(r.cpu)}`;
    const run = async (
      name: string,
      server: Server,
      request: { durationSec: number; mode?: 'closed' | 'paced'; rate?: number },
    ): Promise<IntakeRun> => {
      const alive = () => {
        if (!server.child.running()) {
          throw new Error(`${server.child.name} is not running\n${server.child.output().slice(-3000)}`);
        }
      };
      alive();
      const cpu = measureCpu({ server: server.pid, 'load generator': loadgen.child.pid });
      const result = await loadgen.run({
        target: target(server.url),
        mode: request.mode ?? 'closed',
        connections: options.connections,
        durationSec: request.durationSec,
        ...(request.rate !== undefined ? { rate: request.rate } : {}),
      });
      const measured = { ...result, cpu: cpu.stop() };
      alive();
      accepted.set(server.url, (accepted.get(server.url) ?? 0) + result.ok2xx);
      if (result.non2xx > 0 || result.errors > 0) {
        log(
          `  [${name}] WARNING: ${result.non2xx} non-2xx answers, ${result.errors} errors ` +
            `(${JSON.stringify(result.statusCodes)})`,
        );
      }
      return measured;
    };
    const measureMax = async (name: string, server: Server) => {
      await run(name, server, { durationSec: options.warmupSec });
      const result = await run(name, server, { durationSec: options.durationSec });
      log(`  [${name}] ${Math.round(result.rps)} req/s (${describe(result)})`);
      return result;
    };

    const nodeHttpResult = await measureMax('node:http no-op', servers.nodeHttp);
    const expressResult = await measureMax('Express no-op', servers.express);
    const appServer = servers.app;
    const appResult = await measureMax('app, SQLite', appServer);
    const rate = Math.max(1, Math.round(appResult.rps / 2));
    const halfAutocannon = await run('app, SQLite, half load', appServer, {
      durationSec: options.halfLoadSec,
      rate,
    });
    log(`  [app, SQLite, half load: autocannon overallRate ${rate}/s] ${describe(halfAutocannon)}`);
    const halfPaced = await run('app, SQLite, half load, evenly spaced', appServer, {
      durationSec: options.halfLoadSec,
      rate,
      mode: 'paced',
    });
    log(`  [app, SQLite, half load: evenly spaced ${rate}/s] ${describe(halfPaced)}`);
    const appPgResult = await measureMax('app, PostgreSQL', servers.appPg);

    await servers.stopProcesses();
    const rows = await servers.storedRows();
    return {
      nodeHttp: nodeHttpResult,
      express: expressResult,
      app: appResult,
      appPg: appPgResult,
      halfLoad: { rate, autocannon: halfAutocannon, paced: halfPaced },
      stored: {
        sqlite: { rows: rows.sqlite, accepted: accepted.get(servers.app.url) ?? 0 },
        postgresql: { rows: rows.postgresql, accepted: accepted.get(servers.appPg.url) ?? 0 },
      },
    };
  } finally {
    await servers.dispose();
  }
}
