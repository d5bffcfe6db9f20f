/** Figures, targets, the human table, the `name: value` lines and bench/results.md. */
import type { ProblemSweepResult } from './problems.js';
import type { PushBurstResult, PushVsPollResult } from './pushes.js';
import os from 'node:os';
import { cpuMicrosPer, type CpuUsage, formatCpu } from './cpu.js';
import type { DrainResult } from './drain.js';
import type { IntakeResult } from './intake.js';
import type { BenchParams } from './params.js';

export interface Drains {
  sqlite: DrainResult;
  /** SQLite, one process, 64 calls in flight. */
  sqlite64: DrainResult;
  pg1: DrainResult;
  pg2: DrainResult;
}

export interface Figure {
  name: string;
  value: number;
  digits: number;
}

/** What the drains run with, for the figures relative to the service's limit. */
export interface DrainSetting {
  /** Calls in flight of the 16-call drains (WORKER_CONCURRENCY). */
  inFlight: number;
  inFlight64: number;
  latencyMs: number;
  /** The machine had no other work running when the bench started. */
  idle: boolean;
}

export function figures(intake: IntakeResult, drains: Drains, setting: DrainSetting): Figure[] {
  const f = (name: string, value: number, digits = 0): Figure => ({ name, value, digits });
  const all = [drains.sqlite, drains.sqlite64, drains.pg1, drains.pg2];
  return [
    f('intake_rps', intake.app.rps),
    f('express_noop_rps', intake.express.rps),
    f('node_http_rps', intake.nodeHttp.rps),
    f('intake_ratio_vs_express', intake.app.rps / intake.express.rps, 3),
    f('intake_ratio_vs_node_http', intake.app.rps / intake.nodeHttp.rps, 3),
    f('intake_half_load_rps', intake.halfLoad.rate),
    f('intake_p50_ms_half_load', intake.halfLoad.autocannon.latencyMs.p50, 2),
    f('intake_p99_ms_half_load', intake.halfLoad.autocannon.latencyMs.p99, 2),
    f('intake_p50_ms_half_load_paced', intake.halfLoad.paced.latencyMs.p50, 2),
    f('intake_p99_ms_half_load_paced', intake.halfLoad.paced.latencyMs.p99, 2),
    // CPU per unit of work (the app's process only; load generator, emulator and database apart): what a
    // request or a tracker costs, whatever the machine's speed or load.
    f('intake_cpu_us_per_request', cpuMicrosPer(intake.app.cpu, intake.app.responses, ['load generator'])),
    f('intake_pg_rps', intake.appPg.rps),
    f('intake_pg_ratio_vs_express', intake.appPg.rps / intake.express.rps, 3),
    f('drain_trackers', drains.sqlite.expectedTrackers),
    f('drain_trackers_per_s', drains.sqlite.trackersPerSec),
    f('drain_seconds', drains.sqlite.seconds, 2),
    // The in-flight ceiling: calls in flight ÷ service latency (16 at 20 ms: 800 trackers/s).
    f('drain_ceiling_per_s', (setting.inFlight * 1000) / setting.latencyMs),
    f(
      'drain_ratio_vs_ceiling',
      drains.sqlite.trackersPerSec / ((setting.inFlight * 1000) / setting.latencyMs),
      3,
    ),
    f('drain_trackers_per_s_64', drains.sqlite64.trackersPerSec),
    f(
      'drain_ratio_vs_ceiling_64',
      drains.sqlite64.trackersPerSec / ((setting.inFlight64 * 1000) / setting.latencyMs),
      3,
    ),
    f('drain_cpu_us_per_tracker', cpuMicrosPer(drains.sqlite.cpu, drains.sqlite.created, ['emulator'])),
    f(
      'drain_cpu_us_per_tracker_64',
      cpuMicrosPer(drains.sqlite64.cpu, drains.sqlite64.created, ['emulator']),
    ),
    f('drain_pg1_cpu_us_per_tracker', cpuMicrosPer(drains.pg1.cpu, drains.pg1.created, ['emulator'])),
    f('drain_pg1_trackers_per_s', drains.pg1.trackersPerSec),
    f('drain_pg1_seconds', drains.pg1.seconds, 2),
    f('drain_pg2_trackers_per_s', drains.pg2.trackersPerSec),
    f('drain_pg2_seconds', drains.pg2.seconds, 2),
    f('creates_per_tracker', Math.max(...all.map((d) => d.createsPerTracker)), 3),
    f('max_creates_for_one_tracker', Math.max(...all.map((d) => d.maxCreatesForOneTracker))),
    // Store calls the worker adds by confirming each new fulfilment with its store (`nodes(ids:)`, one per
    // shop and pass): the most of any drain, per fulfilment of the burst; and the ids asked (1: each once).
    f('store_calls_per_fulfilment', Math.max(...all.map((d) => d.storeCallsPerFulfillment)), 4),
    f('store_ids_asked_per_fulfilment', Math.max(...all.map((d) => d.storeIdsPerFulfillment)), 3),
    f('two_workers_speedup', drains.pg2.trackersPerSec / drains.pg1.trackersPerSec, 2),
    f('machine_idle', setting.idle ? 1 : 0),
  ];
}

export interface Target {
  what: string;
  measured: string;
  met: boolean;
}

function value(all: Figure[], name: string): number {
  return all.find((x) => x.name === name)?.value ?? Number.NaN;
}

export function targets(all: Figure[]): Target[] {
  const ratio = value(all, 'intake_ratio_vs_express');
  const p99 = value(all, 'intake_p99_ms_half_load');
  const drainRatio = value(all, 'drain_ratio_vs_ceiling');
  const drain64 = value(all, 'drain_trackers_per_s_64');
  const speedup = value(all, 'two_workers_speedup');
  const creates = value(all, 'creates_per_tracker');
  const pushes = value(all, 'push_accepted_per_s');
  // Issue 25's goals.
  return [
    {
      what: 'intake ≥ 75 % of the no-op Express route',
      measured: `${(ratio * 100).toFixed(1)} %`,
      met: ratio >= 0.75,
    },
    { what: 'p99 ≤ 10 ms at half load', measured: `${p99.toFixed(2)} ms`, met: p99 <= 10 },
    {
      what: 'drain ≥ 90 % of the in-flight ceiling (SQLite, one process, 16 in flight)',
      measured: `${(drainRatio * 100).toFixed(1)} %`,
      met: drainRatio >= 0.9,
    },
    {
      what: 'drain ≥ 2 000 trackers/s at 64 in flight (SQLite, one process)',
      measured: `${Math.round(drain64)} trackers/s`,
      met: drain64 >= 2000,
    },
    { what: 'two workers ≥ 1.8× one (PostgreSQL)', measured: `${speedup.toFixed(2)}×`, met: speedup >= 1.8 },
    {
      what: 'status pushes accepted while the same process applies them ≥ 1 000/s',
      measured: `${Math.round(pushes)}/s`,
      met: pushes >= 1000,
    },
    { what: 'exactly one create call per tracker', measured: creates.toFixed(3), met: creates === 1 },
  ];
}

/** Problems that make the figures untrustworthy (not targets: facts that must hold). */
export function integrityProblems(intake: IntakeResult, drains: Drains): string[] {
  const problems: string[] = [];
  for (const [name, s] of Object.entries(intake.stored)) {
    if (s.rows < s.accepted)
      problems.push(`intake ${name}: ${s.accepted} deliveries answered 2xx but ${s.rows} rows stored`);
  }
  for (const [name, r] of Object.entries({
    'node:http': intake.nodeHttp,
    express: intake.express,
    'app SQLite': intake.app,
    'app PostgreSQL': intake.appPg,
    'half load': intake.halfLoad.autocannon,
    'half load paced': intake.halfLoad.paced,
  })) {
    if (r.non2xx > 0 || r.errors > 0)
      problems.push(`intake ${name}: ${r.non2xx} non-2xx answers, ${r.errors} errors`);
  }
  for (const d of [drains.sqlite, drains.sqlite64, drains.pg1, drains.pg2]) {
    if (!d.complete)
      problems.push(
        `drain ${d.name}: ${d.missing} of ${d.expectedTrackers} trackers missing at the emulator`,
      );
    if (d.unexpected > 0)
      problems.push(`drain ${d.name}: ${d.unexpected} unexpected trackers at the emulator`);
    if (d.maxCreatesForOneTracker > 1)
      problems.push(`drain ${d.name}: a tracker got ${d.maxCreatesForOneTracker} create calls`);
    if (d.failedCreateCalls > 0)
      problems.push(`drain ${d.name}: ${d.failedCreateCalls} create calls not answered 200`);
    // Every fulfilment of the burst is new to the app: none is applied before its store confirmed it.
    if (d.complete && d.store.distinctAsked < d.fulfillments)
      problems.push(
        `drain ${d.name}: ${d.fulfillments} fulfilments applied but only ${d.store.distinctAsked} confirmed with the store`,
      );
  }
  return problems;
}

function pad(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length)));
  return rows.map((r) =>
    r.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  '),
  );
}

const n0 = (x: number) => Math.round(x).toLocaleString('en-US');
const ms = (x: number) => x.toFixed(2);
const opt = (x: number | null, digits = 2) => (x === null ? '–' : x.toFixed(digits));

export function intakeTable(intake: IntakeResult): string[] {
  const row = (name: string, r: IntakeResult['app'], vsExpress: boolean) => [
    name,
    n0(r.rps),
    vsExpress ? `${((r.rps / intake.express.rps) * 100).toFixed(1)} %` : '',
    `${((r.rps / intake.nodeHttp.rps) * 100).toFixed(1)} %`,
    ms(r.latencyMs.p50),
    ms(r.latencyMs.p99),
    n0(r.ok2xx),
  ];
  const h = intake.halfLoad;
  return pad([
    ['intake (POST /webhooks, signed)', 'req/s', 'vs Express', 'vs node:http', 'p50 ms', 'p99 ms', '2xx'],
    row('bare node:http, no-op', intake.nodeHttp, false),
    row('Express + express.raw(), no-op', intake.express, false),
    row('app, SQLite (HMAC, dedupe, insert)', intake.app, true),
    row('app, PostgreSQL', intake.appPg, true),
    [
      `app, SQLite, half load: autocannon overallRate ${h.rate}/s`,
      n0(h.autocannon.rps),
      '',
      '',
      ms(h.autocannon.latencyMs.p50),
      ms(h.autocannon.latencyMs.p99),
      n0(h.autocannon.ok2xx),
    ],
    [
      `app, SQLite, half load: evenly spaced ${h.rate}/s`,
      n0(h.paced.rps),
      '',
      '',
      ms(h.paced.latencyMs.p50),
      ms(h.paced.latencyMs.p99),
      n0(h.paced.ok2xx),
    ],
  ]);
}

export function drainTable(drains: Drains): string[] {
  const row = (label: string, d: DrainResult) => [
    label,
    n0(d.expectedTrackers),
    n0(d.created),
    d.seconds.toFixed(2),
    n0(d.trackersPerSec),
    d.createsPerTracker.toFixed(3),
    `${d.storeCallsPerFulfillment.toFixed(4)} (${n0(d.store.calls)})`,
    opt(d.firstCreateSec),
    opt(d.deliveriesDoneSec),
    (d.insertMs / 1000).toFixed(2),
  ];
  return pad([
    [
      'drain (20 ms service latency)',
      'trackers',
      'created',
      'seconds',
      'trackers/s',
      'creates/tracker',
      'store calls/fulfilment',
      '1st create s',
      'deliveries done s',
      'insert s',
    ],
    row('SQLite, 1 process (--role all)', drains.sqlite),
    row('SQLite, 1 process, 64 in flight', drains.sqlite64),
    row('PostgreSQL, 1 worker (--role worker)', drains.pg1),
    row('PostgreSQL, 2 workers (--role worker)', drains.pg2),
  ]);
}

/** Where the CPU went in each measured phase. */
export function cpuLines(intake: IntakeResult, drains: Drains): string[] {
  return [
    `intake node:http no-op: ${formatCpu(intake.nodeHttp.cpu)}`,
    `intake Express no-op: ${formatCpu(intake.express.cpu)}`,
    `intake app, SQLite: ${formatCpu(intake.app.cpu)}`,
    `intake app, SQLite, half load (autocannon): ${formatCpu(intake.halfLoad.autocannon.cpu)}`,
    `intake app, SQLite, half load (evenly spaced): ${formatCpu(intake.halfLoad.paced.cpu)}`,
    `intake app, PostgreSQL: ${formatCpu(intake.appPg.cpu)}`,
    ...[drains.sqlite, drains.sqlite64, drains.pg1, drains.pg2].map(
      (d) => `drain ${d.name}: ${formatCpu(d.cpu)}`,
    ),
  ];
}

/** Facts that qualify the figures without invalidating them. */
export function warnings(intake: IntakeResult, drains: Drains): string[] {
  const notes = [drains.sqlite, drains.sqlite64, drains.pg1, drains.pg2]
    .filter((d) => d.timedOut)
    .map(
      (d) =>
        `drain ${d.name} timed out after ${d.seconds.toFixed(1)} s with ${d.created} of ${d.expectedTrackers} ` +
        'trackers: its rate is over the trackers made so far, its seconds are a lower bound',
    );
  // In the phases without PostgreSQL, CPU outside the bench is other work on the machine.
  const phases: Array<[string, CpuUsage]> = [
    ['intake node:http', intake.nodeHttp.cpu],
    ['intake Express', intake.express.cpu],
    ['intake app SQLite', intake.app.cpu],
    ['intake half load (autocannon)', intake.halfLoad.autocannon.cpu],
    ['intake half load (evenly spaced)', intake.halfLoad.paced.cpu],
    ['drain sqlite', drains.sqlite.cpu],
  ];
  const worst = phases.reduce<[string, number] | null>((acc, [name, cpu]) => {
    const outside = cpu.outsidePct ?? 0;
    return acc === null || outside > acc[1] ? [name, outside] : acc;
  }, null);
  if (worst && worst[1] > 25) {
    notes.push(
      `other work on the machine used up to ${Math.round(worst[1])} % of a core during the measurements ` +
        `(${worst[0]}): the figures are lower than on an otherwise idle machine`,
    );
  }
  return notes;
}

export function figureLines(all: Figure[]): string[] {
  return all.map((f) => `${f.name}: ${Number.isFinite(f.value) ? f.value.toFixed(f.digits) : 'NaN'}`);
}

export function machineFacts(): string[] {
  const cpus = os.cpus();
  return [
    `cpus: ${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown'}`,
    `memory: ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `os: ${os.type()} ${os.release()} (${os.arch()})`,
    `node: ${process.version}`,
  ];
}

export function parameterLines(
  params: BenchParams,
  burstTrackers: number,
  workerConcurrency: string,
): string[] {
  const { intake, drain } = params;
  return [
    `mode: ${params.mode}`,
    `intake: load generator = autocannon 9 in a child process, ${intake.connections} connections, ` +
      `${intake.warmupSec} s warm-up then ${intake.durationSec} s per server, one server loaded at a time; ` +
      `every request a fulfilments/create body (the UPS sample of samples/shopify, ids made unique) with its own X-Shopify-Event-Id ` +
      `and an X-Shopify-Hmac-Sha256 computed over that body; 127.0.0.1 only`,
    `intake app: node --import tsx src/app/main.ts --role web, fresh SQLite file (WAL) / fresh PostgreSQL database, LOG_LEVEL=warn`,
    `half load: ${intake.halfLoadSec} s at half the app's measured max, (a) autocannon overallRate ` +
      `(its limiter releases each connection's quota at the start of every second, so requests come in bursts) ` +
      `and (b) the same rate evenly spaced, open loop; latency = exact percentiles over every 2xx response time`,
    `drain: ${drain.fulfillments} fulfilments/create deliveries (${burstTrackers} trackers, 1–3 numbers each, ` +
      `seed ${drain.seed}, carriers mapped from platform names), ${drain.shops} shops connected with the app's ` +
      `connectShop use case; deliveries inserted straight into WebhookDelivery in one transaction (signed intake ` +
      `is measured separately); clock from the commit until the emulator holds every tracker`,
    `drain store: the fake Admin API (tools/dev/fake-store-admin.ts) in the bench process, holding every ` +
      `fulfilment it is asked about; each shop installed with an offline session; the app processes reach ` +
      `it through tools/dev/fake-store-preload.ts and FAKE_STORE_URL; store calls = its fulfillmentNodes ` +
      `requests while the clock ran`,
    `drain emulator: tools/emulator/main.ts child, EMULATOR_LATENCY_MS=${drain.latencyMs}; ` +
      `worker concurrency ${workerConcurrency}; workers LOG_LEVEL=info (only start/stop and failures log at info)`,
    params.prepareDrainsEarly
      ? 'quick mode: the drains’ app processes start with the intake servers and poll their empty queue during the intake'
      : 'the drains’ app processes start after the intake, all three drains’ at once, and wait idle for their burst',
  ];
}

export function resultsMarkdown(options: {
  date: Date;
  params: BenchParams;
  machine: string[];
  parameters: string[];
  intakeRows: string[];
  drainRows: string[];
  cpu: string[];
  all: Figure[];
  targetList: Target[];
  problems: string[];
  notes: string[];
  wallSec: number;
}): string {
  const lines = [
    '# tracksync benchmark results',
    '',
    `Run: ${options.date.toISOString()} (\`npm run bench${options.params.mode === 'quick' ? ' -- --quick' : ''}\`, ` +
      `${options.wallSec.toFixed(0)} s wall time)`,
    '',
    '## Machine',
    '',
    ...options.machine.map((l) => `- ${l}`),
    '',
    '## Parameters',
    '',
    ...options.parameters.map((l) => `- ${l}`),
    '',
    '## Results',
    '',
    '```',
    ...options.intakeRows,
    '',
    ...options.drainRows,
    '```',
    '',
    'CPU during each measured phase (% of one core per process; the machine figure is all cores, any process — ' +
      'the database server included):',
    '',
    ...options.cpu.map((l) => `- ${l}`),
    '',
    '## Targets',
    '',
    '| target | measured | |',
    '|---|---|---|',
    ...options.targetList.map((t) => `| ${t.what} | ${t.measured} | ${t.met ? 'met' : '**not met**'} |`),
    '',
  ];
  if (options.notes.length > 0) lines.push('## Notes', '', ...options.notes.map((n) => `- ${n}`), '');
  if (options.problems.length > 0) {
    lines.push('## Integrity problems', '', ...options.problems.map((p) => `- ${p}`), '');
  }
  lines.push('## Figures', '', '```', ...figureLines(options.all), '```', '');
  return lines.join('\n');
}

/** The status-push figures (bench/pushes.ts). */
export function pushFigures(
  burst: PushBurstResult,
  acceptOnly: PushBurstResult,
  versus: PushVsPollResult,
): Figure[] {
  const f = (name: string, value: number, digits = 0): Figure => ({ name, value, digits });
  return [
    f('push_accepted_per_s', burst.acceptedPerSec),
    f('push_accepted_per_s_web_only', acceptOnly.acceptedPerSec),
    f('push_to_stored_p50_ms', burst.p50Ms),
    f('push_to_stored_p99_ms', burst.p99Ms),
    f('push_burst_all_applied_s', burst.allAppliedSec, 2),
    f('reads_per_parcel_polling', versus.readsPerParcelPolling, 1),
    f('reads_per_parcel_pushes', versus.readsPerParcelPushes, 1),
    f('pushes_per_parcel', versus.pushesPerParcel, 1),
    f('reads_ratio_pushes_vs_polling', versus.readsPerParcelPushes / versus.readsPerParcelPolling, 3),
  ];
}

export function pushRows(
  burst: PushBurstResult,
  acceptOnly: PushBurstResult,
  versus: PushVsPollResult,
): string[] {
  return [
    `status pushes, accepting only (role web): ${acceptOnly.ok} of ${acceptOnly.pushes} at ${Math.round(acceptOnly.acceptedPerSec)}/s`,
    `status pushes, applied meanwhile by the same process (role all): ${burst.ok} of ${burst.pushes} accepted (${burst.refused} refused) at ${Math.round(burst.acceptedPerSec)}/s; ` +
      `push → stored p50 ${Math.round(burst.p50Ms)} ms, p99 ${Math.round(burst.p99Ms)} ms; all applied ${burst.allAppliedSec.toFixed(2)} s after the first was sent; ` +
      `${burst.parcelsComplete} of ${burst.parcels} parcels with every event stored`,
    `service reads per delivered parcel (${versus.parcels} parcels a shop, ${versus.simulatedHours.toFixed(0)} simulated hours): ` +
      `polling only ${versus.readsPerParcelPolling.toFixed(1)}, with pushes ${versus.readsPerParcelPushes.toFixed(1)} ` +
      `(+ ${versus.pushesPerParcel.toFixed(1)} pushes received); delivered ${versus.deliveredPolling} and ${versus.deliveredPushes}`,
  ];
}

export function pushProblems(burst: PushBurstResult, versus: PushVsPollResult): string[] {
  const problems: string[] = [];
  if (burst.ok !== burst.pushes)
    problems.push(`status pushes: ${burst.pushes - burst.ok} of ${burst.pushes} not accepted`);
  if (burst.parcelsComplete !== burst.parcels)
    problems.push(
      `status pushes: ${burst.parcels - burst.parcelsComplete} parcels without every pushed event`,
    );
  if (versus.deliveredPolling !== versus.parcels || versus.deliveredPushes !== versus.parcels)
    problems.push('pushes vs polling: not every parcel reached delivered in time');
  return problems;
}

/** The problem sweep's figures (bench/problems.ts), per database. */
export function problemFigures(results: readonly ProblemSweepResult[]): Figure[] {
  const suffix = (r: ProblemSweepResult) => (r.provider === 'postgresql' ? 'pg' : 'sqlite');
  return results.flatMap((r) => [
    { name: `problems_evaluated_per_s_${suffix(r)}`, value: r.evaluatedPerSec, digits: 0 },
    { name: `problem_sweep_idle_ms_${suffix(r)}`, value: r.idleP50Ms, digits: 2 },
  ]);
}

export function problemRows(results: readonly ProblemSweepResult[]): string[] {
  return results.map(
    (r) =>
      `problem sweep, ${r.provider}: ${r.evaluated} shipments evaluated (${r.opened} problems opened) at ${Math.round(r.evaluatedPerSec)}/s; a pass with nothing due ${r.idleP50Ms.toFixed(2)} ms (p50)`,
  );
}
