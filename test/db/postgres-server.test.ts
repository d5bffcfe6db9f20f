import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { PrismaPg } from '@prisma/adapter-pg';
import { describe, expect, it } from 'vitest';
import {
  acquireTestPostgres,
  choosePostgresServer,
  type EmbeddedPostgresServer,
  freePort,
  probePostgres,
  type ProbeResult,
  redactUrl,
  startEmbeddedPostgres,
} from '../../tools/db/postgres-server.js';
import { DEFAULT_POSTGRES_ADMIN_URL } from '../../tools/db/scratch.js';
import { PROJECT_ROOT } from '../../src/db/paths.js';

/** A probe that answers from a table of URLs and records what it was asked. */
function probeAnswering(answers: Record<string, ProbeResult>) {
  const asked: string[] = [];
  const probe = async (url: string): Promise<ProbeResult> => {
    asked.push(url);
    return answers[url] ?? { ok: false, reason: 'DatabaseNotReachable at 127.0.0.1:5432' };
  };
  return { probe, asked };
}

/** Stands in for startEmbeddedPostgres(): a server that records being stopped. */
function fakeEmbedded() {
  const stops: string[] = [];
  let starts = 0;
  const start = async (): Promise<EmbeddedPostgresServer> => {
    starts++;
    return {
      adminUrl: 'postgres://postgres:secret@127.0.0.1:45678/postgres',
      port: 45678,
      folder: '/tmp/tracksync-postgres-abc',
      version: '17.10',
      createdSystemUser: false,
      stop: async () => {
        stops.push('stopped');
      },
    };
  };
  return { start, stops, starts: () => starts };
}

async function query(adminUrl: string, sql: string): Promise<unknown> {
  const adapter = await new PrismaPg({ connectionString: adminUrl }).connect();
  try {
    const result = await adapter.queryRaw({ sql, args: [], argTypes: [] });
    return result.rows[0]?.[0];
  } finally {
    await adapter.dispose();
  }
}

describe('choosePostgresServer', () => {
  it('starts an embedded server when TEST_POSTGRES=embedded, whatever POSTGRES_ADMIN_URL says, asking nobody', async () => {
    const { probe, asked } = probeAnswering({ [DEFAULT_POSTGRES_ADMIN_URL]: { ok: true } });
    await expect(
      choosePostgresServer(
        { TEST_POSTGRES: 'embedded', POSTGRES_ADMIN_URL: 'postgres://u@db.internal/postgres' },
        probe,
      ),
    ).resolves.toEqual({ kind: 'embedded', reason: 'TEST_POSTGRES=embedded' });
    expect(asked).toEqual([]);
  });

  it('uses POSTGRES_ADMIN_URL as it is when set, without looking at the default address', async () => {
    const { probe, asked } = probeAnswering({});
    await expect(
      choosePostgresServer({ POSTGRES_ADMIN_URL: 'postgres://u:p@db.internal:6543/postgres' }, probe),
    ).resolves.toEqual({
      kind: 'server',
      adminUrl: 'postgres://u:p@db.internal:6543/postgres',
      source: 'POSTGRES_ADMIN_URL',
    });
    expect(asked).toEqual([]);
  });

  it('uses the server at the default address when nothing is set and it lets us in', async () => {
    const { probe, asked } = probeAnswering({ [DEFAULT_POSTGRES_ADMIN_URL]: { ok: true } });
    await expect(choosePostgresServer({ TEST_POSTGRES: 'auto' }, probe)).resolves.toEqual({
      kind: 'server',
      adminUrl: DEFAULT_POSTGRES_ADMIN_URL,
      source: 'default address',
    });
    expect(asked).toEqual([DEFAULT_POSTGRES_ADMIN_URL]);
  });

  it('starts an embedded server when nothing is set and nothing at the default address lets us in, saying why', async () => {
    const { probe } = probeAnswering({});
    const choice = await choosePostgresServer({ TEST_POSTGRES: '' }, probe);
    expect(choice.kind).toBe('embedded');
    expect(choice.kind === 'embedded' && choice.reason).toBe(
      'POSTGRES_ADMIN_URL is unset and postgres://postgres@127.0.0.1:5432/postgres does not let us in ' +
        '(DatabaseNotReachable at 127.0.0.1:5432)',
    );
  });

  it('refuses a TEST_POSTGRES it does not know', async () => {
    await expect(choosePostgresServer({ TEST_POSTGRES: 'docker' })).rejects.toThrow(
      'TEST_POSTGRES must be auto or embedded (or unset), got "docker"',
    );
  });
});

describe('acquireTestPostgres', () => {
  it('fails loudly when POSTGRES_ADMIN_URL names a server that does not answer, and starts none', async () => {
    const url = 'postgres://ci:hunter2@127.0.0.1:1/postgres';
    const { probe } = probeAnswering({ [url]: { ok: false, reason: 'DatabaseNotReachable at 127.0.0.1:1' } });
    const embedded = fakeEmbedded();
    const acquiring = acquireTestPostgres({ POSTGRES_ADMIN_URL: url }, { probe, start: embedded.start });
    await expect(acquiring).rejects.toThrow(
      'POSTGRES_ADMIN_URL (postgres://ci:***@127.0.0.1:1/postgres) does not let us in: DatabaseNotReachable at 127.0.0.1:1.',
    );
    await expect(acquiring).rejects.not.toThrow('hunter2');
    expect(embedded.starts()).toBe(0);
  });

  it('uses a named server that answers and leaves it running at the end', async () => {
    const url = 'postgres://ci@127.0.0.1:5433/postgres';
    const { probe, asked } = probeAnswering({ [url]: { ok: true } });
    const embedded = fakeEmbedded();
    const postgres = await acquireTestPostgres({ POSTGRES_ADMIN_URL: url }, { probe, start: embedded.start });
    expect(postgres.adminUrl).toBe(url);
    expect(postgres.description).toBe(
      'PostgreSQL: the server at postgres://ci@127.0.0.1:5433/postgres (POSTGRES_ADMIN_URL)',
    );
    expect(asked).toEqual([url]);
    await postgres.release();
    expect(embedded.starts()).toBe(0);
  });

  it('starts an embedded server when asked, says which, and stops it on release', async () => {
    const embedded = fakeEmbedded();
    const postgres = await acquireTestPostgres({ TEST_POSTGRES: 'embedded' }, { start: embedded.start });
    expect(postgres.adminUrl).toBe('postgres://postgres:secret@127.0.0.1:45678/postgres');
    expect(postgres.description).toMatch(
      /^PostgreSQL: embedded 17\.10 at 127\.0\.0\.1:45678 in \/tmp\/tracksync-postgres-abc, started in \d+\.\d s \(TEST_POSTGRES=embedded\); stopped and removed when the run ends$/,
    );
    expect(embedded.stops).toEqual([]);
    await postgres.release();
    expect(embedded.stops).toEqual(['stopped']);
  });
});

describe('redactUrl', () => {
  it('masks the password and keeps the rest', () => {
    expect(redactUrl('postgres://u:s3cret@h:5432/d?sslmode=require')).toBe(
      'postgres://u:***@h:5432/d?sslmode=require',
    );
    expect(redactUrl(DEFAULT_POSTGRES_ADMIN_URL)).toBe(DEFAULT_POSTGRES_ADMIN_URL);
    expect(redactUrl('not a url')).toBe('(not a URL)');
  });
});

describe('probePostgres', () => {
  it('says nothing answers at a port nobody listens on', async () => {
    const port = await freePort();
    await expect(probePostgres(`postgres://postgres@127.0.0.1:${port}/postgres`)).resolves.toEqual({
      ok: false,
      reason: `DatabaseNotReachable at 127.0.0.1:${port}`,
    });
  });
});

describe('startEmbeddedPostgres', () => {
  it('starts a server on 127.0.0.1 that answers with a password, and stop() shuts it down and removes its folder', async () => {
    const server = await startEmbeddedPostgres();
    try {
      expect(existsSync(server.folder)).toBe(true);
      expect(server.adminUrl).toBe(
        `postgres://postgres:${new URL(server.adminUrl).password}@127.0.0.1:${server.port}/postgres`,
      );
      await expect(probePostgres(server.adminUrl)).resolves.toEqual({ ok: true });
      expect(await query(server.adminUrl, 'SHOW server_version')).toMatch(
        new RegExp(`^${server.version}\\b`),
      );
      expect(await query(server.adminUrl, 'SHOW listen_addresses')).toBe('127.0.0.1');
      // Text compares by code point and upper() knows Unicode: as on servers initialised with C.UTF-8.
      expect(await query(server.adminUrl, "SELECT 'é' > 'z' AND 'B' < 'a' AND upper('é') = 'É'")).toBe(true);
      const wrongPassword = new URL(server.adminUrl);
      wrongPassword.password = 'wrong';
      const refused = await probePostgres(wrongPassword.toString());
      expect(refused.ok).toBe(false);
    } finally {
      await server.stop();
    }
    expect(existsSync(server.folder)).toBe(false);
    const after = await probePostgres(server.adminUrl);
    expect(after).toEqual({ ok: false, reason: `DatabaseNotReachable at 127.0.0.1:${server.port}` });
    await server.stop();
  }, 120_000);

  it("leaves the process's exit code as it was: a failing run that used one still fails", async () => {
    // The package's exit hook would end the process with process.exit(0) on 'beforeExit'.
    const script = [
      "const { startEmbeddedPostgres } = await import('./tools/db/postgres-server.ts');",
      'const server = await startEmbeddedPostgres();',
      'await server.stop();',
      'process.exitCode = 3;',
    ].join('\n');
    const run = promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', '--input-type=module', '-e', script],
      {
        cwd: PROJECT_ROOT,
      },
    );
    await expect(run).rejects.toMatchObject({ code: 3 });
  }, 120_000);
});
