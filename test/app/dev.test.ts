import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emulatorControl } from '../helpers/emulator.js';

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
    LOG_LEVEL: 'warn',
  };
}, 60_000);

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await rm(dir, { recursive: true, force: true });
});

describe('npm run dev + npm run dev:send', { timeout: 150_000 }, () => {
  it('starts app and emulator, connects the demo shop, turns a sent fixture into a tracker, stops on SIGTERM', async () => {
    const dev = start('src/app/dev.ts', [], env);
    const banner = await waitForOutput(dev, 'Ctrl+C stops everything.', 60_000);
    expect(banner).toContain(`app:        http://127.0.0.1:${appPort}`);
    expect(banner).toContain(`emulator:   http://127.0.0.1:${emulatorPort}/v1`);
    expect(banner).toContain('demo shop:  demo-shop.myshopify.com (app name demo-store, connected now)');
    expect(banner).toContain(
      `npm run dev:send -- fulfillments-create.ups --port ${appPort} --emulator-port ${emulatorPort}`,
    );
    expect(banner).not.toContain('demo-api-key');

    const send = start(
      'src/app/dev-send.ts',
      ['fulfillments-create.ups', '--port', String(appPort), '--emulator-port', String(emulatorPort)],
      {},
    );
    const sent = await runToEnd(send, 30_000);
    expect(sent.code).toBe(0);
    expect(sent.out).toContain('fulfillments/create  demo-shop.myshopify.com');
    expect(sent.out).toContain('→ HTTP 200 {"ok":true,"duplicate":false}');
    expect(sent.out).toMatch(/1Z999AA10123456784\s+ups\s+6120000000001/);

    const trackers = await emulatorControl(`http://127.0.0.1:${emulatorPort}`).trackers('demo-store');
    expect(trackers).toMatchObject([
      { tracking_number: '1Z999AA10123456784', tracking_provider: 'ups', order_id: '6120000000001' },
    ]);

    dev.kill('SIGTERM');
    expect(await exitOf(dev, 15_000)).toBe(0);
  });

  it('on a second start finds the demo shop already connected', async () => {
    const dev = start('src/app/dev.ts', [], env);
    const banner = await waitForOutput(dev, 'Ctrl+C stops everything.', 60_000);
    expect(banner).toContain('demo-shop.myshopify.com (app name demo-store, already connected)');
    dev.kill('SIGINT');
    expect(await exitOf(dev, 15_000)).toBe(0);
  });

  it('dev:send refuses an unknown fixture (exit 2), listing those there are', async () => {
    const sent = await runToEnd(start('src/app/dev-send.ts', ['no-such-fixture'], {}), 20_000);
    expect(sent.code).toBe(2);
    expect(sent.out).toContain('no fixture "no-such-fixture"');
    expect(sent.out).toContain('fulfillments-create.ups');
    expect(sent.out).toContain('Usage: npm run dev:send -- <fixture>');
  });

  it('dev:send says when the app is not running (exit 1)', async () => {
    const port = await freePort();
    const sent = await runToEnd(
      start('src/app/dev-send.ts', ['orders-cancelled', '--port', String(port), '--wait', '0'], {}),
      20_000,
    );
    expect(sent.code).toBe(1);
    expect(sent.out).toContain(`orders/cancelled`);
    expect(sent.out).toContain(`the app does not answer at http://127.0.0.1:${port}`);
  });
});
