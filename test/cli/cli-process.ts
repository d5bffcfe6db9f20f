import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { runCli as runCliEntry } from '../../src/cli/run.js';

/** The repository root: the CLI runs from there, as `npm run cli` does. */
export const root = fileURLToPath(new URL('../..', import.meta.url));

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

const running = new Set<ChildProcess>();

/** A random ENCRYPTION_KEY (32 bytes, base64), as an operator would generate one. */
export function randomEncryptionKey(): string {
  return randomBytes(32).toString('base64');
}

/** The environment the CLI needs, and nothing from this process's environment but PATH. */
export function cliEnv(settings: {
  databaseUrl: string;
  trackingApiBaseUrl: string;
  encryptionKey: string;
}): Record<string, string> {
  return {
    DATABASE_URL: settings.databaseUrl,
    ENCRYPTION_KEY: settings.encryptionKey,
    TRACKING_API_BASE_URL: settings.trackingApiBaseUrl,
    SHOPIFY_API_KEY: 'cli-test-api-key',
    SHOPIFY_API_SECRET: 'cli-test-app-secret',
    SHOPIFY_APP_URL: 'http://127.0.0.1:3000',
  };
}

/**
 * What the CLI process gets on top of `env`: PATH, and no dev settings file (a leftover
 * .env.development of `npm run dev` must not change what is tested).
 */
function processEnv(env: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? '', DEV_ENV_FILE: '/nonexistent/.env.development', ...env };
}

/**
 * Runs a command line in this process through the CLI's entry function (what src/cli/main.ts calls),
 * with the environment the process would get, capturing what it writes to stdout and stderr (its log
 * lines included) and its exit code. Starting a process per call cost a second or more.
 */
export async function runCli(
  args: string[],
  env: Record<string, string>,
  options: { stdin?: string } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCliEntry(args, {
    io: {
      out: (text = '') => (stdout += `${text}\n`),
      err: (text) => (stderr += `${text}\n`),
    },
    env: processEnv(env),
    readStdin: async () => options.stdin ?? '',
    logDestination: { write: (line: string) => (stderr += line) },
  });
  return { code, stdout, stderr };
}

/** Runs `src/cli/main.ts` as a real child process with exactly `env` (plus PATH); kills it after `timeoutMs`. */
export function spawnCli(
  args: string[],
  env: Record<string, string>,
  options: { stdin?: string; timeoutMs?: number } = {},
): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', ...args], {
      cwd: root,
      env: processEnv(env),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    running.add(child);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`cli ${args.join(' ')} did not finish in time\n${stdout}\n${stderr}`));
    }, options.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      running.delete(child);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.stdin ?? '');
  });
}

/** For afterAll: no CLI process outlives its test file. */
export function killRunningClis(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}
