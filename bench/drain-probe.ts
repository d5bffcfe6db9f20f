/**
 * `npx tsx bench/drain-probe.ts [pushes] [sqlite|sqlite64|pg1|pg2]...`: only the named phases of the full bench
 * (the same burst, emulator and store; `pushes`: the status-push burst accepting only, then while applying),
 * to profile one phase (with BENCH_CPU_PROF_DIR) without the rest of the run. Prints each phase's figures.
 */
import { randomBytes } from 'node:crypto';
import { benchShops, emulatorAccounts, makeBurst } from './burst.js';
import { readSample } from '../tools/dev/samples.js';
import { Cleanup } from './cleanup.js';
import { prepareDrain } from './drain.js';
import { startEmulatorProcess } from './emulator.js';
import { benchParams } from './params.js';
import { freePort } from './processes.js';
import { startBenchStore } from './store.js';
import { measurePushBurst } from './pushes.js';
import { measureIntake, startIntakeServers } from './intake.js';
import { startLoadGenerator } from './load-client.js';
import { benchPostgres } from './postgres.js';

const write = (line: string) => process.stdout.write(`${line}\n`);
const kinds = {
  sqlite: { provider: 'sqlite', role: 'all', processes: 1 },
  sqlite64: { provider: 'sqlite', role: 'all', processes: 1, workerConcurrency: 64 },
  pg1: { provider: 'postgresql', role: 'worker', processes: 1 },
  pg2: { provider: 'postgresql', role: 'worker', processes: 2 },
} as const;

async function main(cleanup: Cleanup) {
  const names = process.argv.slice(2).filter((a): a is keyof typeof kinds => a in kinds);
  const params = benchParams(false);
  const postgresAdminUrl = await benchPostgres(cleanup, write);
  const secret = randomBytes(24).toString('hex');
  const encryptionKey = `bench:${randomBytes(32).toString('base64')}`;
  const shops = benchShops(params.drain.shops);
  const burst = makeBurst({ fulfillments: params.drain.fulfillments, shops, seed: params.drain.seed });
  const port = await freePort();
  const emulator = await startEmulatorProcess({
    port,
    latencyMs: params.drain.latencyMs,
    accounts: emulatorAccounts(shops),
  });
  const store = await startBenchStore(cleanup);
  if (process.argv.includes('intake')) {
    const [loadgen, servers] = await Promise.all([
      startLoadGenerator(),
      startIntakeServers({
        secret,
        encryptionKey,
        trackingApiBaseUrl: emulator.baseUrl,
        postgresAdminUrl,
        cleanup,
      }),
    ]);
    try {
      const r = await measureIntake(servers, {
        ...params.intake,
        secret,
        shops: shops.map((s) => s.domain),
        fixture: readSample('fulfillments-create.ups'),
        loadgen,
        log: write,
      });
      write(`intake: ${JSON.stringify(r).slice(0, 400)}`);
    } finally {
      await loadgen.close();
      await servers.dispose();
    }
  }
  if (process.argv.includes('pushes')) {
    for (const role of ['web', 'all'] as const) {
      const r = await measurePushBurst({
        ...params.pushes,
        shops: shops.slice(0, 4),
        trackingApiBaseUrl: emulator.baseUrl,
        secret,
        encryptionKey,
        cleanup,
        log: write,
        role,
      });
      write(`pushes ${role}: ${JSON.stringify(r).slice(0, 600)}`);
    }
  }
  for (const name of names) {
    const drain = await prepareDrain({
      ...kinds[name],
      name,
      burst,
      shops,
      emulator,
      store,
      secret,
      encryptionKey,
      postgresAdminUrl,
      timeoutSec: params.drain.timeoutSec,
      progressEverySec: params.drain.progressEverySec,
      cleanup,
      log: write,
    });
    const r = await drain.run();
    write(
      `${name}: ${r.trackersPerSec.toFixed(0)}/s, creates/tracker ${r.createsPerTracker.toFixed(3)}, ` +
        `deliveries done at ${r.deliveriesDoneSec?.toFixed(1)} s, cpu ${JSON.stringify(r.cpu)}`,
    );
  }
}

const cleanup = new Cleanup();
main(cleanup).then(
  async () => {
    await cleanup.runAll(write);
    process.exit(0);
  },
  async (error: unknown) => {
    write(String(error instanceof Error ? error.stack : error));
    await cleanup.runAll(write);
    process.exit(1);
  },
);
