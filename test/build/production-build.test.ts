import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/db/paths.js';
import { createEmptyTestDatabase, defaultTestProvider, type EmptyTestDatabase } from '../helpers/database.js';
import { productionSteps } from './dockerfile.js';
import { filesUnder, importSpecifiers, packageOf, strayImports } from './module-imports.js';

/**
 * The production build, as the Dockerfile makes it, without a Docker engine: in a copy of the working tree
 * (what `git ls-files` holds, tracked and untracked-but-not-ignored files: the build context), run the
 * Dockerfile's build-stage npm commands (read from the Dockerfile: npm ci, npm run build, npm prune), then
 * its CMD (node dist/app/main.js) in a production environment, once on SQLite and once on PostgreSQL, and
 * ask /readyz. The compiled emulator serves as the tracking service, and the compiled CLI is run too.
 *
 * Slow (npm ci in the copy: a minute or two) and it checks both databases itself, so it runs in the
 * postgresql vitest project only; the sqlite project skips it.
 */

const execFileAsync = promisify(execFile);

/**
 * dist/'s folders, every one (an allow-list, not a list of what must not be there): the compiled src/
 * (tsconfig.build.json) and the page's static files and bundle. A new folder of src/ is added here on
 * purpose; development and test tooling lives in tools/ and scripts/, which the build does not compile.
 */
const distFolders = [
  'app',
  'carriers',
  'cli',
  'context',
  'db',
  'errors',
  'flow',
  'flow/queries',
  'generated',
  'generated/postgresql',
  'generated/sqlite',
  'jobs',
  'jobs/queries',
  'lib',
  'notifications',
  'notifications/queries',
  'observability',
  'proxy',
  'proxy/locales',
  'proxy/queries',
  'settings',
  'shipments',
  'shipments/queries',
  'shopify',
  'shops',
  'status-pushes',
  'status-pushes/queries',
  'trackers',
  'trackers/queries',
  'tracking',
  'ui',
  'ui/api',
  'ui/auth',
  'ui/public',
  'ui/public/assets',
  'webhooks',
  'webhooks/queries',
  'webhooks/topics',
];
/** Inside the generated Prisma clients, Prisma's own layout (models/, internal/). */
const generatedClient = /^generated\/(sqlite|postgresql)\//;

const steps = productionSteps();
/** npm ci takes ~1.5 min on a warm cache; the whole build gets a generous bound. */
const BUILD_TIMEOUT_MS = 8 * 60_000;
const START_TIMEOUT_MS = 45_000;
const STOP_WAIT_MS = 5_000;

/** PATH without any node_modules/.bin (npm run prepends the repository's own; the copy must use its own). */
function cleanPath(): string {
  return (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((entry) => entry !== '' && !entry.includes(`${path.sep}node_modules${path.sep}.bin`))
    .join(path.delimiter);
}

/**
 * The environment of the build steps, from scratch: nothing of vitest (NODE_ENV=test) nor of an enclosing
 * `npm test` (npm_config_local_prefix would point npm at this repository instead of the copy). HOME keeps
 * the user's npm configuration and cache; npm_config_nodedir (scripts/use-node-24.sh sets it, as the
 * Dockerfile does) keeps better-sqlite3 building against the headers of the Node that runs it.
 */
function buildEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: cleanPath(), HOME: process.env.HOME ?? os.homedir() };
  for (const name of ['TMPDIR', 'LANG', 'LC_ALL', 'npm_config_nodedir', 'NPM_CONFIG_NODEDIR']) {
    if (process.env[name]) env[name] = process.env[name];
  }
  return {
    ...env,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_prefer_offline: 'true',
  };
}

/** The build context: tracked and untracked, not ignored files of the working tree (no node_modules, dist, .git). */
async function copyWorkingTree(to: string): Promise<number> {
  const { stdout } = await execFileAsync(
    'git',
    ['ls-files', '-z', '--cached', '--others', '--exclude-standard'],
    { cwd: PROJECT_ROOT, maxBuffer: 16 * 1024 * 1024 },
  );
  const files = stdout.split('\0').filter((f) => f !== '' && existsSync(path.join(PROJECT_ROOT, f)));
  for (const file of files) {
    await mkdir(path.dirname(path.join(to, file)), { recursive: true });
    await copyFile(path.join(PROJECT_ROOT, file), path.join(to, file));
  }
  return files.length;
}

/** Runs one Dockerfile RUN command as Docker does (`/bin/sh -c`), failing with its output's tail. */
function runStep(command: string, cwd: string, timeoutMs: number): Promise<number> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', command], {
      cwd,
      env: buildEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const keep = (chunk: Buffer) => {
      output = (output + chunk.toString('utf8')).slice(-8000);
    };
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(Date.now() - started);
      else
        reject(
          new Error(
            `\`${command}\` ended with ${signal ?? code} after ${Date.now() - started} ms:\n${output}`,
          ),
        );
    });
  });
}

interface Server {
  child: ChildProcess;
  output(): string;
  exited: Promise<void>;
}

const servers: Server[] = [];

/**
 * Starts a compiled entry point with exactly `env` (plus PATH and HOME) and waits until a line of its
 * output gives the URL it listens on (`pick`).
 */
async function startServer(
  args: string[],
  cwd: string,
  env: Record<string, string>,
  pick: (line: string) => string | undefined,
): Promise<{ server: Server; url: string }> {
  const child = spawn(args[0] ?? 'node', args.slice(1), {
    cwd,
    env: { PATH: cleanPath(), HOME: process.env.HOME ?? os.homedir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const server: Server = { child, output: () => output, exited };
  servers.push(server);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${args.join(' ')} did not start in ${START_TIMEOUT_MS} ms:\n${output}`)),
      START_TIMEOUT_MS,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString('utf8');
      for (const line of output.split('\n')) {
        const found = pick(line);
        if (found !== undefined) {
          clearTimeout(timer);
          resolve(found);
          return;
        }
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`${args.join(' ')} exited with ${child.exitCode ?? child.signalCode}:\n${output}`));
    });
  });
  return { server, url };
}

/** SIGTERM, then SIGKILL when it has not exited within STOP_WAIT_MS; never waits longer than twice that. */
async function stopServer(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const waited = (ms: number) =>
    Promise.race([
      server.exited.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), ms)),
    ]);
  server.child.kill('SIGTERM');
  if (await waited(STOP_WAIT_MS)) return;
  server.child.kill('SIGKILL');
  await waited(STOP_WAIT_MS);
}

/** The app's `listening` log line (pino JSON) carries its URL. */
function appUrl(line: string): string | undefined {
  if (!line.startsWith('{')) return undefined;
  try {
    const entry = JSON.parse(line) as { msg?: string; url?: string };
    return entry.msg === 'listening' ? entry.url : undefined;
  } catch {
    return undefined;
  }
}

describe.runIf(defaultTestProvider() === 'postgresql')(
  'production build (the Dockerfile, without Docker)',
  () => {
    let workDir = '';
    let trackingApiBaseUrl = '';
    let postgres: EmptyTestDatabase | undefined;
    const timings: string[] = [];

    /** The runtime stage's environment: NODE_ENV=production and what src/config.ts requires. */
    const appEnv = (databaseUrl: string): Record<string, string> => ({
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: databaseUrl,
      SHOPIFY_API_KEY: 'production-build-test',
      SHOPIFY_API_SECRET: randomBytes(16).toString('hex'),
      SHOPIFY_APP_URL: 'https://tracksync.example.com',
      TRACKING_API_BASE_URL: trackingApiBaseUrl,
      ENCRYPTION_KEY: `k1:${randomBytes(32).toString('base64')}`,
      LOG_LEVEL: 'info',
    });

    beforeAll(async () => {
      workDir = await mkdtemp(path.join(os.tmpdir(), 'tracksync-production-build-'));
      const copied = await copyWorkingTree(workDir);
      timings.push(`copied ${copied} files`);
      const deadline = Date.now() + BUILD_TIMEOUT_MS - 10_000;
      for (const command of steps.build) {
        const ms = await runStep(command, workDir, Math.max(deadline - Date.now(), 1_000));
        timings.push(`${command}: ${(ms / 1000).toFixed(1)} s`);
      }
      // The emulator is the tracking service (readiness does not need one; the worker calls it). It is
      // development tooling, not in the build: run from this checkout's sources.
      const emulator = await startServer(
        ['node', '--import', 'tsx', 'tools/emulator/main.ts'],
        PROJECT_ROOT,
        { NODE_ENV: 'production', EMULATOR_PORT: '0', LOG_LEVEL: 'warn' },
        (line) => /base URL \(tracking interface\): (\S+)/.exec(line)?.[1],
      );
      trackingApiBaseUrl = emulator.url;
    }, BUILD_TIMEOUT_MS + START_TIMEOUT_MS);

    afterAll(async () => {
      console.log(`production build: ${timings.join('; ')}`);
      await Promise.all(servers.map(stopServer));
      await postgres?.cleanup();
      if (workDir !== '') await rm(workDir, { recursive: true, force: true });
    }, 60_000);

    it('prunes every build tool: no vitest, tsx, typescript or prisma CLI; the schema engine stays', () => {
      const modules = path.join(workDir, 'node_modules');
      for (const tool of ['vitest', 'tsx', 'typescript', 'prisma', 'eslint']) {
        expect(existsSync(path.join(modules, tool)), `node_modules/${tool}`).toBe(false);
      }
      expect(existsSync(path.join(modules, '@prisma', 'schema-engine-wasm', 'schema_engine_bg.wasm'))).toBe(
        true,
      );
      expect(existsSync(path.join(workDir, 'dist', 'app', 'main.js'))).toBe(true);
    });

    it('holds only the folders of what runs in production (an allow-list): no tooling, no stand-ins', async () => {
      const dist = path.join(workDir, 'dist');
      const { stdout } = await execFileAsync('find', ['.', '-mindepth', '1', '-type', 'd'], { cwd: dist });
      const folders = stdout
        .split('\n')
        .filter((f) => f !== '')
        .map((f) => f.replace(/^\.\//, ''))
        .sort();
      expect(folders.filter((f) => !distFolders.includes(f) && !generatedClient.test(f))).toEqual([]);
      // Every folder listed is there: a list left behind by a move would allow a folder back unseen.
      expect(distFolders.filter((f) => !folders.includes(f))).toEqual([]);
      const { stdout: rootFiles } = await execFileAsync('find', ['.', '-maxdepth', '1', '-type', 'f'], {
        cwd: dist,
      });
      expect(
        rootFiles
          .split('\n')
          .filter((f) => f !== '')
          .sort(),
      ).toEqual(['./config.js', './logger.js']);
    });

    it("imports only production dependencies, Node's modules and dist/ itself: no esbuild, tsx, vitest or tools/", () => {
      const dist = path.join(workDir, 'dist');
      const modules = filesUnder(
        dist,
        ['.js', '.mjs'],
        (folder) => folder === path.join(dist, 'ui', 'public'),
      );
      expect(modules.length).toBeGreaterThan(50);
      const { dependencies } = JSON.parse(readFileSync(path.join(workDir, 'package.json'), 'utf8')) as {
        dependencies: Record<string, string>;
      };
      expect(strayImports(dist, modules, Object.keys(dependencies))).toEqual([]);
      const imported = new Set(modules.flatMap((file) => importSpecifiers(readFileSync(file, 'utf8'))));
      for (const tool of ['esbuild', 'tsx', 'vitest', 'prisma', 'typescript'])
        expect([...imported].filter((s) => packageOf(s) === tool)).toEqual([]);
      expect([...imported].filter((s) => s.includes('tools/') || s.includes('scripts/'))).toEqual([]);
    });

    it('starts on SQLite (a file in the work dir), migrates, and answers /readyz 200 and the page', async () => {
      const databaseUrl = `file:${path.join(workDir, 'data', 'tracksync.db')}`;
      const { url } = await startServer(steps.start, workDir, appEnv(databaseUrl), appUrl);
      expect(new URL(url).hostname).toBe('127.0.0.1');
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready' });
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
      // The page's static files and its minified bundle are served from dist/ui/public.
      const asset = await fetch(`${url}/assets/page.js`);
      expect(asset.status).toBe(200);
      const bundle = await asset.text();
      expect(bundle.length).toBeGreaterThan(1000);
      expect(bundle).toContain('sourceMappingURL=page.js.map');
      expect((await fetch(`${url}/styles.css`)).status).toBe(200);

      // The compiled operator CLI works on the same database, with the pruned node_modules.
      const cli = await execFileAsync('node', ['dist/cli/main.js', 'shop:list', '--json'], {
        cwd: workDir,
        env: { PATH: cleanPath(), HOME: process.env.HOME ?? os.homedir(), ...appEnv(databaseUrl) },
        timeout: 30_000,
      });
      expect(JSON.parse(cli.stdout)).toEqual({ shops: [] });
    }, 60_000);

    it('starts on PostgreSQL (a scratch database), migrates, and answers /readyz 200', async () => {
      postgres = await createEmptyTestDatabase('postgresql');
      const { url } = await startServer(steps.start, workDir, appEnv(postgres.url), appUrl);
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready' });
    }, 60_000);
  },
);
