import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { cliEnv, killRunningClis, runCli } from './cli-process.js';

afterAll(() => killRunningClis());

const commandNames = [
  'shop:connect',
  'shop:list',
  'shop:rotate-push-url',
  'trackers:list',
  'jobs:failed',
  'jobs:retry',
  'carriers:refresh',
  'carriers:list',
  'carriers:map',
];

/** Usage errors are found before the environment is read: none is given here. */
const noEnv: Record<string, string> = {};

describe('npm run cli: usage', { timeout: 60_000 }, () => {
  it('without a command prints the usage on stderr and exits 2', async () => {
    const run = await runCli([], noEnv);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    for (const name of commandNames) expect(run.stderr).toContain(name);
  });

  it('names an unknown command, prints the usage, exits 2', async () => {
    const run = await runCli(['shops:frobnicate'], noEnv);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('error: unknown command "shops:frobnicate"');
    expect(run.stderr).toContain('Usage: npm run cli -- <command> [flags]');
  });

  it('help prints every command with its flags on stdout', async () => {
    const run = await runCli(['help'], noEnv);
    expect(run.code).toBe(0);
    for (const name of commandNames) expect(run.stdout).toContain(`  ${name} `);
    expect(run.stdout).toContain('--shop <domain> --api-key <key|-> --app-name <name>');
    expect(run.stdout).toContain('Exit codes:');
  });

  it('<command> --help prints that command only', async () => {
    const run = await runCli(['carriers:map', '--help'], noEnv);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(
      'Usage: npm run cli -- carriers:map --shop <domain> --name <store carrier name> --slug <slug>',
    );
    expect(run.stdout).not.toContain('shop:connect');
  });

  it.each([
    [['shop:connect', '--shop', 'a.myshopify.com'], 'missing --api-key <key>, --app-name <name>'],
    [['trackers:list'], 'missing --shop <domain>'],
    [['trackers:list', '--shop', 'a.myshopify.com', '--frob'], 'Unknown option --frob'],
    [['trackers:list', '--shop', 'a.myshopify.com', '--state', 'lost'], '--state: Invalid option'],
    [['trackers:list', '--shop', 'a.myshopify.com', '--limit', '0'], '--limit:'],
    [['jobs:failed', '--shop', 'not a domain'], '--shop: must be a *.myshopify.com domain'],
    [['carriers:map', '--shop', 'a.myshopify.com', '--name', '...', '--slug', 'ups'], '--name:'],
    [['shop:list', 'extra'], 'Unexpected argument extra'],
  ])('%j is a usage error (exit 2): %s', async (args, message) => {
    const run = await runCli(args, noEnv);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(message);
    expect(run.stderr).toMatch(/^usage: npm run cli -- /m);
    expect(run.stdout).toBe('');
  });

  it('exits 3 naming the missing variables, with no stack trace', async () => {
    const run = await runCli(['shop:list'], noEnv);
    expect(run.code).toBe(3);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('invalid configuration:');
    for (const name of ['ENCRYPTION_KEY', 'TRACKING_API_BASE_URL', 'SHOPIFY_API_SECRET']) {
      expect(run.stderr).toContain(`${name} is not set`);
    }
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });

  it('an unusable ENCRYPTION_KEY is a configuration error that does not print the key', async () => {
    const key = 'k9:c2hvcnQta2V5LXRoYXQtaXMtbm90LTMyLWJ5dGVz';
    const env = cliEnv({
      databaseUrl: `file:${path.join(tmpdir(), 'tracksync-cli-never-created', 'x.db')}`,
      trackingApiBaseUrl: 'http://127.0.0.1:9/v1',
      encryptionKey: key,
    });
    const run = await runCli(['shop:list'], env);
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('the key "k9" of ENCRYPTION_KEY is not 32 bytes in base64');
    expect(run.stderr).toContain('44 characters');
    expect(run.stderr).not.toContain(key.slice(3));
  });
});
