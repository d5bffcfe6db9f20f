import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
let child: ChildProcess | undefined;

/** Starts `tools/emulator/main.ts` with exactly this environment; resolves once it printed `lines` lines. */
function start(env: Record<string, string>, lines = 1): Promise<{ out: string; code: number | null }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', 'tools/emulator/main.ts'], { cwd: root, env });
    child = proc;
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no output in time: ${out}${err}`)), 15_000);
    proc.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.split('\n').length > lines) {
        clearTimeout(timer);
        resolve({ out, code: null });
      }
    });
    proc.stderr.on('data', (d: Buffer) => {
      err += d.toString();
    });
    proc.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ out: out + err, code });
    });
  });
}

function exited(proc: ChildProcess): Promise<number | null> {
  if (proc.exitCode !== null) return Promise.resolve(proc.exitCode);
  return new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
}

afterEach(() => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  child = undefined;
});

describe('npm run emulator (main.ts)', () => {
  it('prints the URL and the demo credentials, serves, and stops on SIGTERM', async () => {
    const { out } = await start({ EMULATOR_PORT: '0', LOG_LEVEL: 'silent' }, 6);
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    expect(url).toBeDefined();
    expect(out).toContain('service-api-key: demo-api-key');
    expect(out).toContain('app-name:        demo-store');
    const res = await fetch(`${url}/v1/shipping_carriers/supported`);
    expect(res.status).toBe(200);
    child!.kill('SIGTERM');
    expect(await exited(child!)).toBe(0);
  });

  it('with EMULATOR_ACCOUNTS prints no demo credentials and applies env faults', async () => {
    const accounts = JSON.stringify([{ apiKey: 'cli-key-123456', appName: 'cli-shop' }]);
    const { out } = await start(
      { EMULATOR_PORT: '0', LOG_LEVEL: 'silent', EMULATOR_ACCOUNTS: accounts, EMULATOR_DEPRECATION: 'true' },
      4,
    );
    expect(out).not.toContain('demo-api-key');
    expect(out).not.toContain('cli-key-123456');
    expect(out).toContain('cli-shop');
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)?.[1];
    const res = await fetch(`${url}/v1/shipping_carriers/supported`);
    expect(res.headers.get('deprecation')).toBe('true');
    child!.kill('SIGINT');
    expect(await exited(child!)).toBe(0);
  });

  it('exits 1 with a message on bad configuration', async () => {
    const { out, code } = await start({ EMULATOR_PORT: 'not-a-port', LOG_LEVEL: 'silent' });
    expect(code).toBe(1);
    expect(out).toContain('EMULATOR_PORT');
  });
});
