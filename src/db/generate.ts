/**
 * `npm run db:generate`: derives the PostgreSQL schema from prisma/schema.prisma and generates both
 * Prisma clients (src/generated/sqlite, src/generated/postgresql). Tooling only (needs the `prisma`
 * devDependency).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import {
  GENERATED_DIR,
  generatedClientDir,
  POSTGRES_SCHEMA_PATH,
  PROJECT_ROOT,
  SCHEMA_PATH,
} from './paths.js';
import { derivePostgresSchema } from './schema.js';

/** Bump when the generation recipe changes, to invalidate the up-to-date stamp. */
const RECIPE_VERSION = '1';
const STAMP_PATH = path.join(GENERATED_DIR, '.db-generate.stamp');

export interface GenerateOptions {
  /** Regenerate even when the stamp says the clients are up to date. */
  force?: boolean;
  log?: (message: string) => void;
}

function prismaCli(): { path: string; version: string } {
  const require = createRequire(import.meta.url);
  const pkg = require('prisma/package.json') as { version: string };
  return { path: require.resolve('prisma/build/index.js'), version: pkg.version };
}

/**
 * Prisma 7 cannot download its native engines here and `generate` does not use them, but it insists
 * that PRISMA_SCHEMA_ENGINE_BINARY names an existing file when it cannot find its own.
 */
function placeholderEngineBinary(): string {
  return existsSync('/bin/true') ? '/bin/true' : process.execPath;
}

function runPrismaGenerate(cliPath: string, schemaPath: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, 'generate', '--schema', schemaPath], {
      cwd: PROJECT_ROOT,
      env: {
        ...process.env,
        PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? placeholderEngineBinary(),
        CHECKPOINT_DISABLE: '1',
        PRISMA_HIDE_UPDATE_MESSAGE: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code === 0) resolve(output);
      else reject(new Error(`prisma generate --schema ${schemaPath} exited with ${code}:\n${output}`));
    });
  });
}

async function readIfExists(file: string): Promise<string | null> {
  return readFile(file, 'utf8').catch(() => null);
}

export async function generateClients(options: GenerateOptions = {}): Promise<{ generated: boolean }> {
  const log = options.log ?? (() => {});
  const source = await readFile(SCHEMA_PATH, 'utf8');
  const postgres = derivePostgresSchema(source, POSTGRES_SCHEMA_PATH); // also checks portability
  await mkdir(GENERATED_DIR, { recursive: true });
  if ((await readIfExists(POSTGRES_SCHEMA_PATH)) !== postgres) {
    await writeFile(POSTGRES_SCHEMA_PATH, postgres, 'utf8');
  }

  const cli = prismaCli();
  const stamp = createHash('sha256')
    .update(JSON.stringify([RECIPE_VERSION, cli.version, source, postgres]))
    .digest('hex');
  const clientsExist = (['sqlite', 'postgresql'] as const).every((p) =>
    existsSync(path.join(generatedClientDir(p), 'client.ts')),
  );
  if (!options.force && clientsExist && (await readIfExists(STAMP_PATH)) === stamp) {
    log('Prisma clients are up to date (src/generated/sqlite, src/generated/postgresql).');
    return { generated: false };
  }

  const relative = (p: string) => path.relative(PROJECT_ROOT, p);
  await Promise.all(
    [SCHEMA_PATH, POSTGRES_SCHEMA_PATH].map(async (schemaPath) => {
      await runPrismaGenerate(cli.path, schemaPath);
    }),
  );
  await writeFile(STAMP_PATH, stamp, 'utf8');
  log(
    `Generated Prisma Client ${cli.version}: ${relative(generatedClientDir('sqlite'))} (from ${relative(SCHEMA_PATH)}), ` +
      `${relative(generatedClientDir('postgresql'))} (from ${relative(POSTGRES_SCHEMA_PATH)})`,
  );
  return { generated: true };
}
