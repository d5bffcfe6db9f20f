import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorControl } from '../helpers/emulator.js';
import { adminPages } from '../../src/ui/vocabulary.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const children = new Set<ChildProcess>();

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

function start(script: string, args: string[], env: Record<string, string>): ChildProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return child;
}

/** Collects a child's output; resolves when `marker` appears, rejects on exit or after `timeoutMs`. */
function waitForOutput(child: ChildProcess, marker: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`"${marker}" not printed in time:\n${out}`)), timeoutMs);
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes(marker)) {
        clearTimeout(timer);
        resolve(out);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited (${String(code)}) before "${marker}":\n${out}`));
    });
  });
}

/** Runs a child to its end; kills it after `timeoutMs`. */
function runToEnd(child: ChildProcess, timeoutMs: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`did not finish in time:\n${out}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
  });
}

function exitOf(child: ChildProcess, timeoutMs: number): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('did not exit in time')), timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

let dir: string;
let env: Record<string, string>;
let appPort: number;
let emulatorPort: number;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'tracksync-dev-'));
  appPort = await freePort();
  emulatorPort = await freePort();
  env = {
    PORT: String(appPort),
    EMULATOR_PORT: String(emulatorPort),
    DATABASE_URL: `file:${path.join(dir, 'dev.db')}`,
    DEV_ENV_FILE: path.join(dir, '.env.development'),
    LOG_LEVEL: 'warn',
  };
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

describe('npm run dev + npm run dev:send', { timeout: 150_000 }, () => {
  it('starts app and emulator, connects the demo shop, turns a sent sample into a tracker, stops on SIGTERM', async () => {
    const dev = start('tools/dev/dev.ts', [], env);
    const banner = await waitForOutput(dev, 'Ctrl+C stops everything.', 60_000);
    expect(banner).toContain(`app:        http://127.0.0.1:${appPort}`);
    expect(banner).toContain(`emulator:   http://127.0.0.1:${emulatorPort}/v1`);
    expect(banner).toContain('demo shop:  demo-shop.myshopify.com (app name demo-store, connected now)');
    expect(banner).toContain(
      `npm run dev:send -- fulfillments-create.ups --port ${appPort} --emulator-port ${emulatorPort}`,
    );
    expect(banner).not.toContain('demo-api-key');
    // The CLI line runs as printed in another terminal: it names the settings file this run wrote.
    expect(banner).toContain(
      `DEV_ENV_FILE=${env.DEV_ENV_FILE} npm run cli -- trackers:list --shop demo-shop.myshopify.com`,
    );
    expect(banner).toContain(
      `http://127.0.0.1:${appPort}/apps/track?format=html&tracking=1Z999AA10123456784`,
    );

    // The banner names every page of the app with its own address, and each opens (the demo shop is
    // installed with a placeholder session).
    const pageList = Object.values(adminPages);
    expect(banner).toContain(`The app's ${pageList.length} pages`);
    const pageUrls = pageList.map((page) => {
      const line = banner.split('\n').find((l) => l.trimStart().startsWith(`${page.title} `));
      expect(line, page.title).toBeDefined();
      const url = /(http:\S+)/.exec(line!)?.[1];
      expect(url?.split('id_token=')[0]).toBe(
        `http://127.0.0.1:${appPort}${page.path}?shop=demo-shop.myshopify.com&`,
      );
      return url!;
    });
    for (const url of pageUrls) {
      const page = await fetch(url);
      expect(page.status, url).toBe(200);
      expect(await page.text()).toMatch(/<html/i);
    }
    const pageUrl = pageUrls[0]!;

    const send = start(
      'tools/dev/dev-send.ts',
      ['fulfillments-create.ups', '--port', String(appPort), '--emulator-port', String(emulatorPort)],
      {},
    );
    const sent = await runToEnd(send, 30_000);
    expect(sent.code).toBe(0);
    expect(sent.out).toContain('fulfillments/create  demo-shop.myshopify.com');
    expect(sent.out).toContain('→ HTTP 200 {"ok":true,"duplicate":false}');
    expect(sent.out).toMatch(/1Z999AA10123456784\s+ups\s+6120000000001/);

    const emulator = emulatorControl(`http://127.0.0.1:${emulatorPort}`);
    expect(await emulator.trackers('demo-store')).toMatchObject([
      { tracking_number: '1Z999AA10123456784', tracking_provider: 'ups', order_id: '6120000000001' },
    ]);

    // The emulator pushes the demo shop's scans to its status push URL: the next one arrives as a push.
    expect(banner).toContain(
      `statuses:   the emulator pushes each new scan to http://127.0.0.1:${appPort}/status-webhooks/…`,
    );
    await emulator.advanceClock(60 * 60);
    const pushDeadline = Date.now() + 15_000;
    let pushed: Array<{ httpStatus: number }> = [];
    while (Date.now() < pushDeadline && !pushed.some((c) => c.httpStatus === 200)) {
      pushed = (await emulator.calls({ appName: 'demo-store', operation: 'push' })) as Array<{
        httpStatus: number;
      }>;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(pushed.some((c) => c.httpStatus === 200)).toBe(true);

    // The CLI works on this setup with nothing set but where dev wrote its settings.
    const cli = await runToEnd(
      start('src/cli/main.ts', ['trackers:list', '--shop', 'demo-shop.myshopify.com'], {
        DEV_ENV_FILE: env.DEV_ENV_FILE!,
      }),
      30_000,
    );
    expect(cli.out).toContain('1Z999AA10123456784');
    expect(cli.code).toBe(0);

    // A backfill reads the local fake store's orders (no real store is called): its parcels get trackers.
    const token = new URL(pageUrl!).searchParams.get('id_token')!;
    const started = await fetch(`http://127.0.0.1:${appPort}/api/backfill`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ days: 7 }),
    });
    expect(started.status).toBeLessThan(300);
    const deadline = Date.now() + 30_000;
    let numbers: string[] = [];
    while (Date.now() < deadline) {
      numbers = (await emulator.trackers('demo-store')).map((t) => t.tracking_number);
      if (numbers.length >= 5) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(numbers).toEqual(
      expect.arrayContaining(['1Z999AA10123456001', '1234567001', '1234567002', '1Z999AA10123456003']),
    );

    dev.kill('SIGTERM');
    expect(await exitOf(dev, 15_000)).toBe(0);
  });

  it('on a second start finds the demo shop already connected', async () => {
    const dev = start('tools/dev/dev.ts', [], env);
    const banner = await waitForOutput(dev, 'Ctrl+C stops everything.', 60_000);
    expect(banner).toContain('demo-shop.myshopify.com (app name demo-store, already connected)');
    dev.kill('SIGINT');
    expect(await exitOf(dev, 15_000)).toBe(0);
  });

  it('refuses to start with a secret other than the development one (its app proxy signs with it)', async () => {
    const port = await freePort();
    const dev = await runToEnd(
      start('tools/dev/dev.ts', [], { ...env, PORT: String(port), SHOPIFY_API_SECRET: 'a-real-app-secret' }),
      30_000,
    );
    expect(dev.code).toBe(1);
    expect(dev.out).toContain('tracksync dev failed to start: the dev app proxy (GET /apps/track)');
    expect(dev.out).toContain('only with the development secret (SHOPIFY_API_SECRET=dev-app-secret)');
    expect(dev.out).not.toContain('a-real-app-secret');
    // Nothing was started: no app on its port.
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it('dev:send refuses an unknown sample (exit 2), listing those there are', async () => {
    const sent = await runToEnd(start('tools/dev/dev-send.ts', ['no-such-sample'], {}), 20_000);
    expect(sent.code).toBe(2);
    expect(sent.out).toContain('no sample "no-such-sample" in samples/shopify/');
    expect(sent.out).toContain('fulfillments-create.ups');
    expect(sent.out).toContain('Usage: npm run dev:send -- <sample>');
  });

  it('dev:send says when the app is not running (exit 1)', async () => {
    const port = await freePort();
    const sent = await runToEnd(
      start('tools/dev/dev-send.ts', ['orders-cancelled', '--port', String(port), '--wait', '0'], {}),
      20_000,
    );
    expect(sent.code).toBe(1);
    expect(sent.out).toContain(`orders/cancelled`);
    expect(sent.out).toContain(`the app does not answer at http://127.0.0.1:${port}`);
  });
});

/**
 * The README's next steps, exactly as written there, in order, after `npm run dev` on its default ports.
 * (Dev mode always uses SQLite: this file is in the `unit` project, which runs it once.)
 */
describe('the README’s next steps', { timeout: 180_000 }, () => {
  it('run as written on a fresh setup, each exiting 0, the CLI listing the tracker', async () => {
    const readme = await readFile(path.join(root, 'README.md'), 'utf8');
    const section = readme.split('\n## Next steps')[1]?.split('\n## ')[0] ?? '';
    const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    const steps = block
      .split('\n')
      .map((line) => line.replace(/#.*$/, '').trim())
      .filter((line) => line.startsWith('npm run '));
    expect(steps.length).toBeGreaterThanOrEqual(3);

    const stepsDir = await mkdtemp(path.join(tmpdir(), 'tracksync-readme-'));
    const stepsEnv = {
      DATABASE_URL: `file:${path.join(stepsDir, 'dev.db')}`,
      DEV_ENV_FILE: path.join(stepsDir, '.env.development'),
      LOG_LEVEL: 'warn',
    };
    const npm = (args: string[]) =>
      spawn('npm', args, {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...stepsEnv },
        detached: true,
      });
    const dev = npm(['run', 'dev']);
    try {
      await waitForOutput(dev, 'Ctrl+C stops everything.', 90_000);
      const outputs: string[] = [];
      for (const step of steps) {
        const run = await runToEnd(npm(step.split(/\s+/).slice(1)), 60_000);
        outputs.push(run.out);
        expect(run.code, `${step}\n${run.out}`).toBe(0);
      }
      expect(outputs.at(-1)).toContain('1Z999AA10123456784');
    } finally {
      if (dev.pid) process.kill(-dev.pid, 'SIGTERM');
      await exitOf(dev, 15_000).catch(() => null);
      await rm(stepsDir, { recursive: true, force: true });
    }
  });
});
