/**
 * `npm run bench [-- --quick]`: intake (signed webhooks per second against no-op servers, latency at half
 * load) and drain (a burst of fulfilments to trackers at the emulator) on SQLite and PostgreSQL; status
 * pushes (a burst of 10 000, and reads per delivered parcel with pushes and with polling only). Prints
 * progress, a table, then one `name: value` line per figure; writes bench/results.md (a quick run writes
 * bench/.tmp/results-quick.md instead, so it never replaces the full run's file).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { benchShops, emulatorAccounts, makeBurst } from './burst.js';
import { readSample } from '../tools/dev/samples.js';
import { Cleanup } from './cleanup.js';
import { benchPostgres } from './postgres.js';
import { type PreparedDrain, prepareDrain } from './drain.js';
import { machineBusyNow } from './cpu.js';
import { startEmulatorProcess } from './emulator.js';
import { startBenchStore } from './store.js';
import { measureIntake, startIntakeServers } from './intake.js';
import { startLoadGenerator } from './load-client.js';
import { measureProblemSweep } from './problems.js';
import { measurePushBurst, measurePushesVsPolling } from './pushes.js';
import { benchParams } from './params.js';
import { freePort, onUnexpectedExit, ROOT } from './processes.js';
import {
  cpuLines,
  drainTable,
  figureLines,
  figures,
  integrityProblems,
  intakeTable,
  machineFacts,
  parameterLines,
  problemFigures,
  problemRows,
  pushFigures,
  pushProblems,
  pushRows,
  resultsMarkdown,
  targets,
  warnings,
} from './report.js';

const write = (line: string) => process.stdout.write(`${line}\n`);
const startedAt = performance.now();
/** Progress lines carry the time since the bench started. */
const progress = (line: string) => {
  const lead = /^\n*/.exec(line)![0];
  write(
    `${lead}[${((performance.now() - startedAt) / 1000).toFixed(1).padStart(5)} s] ${line.slice(lead.length)}`,
  );
};

async function main(cleanup: Cleanup): Promise<number> {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean', default: false },
      'worker-concurrency': { type: 'string' },
      'postgres-admin-url': { type: 'string' },
    },
    strict: true,
  });
  const params = benchParams(values.quick);
  const workerConcurrency =
    values['worker-concurrency'] === undefined ? undefined : Number(values['worker-concurrency']);
  if (workerConcurrency !== undefined && !(Number.isInteger(workerConcurrency) && workerConcurrency > 0)) {
    throw new Error('--worker-concurrency must be a positive integer');
  }
  const date = new Date();

  // Fresh secrets per run: the webhook secret (SHOPIFY_API_SECRET) and the key that seals the shops' API keys.
  const secret = randomBytes(24).toString('hex');
  const encryptionKey = `bench:${randomBytes(32).toString('base64')}`;
  const shops = benchShops(params.drain.shops);
  const burst = makeBurst({ fulfillments: params.drain.fulfillments, shops, seed: params.drain.seed });
  const parameters = parameterLines(
    params,
    burst.trackers,
    workerConcurrency === undefined
      ? 'the app default (WORKER_CONCURRENCY unset: 16)'
      : String(workerConcurrency),
  );

  // Other work on the machine competes for the same cores: measured before the bench starts anything.
  const busyBefore = await machineBusyNow(500);
  const machine = [
    ...machineFacts(),
    `machine busy before the run (other processes): ${busyBefore === null ? '?' : Math.round(busyBefore)} % of all cores`,
  ];
  write(`tracksync bench (${params.mode}) — ${date.toISOString()}`);
  for (const line of [...machine, ...parameters]) write(`  ${line}`);
  const postgresAdminUrl = await benchPostgres(cleanup, write, values['postgres-admin-url']);
  write('');

  // The emulator's address is fixed up front, so the intake servers (which never call it) need not wait for it.
  const emulatorPort = await freePort();
  const trackingApiBaseUrl = `http://127.0.0.1:${emulatorPort}/v1`;
  progress(
    params.prepareDrainsEarly
      ? 'starting the emulator, the load generator, the servers under test and the drains’ app processes (idle until their burst)…'
      : 'starting the emulator, the load generator and the servers under test (node:http, Express, app on SQLite and on PostgreSQL)…',
  );
  const emulatorStarting = startEmulatorProcess({
    port: emulatorPort,
    latencyMs: params.drain.latencyMs,
    accounts: emulatorAccounts(shops),
  });
  const intakeStarting = Promise.all([
    startLoadGenerator(),
    startIntakeServers({ secret, encryptionKey, trackingApiBaseUrl, postgresAdminUrl, cleanup }),
  ]);
  // Settled at once so a failure is reported by the awaits below, not as an unhandled rejection.
  intakeStarting.catch(() => {});
  const emulator = await emulatorStarting;
  // The stores' Admin API, in this process: the drains' workers confirm each new fulfilment with it.
  const store = await startBenchStore(cleanup);

  const drainCommon = {
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
    log: progress,
    ...(workerConcurrency !== undefined ? { workerConcurrency } : {}),
  };
  const prepareDrains = () =>
    Promise.all([
      prepareDrain({ ...drainCommon, name: 'sqlite', provider: 'sqlite', role: 'all', processes: 1 }),
      prepareDrain({
        ...drainCommon,
        name: 'sqlite64',
        provider: 'sqlite',
        role: 'all',
        processes: 1,
        workerConcurrency: 64,
      }),
      prepareDrain({ ...drainCommon, name: 'pg1', provider: 'postgresql', role: 'worker', processes: 1 }),
      prepareDrain({ ...drainCommon, name: 'pg2', provider: 'postgresql', role: 'worker', processes: 2 }),
    ]);

  let drains: Promise<PreparedDrain[]> | null = params.prepareDrainsEarly ? prepareDrains() : null;
  drains?.catch(() => {});
  const [[loadgen, servers]] = await Promise.all([intakeStarting, drains]);

  progress('== intake ==');
  const intake = await measureIntake(servers, {
    ...params.intake,
    secret,
    shops: shops.map((s) => s.domain),
    fixture: readSample('fulfillments-create.ups'),
    loadgen,
    log: progress,
  });
  await loadgen.close();

  progress('== drain ==');
  if (drains === null) {
    progress('preparing the drains (fresh database, shops connected, app processes started and idle)…');
    drains = prepareDrains();
  }
  const [sqliteDrain, sqlite64Drain, pg1Drain, pg2Drain] = await drains;
  const sqlite = await sqliteDrain!.run();
  const sqlite64 = await sqlite64Drain!.run();
  const pg1 = await pg1Drain!.run();
  const pg2 = await pg2Drain!.run();
  const drainResults = { sqlite, sqlite64, pg1, pg2 };

  progress('== status pushes ==');
  const burstCommon = {
    ...params.pushes,
    shops: shops.slice(0, 4),
    trackingApiBaseUrl,
    secret,
    encryptionKey,
    cleanup,
    log: progress,
  };
  const acceptOnly = await measurePushBurst({ ...burstCommon, role: 'web' });
  const burstResult = await measurePushBurst({ ...burstCommon, role: 'all' });
  await emulator.child.stop();
  const versus = await measurePushesVsPolling({
    parcels: params.pushes.parcels,
    clockSpeed: params.pushes.clockSpeed,
    timeoutSec: params.pushes.lifecycleTimeoutSec,
    cleanup,
    log: progress,
  });

  const problemSweeps = [];
  for (const provider of ['sqlite', 'postgresql'] as const) {
    progress(`problem sweep on ${provider}: ${params.problems.trackers} shipments due`);
    problemSweeps.push(
      await measureProblemSweep({ provider, trackers: params.problems.trackers, cleanup, postgresAdminUrl }),
    );
  }

  const all = [
    ...figures(intake, drainResults, {
      inFlight: workerConcurrency ?? 16,
      inFlight64: 64,
      latencyMs: params.drain.latencyMs,
      idle: busyBefore !== null && busyBefore <= 10,
    }),
    ...pushFigures(burstResult, acceptOnly, versus),
    ...problemFigures(problemSweeps),
  ];
  const targetList = targets(all);
  const problems = [...integrityProblems(intake, drainResults), ...pushProblems(burstResult, versus)];
  const notes = warnings(intake, drainResults);
  if (busyBefore !== null && busyBefore > 10) {
    notes.unshift(
      `the machine was ${Math.round(busyBefore)} % busy with other work before the run started: ` +
        'every figure is lower than on an idle machine (see the machine figure of each phase)',
    );
  }
  const intakeRows = intakeTable(intake);
  const drainRows = [
    ...drainTable(drainResults),
    '',
    ...pushRows(burstResult, acceptOnly, versus),
    '',
    ...problemRows(problemSweeps),
  ];
  const cpu = cpuLines(intake, drainResults);
  const wallSec = (performance.now() - startedAt) / 1000;

  write('');
  for (const line of [...intakeRows, '', ...drainRows]) write(line);
  write('');
  write(
    'cpu during each measured phase (% of one core; the machine figure covers all cores and every process):',
  );
  for (const line of cpu) write(`  ${line}`);
  write('tracker rows at the end (by sync state):');
  for (const d of [sqlite, sqlite64, pg1, pg2]) write(`  ${d.name}: ${JSON.stringify(d.trackerRows)}`);
  write('');
  write('targets:');
  for (const t of targetList) write(`  ${t.met ? 'met    ' : 'NOT MET'}  ${t.what}: ${t.measured}`);
  for (const n of notes) write(`  NOTE: ${n}`);
  for (const p of problems) write(`  INTEGRITY: ${p}`);

  const file =
    params.mode === 'full'
      ? path.join(ROOT, 'bench', 'results.md')
      : path.join(ROOT, 'bench', '.tmp', 'results-quick.md');
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(
    file,
    resultsMarkdown({
      date,
      params,
      machine,
      parameters,
      intakeRows,
      drainRows,
      cpu,
      all,
      targetList,
      problems,
      notes,
      wallSec,
    }),
  );
  write(`\nwrote ${path.relative(ROOT, file)}; ${wallSec.toFixed(1)} s wall time\n`);
  for (const line of figureLines(all)) write(line);
  return problems.length > 0 ? 1 : 0;
}

const cleanup = new Cleanup();
cleanup.installSignalHandlers(write);
onUnexpectedExit((child, code, signal) => {
  if (cleanup.interrupted) return;
  write(`\n${child.name} (pid ${child.pid}) exited unexpectedly (${code ?? signal}); its last output:`);
  write(child.output().trim().slice(-3000) || '(none)');
});
const totalTimeoutSec = benchParams(process.argv.includes('--quick')).totalTimeoutSec;
const watchdog = setTimeout(() => {
  write(`\nbench: the whole run exceeded ${totalTimeoutSec} s; stopping`);
  void cleanup.runAll(write).finally(() => process.exit(1));
}, totalTimeoutSec * 1000);
watchdog.unref();

main(cleanup).then(
  async (code) => {
    if (cleanup.interrupted) return;
    await cleanup.runAll(write);
    process.exit(code);
  },
  async (error: unknown) => {
    // After SIGINT / SIGTERM the children are being stopped under the run: the signal handler exits.
    if (cleanup.interrupted) return;
    write(`\nbench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
    await cleanup.runAll(write);
    process.exit(1);
  },
);
