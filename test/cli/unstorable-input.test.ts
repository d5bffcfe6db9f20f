import { afterAll, describe, expect, it } from 'vitest';
import { killRunningClis, runCli } from './cli-process.js';

afterAll(() => killRunningClis());

/**
 * Text the database cannot store (a NUL; a lone surrogate) in a flag or in stdin is a usage error (exit 2)
 * naming the flag, found before the environment or the database is touched: no environment is given.
 * A shell cannot pass a NUL in an argument, but stdin (`--api-key -`) and callers of the CLI's entry can.
 */
const noEnv: Record<string, string> = {};
const shop = 'cli-unstorable.myshopify.com';

describe('npm run cli: text the database cannot store', { timeout: 60_000 }, () => {
  it('refuses it in a flag, naming the flag, never echoing the value', async () => {
    for (const [args, flag] of [
      [['carriers:map', '--shop', shop, '--name', 'U\u0000PS', '--slug', 'ups'], '--name'],
      [['carriers:map', '--shop', shop, '--name', 'UPS', '--slug', 'u\ud800'], '--slug'],
      [['carriers:list', '--search', 'x\u0000'], '--search'],
      [['trackers:list', '--shop', shop, '--order', '1001\u0000'], '--order'],
      [['jobs:retry', '--tracker', 'ok', '--tracker', 'a\u0000'], '--tracker.1'],
      [['jobs:retry', '--delivery', '\udc00'], '--delivery.0'],
      [['shop:connect', '--shop', shop, '--api-key', 'abcdefgh', '--app-name', 'a\u0000'], '--app-name'],
    ] as const) {
      const run = await runCli([...args], noEnv);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain(`${flag}: must not contain NUL or an unpaired surrogate character`);
      expect(run.stderr).not.toMatch(/\u0000|[\ud800-\udfff]/);
    }
  });

  it('refuses an API key read from stdin with a NUL', async () => {
    const run = await runCli(
      ['shop:connect', '--shop', shop, '--api-key', '-', '--app-name', 'store'],
      noEnv,
      { stdin: 'secret-key\u0000-0001\n' },
    );
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--api-key: must not contain NUL');
    expect(run.stderr).not.toContain('secret-key');
  });
});
