/**
 * Where the CPU went during a measured phase (Linux /proc; elsewhere the figures are null): the share of one
 * core each process of interest used, what the bench's other processes used meanwhile (idle servers and
 * workers, the bench itself), and everything outside the bench (the database server, other work on the
 * machine). A process near 100 % is CPU-bound; a machine near 100 % means the cores were the limit.
 */
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { runningChildPids } from './processes.js';

const ticksPerSecond = 100; // USER_HZ on Linux

function processTicks(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]); // utime + stime
  } catch {
    return null;
  }
}

function machineTicks(): { busy: number; total: number } | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const values = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = values.reduce((a, b) => a + b, 0);
    const idle = (values[3] ?? 0) + (values[4] ?? 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

export interface CpuUsage {
  /** % of one core, per named process, over the phase. */
  processes: Record<string, number | null>;
  /** CPU seconds (user + system) per named process over the phase: divided by the work done, the cost per
   * unit, which holds on any machine (unlike a rate). */
  seconds: Record<string, number | null>;
  /** % of one core: the bench's other processes (idle children, the bench itself). */
  restOfBenchPct: number | null;
  /** % of one core: every process outside the bench (database server, other work on the machine). */
  outsidePct: number | null;
  /** % of all cores the machine was busy (any process). */
  machineBusyPct: number | null;
}

/** Starts measuring the named processes (and, as "rest of the bench", every other child and this process). */
export function measureCpu(processes: Record<string, number>): { stop(): CpuUsage } {
  const start = performance.now();
  const named = new Set(Object.values(processes));
  const rest = [process.pid, ...runningChildPids()].filter((pid) => !named.has(pid));
  const before = new Map([...named, ...rest].map((pid) => [pid, processTicks(pid)]));
  const machineBefore = machineTicks();
  return {
    stop() {
      const seconds = (performance.now() - start) / 1000;
      const pct = (pid: number): number | null => {
        const a = before.get(pid);
        const b = processTicks(pid);
        return a === null || a === undefined || b === null
          ? null
          : ((b - a) / ticksPerSecond / seconds) * 100;
      };
      const usage: Record<string, number | null> = {};
      const used: Record<string, number | null> = {};
      for (const [name, pid] of Object.entries(processes)) {
        usage[name] = pct(pid);
        const a = before.get(pid);
        const b = processTicks(pid);
        used[name] = a === null || a === undefined || b === null ? null : (b - a) / ticksPerSecond;
      }
      const restOfBenchPct = rest.reduce((sum, pid) => sum + (pct(pid) ?? 0), 0);
      const machineAfter = machineTicks();
      const machineBusyPct =
        machineBefore && machineAfter && machineAfter.total > machineBefore.total
          ? ((machineAfter.busy - machineBefore.busy) / (machineAfter.total - machineBefore.total)) * 100
          : null;
      const namedPct = Object.values(usage).reduce<number>((sum, p) => sum + (p ?? 0), 0);
      const outsidePct =
        machineBusyPct === null
          ? null
          : Math.max(0, machineBusyPct * cpus().length - namedPct - restOfBenchPct);
      return { processes: usage, seconds: used, restOfBenchPct, outsidePct, machineBusyPct };
    },
  };
}

const pct = (value: number | null) => (value === null ? '?' : String(Math.round(value)));

export function formatCpu(usage: CpuUsage): string {
  const parts = Object.entries(usage.processes).map(([name, value]) => `${name} ${pct(value)} %`);
  return (
    `cpu (% of one core): ${parts.join(', ')}, rest of the bench ${pct(usage.restOfBenchPct)} %, ` +
    `outside the bench ${pct(usage.outsidePct)} %; machine ${pct(usage.machineBusyPct)} % busy ` +
    `(all ${cpus().length} cores)`
  );
}

/** How busy the whole machine is over the next `ms` (% of all cores), before the bench adds any load. */
export async function machineBusyNow(ms = 1_000): Promise<number | null> {
  const before = machineTicks();
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = machineTicks();
  return before && after && after.total > before.total
    ? ((after.busy - before.busy) / (after.total - before.total)) * 100
    : null;
}

/**
 * µs of CPU the named processes (all but those excluded) spent per unit of work over a phase; NaN when a
 * process could not be read or no work was done.
 */
export function cpuMicrosPer(usage: CpuUsage, units: number, exclude: readonly string[] = []): number {
  const seconds = Object.entries(usage.seconds).filter(([name]) => !exclude.includes(name));
  if (units <= 0 || seconds.length === 0 || seconds.some(([, s]) => s === null)) return Number.NaN;
  return (seconds.reduce((sum, [, s]) => sum + (s ?? 0), 0) / units) * 1e6;
}
