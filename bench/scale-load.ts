/**
 * Who used the machine while the scale bench ran (Linux /proc; elsewhere nothing is known). Every second:
 * the whole machine's busy time, and the part that was the bench's own (this process, its children, and
 * the PostgreSQL backends serving its database, found by the database name in their command line). The
 * rest is other work: on a shared machine, figures taken while it was high are not comparable.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { performance } from 'node:perf_hooks';
import { runningChildPids } from './processes.js';

function ticksOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

function machine(): { busy: number; total: number } | null {
  try {
    const values = readFileSync('/proc/stat', 'utf8')
      .split('\n')[0]!
      .trim()
      .split(/\s+/)
      .slice(1, 9)
      .map(Number);
    const total = values.reduce((a, b) => a + b, 0);
    return { busy: total - (values[3] ?? 0) - (values[4] ?? 0), total };
  } catch {
    return null;
  }
}

/** PostgreSQL backends (and autovacuum workers) working on `database`. */
function backendsOf(database: string | null): number[] {
  if (!database) return [];
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmd.startsWith('postgres: ') && cmd.includes(` ${database} `)) out.push(Number(entry));
    } catch {
      // gone
    }
  }
  return out;
}

interface Sample {
  at: number;
  machineBusy: number;
  machineTotal: number;
  mine: number;
}

export class LoadMonitor {
  private samples: Sample[] = [];
  private last = new Map<number, number>();
  private lastMachine: { busy: number; total: number } | null = null;
  private timer: NodeJS.Timeout | null = null;
  database: string | null = null;

  start(): void {
    this.lastMachine = machine();
    this.timer = setInterval(() => this.tick(), 1_000);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private tick(): void {
    const now = machine();
    if (!now || !this.lastMachine) return;
    const pids = [process.pid, ...runningChildPids(), ...backendsOf(this.database)];
    let mine = 0;
    const next = new Map<number, number>();
    for (const pid of pids) {
      const ticks = ticksOf(pid);
      if (ticks === null) continue;
      next.set(pid, ticks);
      const before = this.last.get(pid);
      if (before !== undefined) mine += ticks - before;
    }
    this.last = next;
    this.samples.push({
      at: performance.now(),
      machineBusy: now.busy - this.lastMachine.busy,
      machineTotal: now.total - this.lastMachine.total,
      mine,
    });
    this.lastMachine = now;
  }

  /** Since `from` (performance.now()): % of all cores busy, and the part that was not the bench's. */
  since(from: number): { busyPct: number; othersPct: number } | null {
    const list = this.samples.filter((s) => s.at >= from);
    const total = list.reduce((n, s) => n + s.machineTotal, 0);
    if (total === 0) return null;
    const busy = list.reduce((n, s) => n + s.machineBusy, 0);
    // /proc/stat counts every core's ticks; a process's ticks are per core: same unit (USER_HZ).
    const mine = list.reduce((n, s) => n + s.mine, 0);
    return { busyPct: (busy / total) * 100, othersPct: Math.max(0, ((busy - mine) / total) * 100) };
  }

  describe(from: number): string {
    const load = this.since(from);
    return load === null
      ? 'machine load unknown'
      : `machine ${load.busyPct.toFixed(0)} % busy (${cpus().length} cores), other work ${load.othersPct.toFixed(0)} %`;
  }
}
