/**
 * Child processes of the bench: every one is started here, tracked, and killed at the end, on error and on
 * SIGINT / SIGTERM (see cleanup.ts). Children are Node processes run from source through tsx
 * (`node --import tsx src/app/main.ts`; production runs the same code compiled, `node dist/app/main.js`),
 * configured only through their environment.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TimeoutError, withTimeout } from './wait.js';

/** The repository root (bench/ is one level below it). */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface Child {
  readonly name: string;
  readonly pid: number;
  readonly process: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  running(): boolean;
  /** The last few kB of what it wrote (stdout and stderr), for error messages. */
  output(): string;
  /** Resolves with the first complete output line `test` accepts; rejects if the child exits first. */
  waitForLine(what: string, test: (line: string) => boolean, timeoutMs: number): Promise<string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once the process is gone. */
  stop(graceMs?: number): Promise<void>;
}

const children = new Set<Child>();
const outputLimit = 16_384;
let reportUnexpectedExit: (
  child: Child,
  code: number | null,
  signal: NodeJS.Signals | null,
) => void = () => {};

/** Called when a child exits without having been asked to stop (a crash of a server under test, say). */
export function onUnexpectedExit(
  report: (child: Child, code: number | null, signal: NodeJS.Signals | null) => void,
): void {
  reportUnexpectedExit = report;
}

/** The environment every child gets: a PATH and HOME to run node and tsx, nothing else inherited. */
export function baseEnv(): Record<string, string> {
  return { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' };
}

function track(name: string, child: ChildProcess): Child {
  if (child.pid === undefined) throw new Error(`${name}: the child process did not start`);
  let output = '';
  let partial = '';
  let done = false;
  let stopRequested = false;
  const lineListeners = new Set<(line: string) => void>();
  const onData = (chunk: Buffer) => {
    const text = chunk.toString('utf8');
    output = (output + text).slice(-outputLimit);
    partial += text;
    let newline = partial.indexOf('\n');
    while (newline !== -1) {
      const line = partial.slice(0, newline);
      partial = partial.slice(newline + 1);
      for (const listener of lineListeners) listener(line);
      newline = partial.indexOf('\n');
    }
    if (partial.length > outputLimit) partial = partial.slice(-outputLimit);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  });
  const handle: Child = {
    name,
    pid: child.pid,
    process: child,
    exited,
    running: () => !done,
    output: () => output,
    waitForLine(what, test, timeoutMs) {
      return new Promise<string>((resolve, reject) => {
        const finish = (error: Error | null, line?: string) => {
          clearTimeout(timer);
          lineListeners.delete(listener);
          if (error) reject(error);
          else resolve(line!);
        };
        const listener = (line: string) => {
          if (test(line)) finish(null, line);
        };
        const timer = setTimeout(
          () => finish(new Error(`${name}: ${new TimeoutError(what, timeoutMs).message}\n${tail(output)}`)),
          timeoutMs,
        );
        lineListeners.add(listener);
        void exited.then(({ code, signal }) =>
          finish(new Error(`${name} exited (${code ?? signal}) before ${what}\n${tail(output)}`)),
        );
      });
    },
    async stop(graceMs = 10_000) {
      stopRequested = true;
      if (done) return;
      child.kill('SIGTERM');
      try {
        await withTimeout(`${name} to exit`, graceMs, exited);
      } catch {
        child.kill('SIGKILL');
        await withTimeout(`${name} to die`, 5_000, exited).catch(() => {});
      }
    },
  };
  children.add(handle);
  void exited.then(({ code, signal }) => {
    children.delete(handle);
    if (!stopRequested) reportUnexpectedExit(handle, code, signal);
  });
  return handle;
}

function tail(output: string): string {
  const text = output.trim().slice(-3_000);
  return text === '' ? '(no output)' : `--- output ---\n${text}`;
}

/**
 * `node --import tsx [--import <preload>…] <script> ...args` from the repository root, with exactly `env`
 * (plus PATH and HOME). `preloads`: modules loaded after tsx, before the script (e.g. the fake store's
 * tools/dev/fake-store-preload.ts).
 */
export function spawnTsx(
  name: string,
  script: string,
  args: string[],
  env: Record<string, string>,
  preloads: readonly string[] = [],
): Child {
  const imports = preloads.flatMap((p) => ['--import', p]);
  // BENCH_CPU_PROF_DIR: every child writes a V8 CPU profile there when it exits (bench/profile-top.ts reads them).
  const profile = process.env.BENCH_CPU_PROF_DIR
    ? ['--cpu-prof', `--cpu-prof-dir=${path.join(process.env.BENCH_CPU_PROF_DIR, name.replace(/\W+/g, '-'))}`]
    : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', ...imports, script, ...args], {
    cwd: ROOT,
    env: { ...baseEnv(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return track(name, child);
}

/** A bench script run through tsx with an IPC channel (the load generator). */
export function forkTsx(name: string, script: string, env: Record<string, string> = {}): Child {
  const child = fork(path.join(ROOT, script), [], {
    cwd: ROOT,
    env: { ...baseEnv(), ...env },
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  return track(name, child);
}

/** Stops every child still running (SIGTERM, then SIGKILL), all at once. */
export async function stopAllChildren(graceMs = 5_000): Promise<void> {
  await Promise.all([...children].map((c) => c.stop(graceMs)));
}

/** Process ids of every child still running. */
export function runningChildPids(): number[] {
  return [...children].filter((c) => c.running()).map((c) => c.pid);
}

/** Last resort on process exit: SIGKILL whatever is left, synchronously. */
export function killAllChildrenNow(): void {
  for (const c of children) if (c.running()) c.process.kill('SIGKILL');
}

/** A free TCP port on 127.0.0.1 (asked from the OS, then released for the child to take). */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise((resolve) => server.close(resolve));
  if (port === 0) throw new Error('could not find a free port');
  return port;
}
