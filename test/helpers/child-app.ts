import { type ChildProcess, spawn } from 'node:child_process';
import { PROJECT_ROOT } from '../../src/db/paths.js';
import { TEST_SECRET } from './app.js';

/**
 * The app as a real process (`node --import tsx src/app/main.ts --role <role>`), configured only through
 * its environment, as in production. Every child started here is tracked so a test file can kill whatever
 * is still running in afterAll, even when a test failed half-way.
 */

export interface ChildApp {
  readonly process: ChildProcess;
  readonly pid: number;
  /** Resolves when the process has exited (code, or the signal that ended it). */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Whether the process is still running. */
  running(): boolean;
  /** What it wrote to stdout and stderr so far (for failure messages). */
  output(): string;
}

export interface ChildAppEnv {
  DATABASE_URL: string;
  TRACKING_API_BASE_URL: string;
  ENCRYPTION_KEY: string;
  [name: string]: string;
}

const children = new Set<ChildApp>();

export function startChildApp(role: 'web' | 'worker' | 'all', env: ChildAppEnv): ChildApp {
  // The test's fake store, when it names one (tools/dev/fake-store-preload.ts).
  const preload = env.FAKE_STORE_URL ? ['--import', './tools/dev/fake-store-preload.ts'] : [];
  const child = spawn(process.execPath, ['--import', 'tsx', ...preload, 'src/app/main.ts', '--role', role], {
    cwd: PROJECT_ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      SHOPIFY_API_KEY: 'test-api-key',
      SHOPIFY_API_SECRET: TEST_SECRET,
      SHOPIFY_APP_URL: 'http://127.0.0.1:3000',
      HOST: '127.0.0.1',
      PORT: '0',
      LOG_LEVEL: 'silent',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => {
      done = true;
      resolve({ code, signal });
    });
  });
  if (child.pid === undefined) throw new Error('the app child process did not start');
  const app: ChildApp = {
    process: child,
    pid: child.pid,
    exited,
    running: () => !done,
    output: () => output,
  };
  children.add(app);
  void exited.then(() => children.delete(app));
  return app;
}

/** Runs `step`; if it throws, the error names what the children wrote, to explain the failure. */
export async function explainWith<T>(child: ChildApp, step: Promise<T>): Promise<T> {
  try {
    return await step;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`${message}\n--- app child ${child.pid} output ---\n${child.output().slice(-4000)}`);
  }
}

/** SIGKILLs every child still running (afterAll), and waits for them to be gone. */
export async function killChildApps(): Promise<void> {
  const running = [...children];
  for (const child of running) if (child.running()) child.process.kill('SIGKILL');
  await Promise.all(running.map((c) => c.exited));
}
