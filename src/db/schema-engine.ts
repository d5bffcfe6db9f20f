import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { SchemaEngine, SchemaFilter } from '@prisma/schema-engine-wasm/schema_engine_bg';
import * as bindings from '@prisma/schema-engine-wasm/schema_engine_bg';
import { MigrationAdapterFactory } from './adapters.js';
import type { SchemaFile } from './schema.js';

export type { SchemaEngine };

/** No externally managed tables or enums. */
export const NO_FILTER: SchemaFilter = { externalTables: [], externalEnums: [] };

let loading: Promise<typeof bindings> | undefined;

/** The slice of the WebAssembly JS API used here (the tsconfig has no DOM lib to declare it). */
interface WebAssemblyApi {
  instantiate(
    bytes: Uint8Array,
    imports: Record<string, Record<string, unknown>>,
  ): Promise<{ instance: { exports: Record<string, unknown> } }>;
}

function wasmApi(): WebAssemblyApi {
  return (globalThis as unknown as { WebAssembly: WebAssemblyApi }).WebAssembly;
}

/**
 * Instantiates the schema engine's WebAssembly module once per process.
 *
 * The package's own entry (`schema_engine.js`) does `import * as wasm from "./schema_engine_bg.wasm"`,
 * which Node 22 (still admitted by `engines`) only allows behind `--experimental-wasm-modules`. Instead
 * we import the JS glue (`schema_engine_bg.js`), compile the .wasm bytes ourselves with the glue as its
 * import object (the module imports everything from "./schema_engine_bg.js"), hand the instance to the
 * glue and run wasm-bindgen's start function — exactly what the entry module does, minus the loader flag.
 */
export function loadSchemaEngineWasm(): Promise<typeof bindings> {
  loading ??= (async () => {
    const require = createRequire(import.meta.url);
    const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const bytes = await readFile(path.join(path.dirname(gluePath), 'schema_engine_bg.wasm'));
    const { instance } = await wasmApi().instantiate(bytes, {
      './schema_engine_bg.js': withTrackedTimers(bindings),
    });
    bindings.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return bindings;
  })().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/**
 * The engine starts 10 s timers through the glue's `__wbg_setTimeout_*` import and has no
 * clearTimeout import, so they stay pending after the command has finished and keep Node alive ~10 s
 * after a migration (PostgreSQL). We route them through this set and clear them once no engine is in
 * use (see {@link withSchemaEngine}); a freed engine never needs them.
 */
const pendingTimers = new Set<ReturnType<typeof setTimeout>>();
let enginesInUse = 0;

function withTrackedTimers(glue: typeof bindings): Record<string, unknown> {
  const imports: Record<string, unknown> = { ...glue };
  for (const [name, value] of Object.entries(glue)) {
    if (!name.startsWith('__wbg_setTimeout_') || typeof value !== 'function') continue;
    imports[name] = (callback: () => void, ms: number) => {
      const timer = setTimeout(() => {
        pendingTimers.delete(timer);
        callback();
      }, ms >>> 0);
      pendingTimers.add(timer);
      return timer;
    };
  }
  return imports;
}

function clearEngineTimers(): void {
  for (const timer of pendingTimers) clearTimeout(timer);
  pendingTimers.clear();
}

/** Engine errors name adapter failures as "External error id#N"; the registry holds the JS error. */
function explainEngineError(
  error: unknown,
  registry: { consumeError(id: number): { error: unknown } | undefined },
) {
  if (!(error instanceof Error)) return error;
  const ids = [...error.message.matchAll(/External error id#(\d+)/g)].map((m) => Number(m[1]));
  const causes = ids
    .map((id) => registry.consumeError(id)?.error)
    .filter((cause): cause is Error => cause instanceof Error);
  if (causes.length === 0) return error;
  const explained = new Error(
    `${error.message.trimEnd()}\nCaused by: ${causes.map((c) => c.message).join('\nCaused by: ')}`,
    { cause: causes[0] },
  );
  Object.assign(explained, { code: (error as Error & { code?: unknown }).code });
  return explained;
}

export interface SchemaEngineOptions {
  /** The database the engine works on, through the app's own driver adapter. */
  databaseUrl: string;
  /** The Prisma schema for that database's provider; only needed by commands that read a schema. */
  schema?: SchemaFile;
  /** Receives the engine's JSON log lines (default: dropped). */
  onLog?: (line: string) => void;
}

/**
 * Runs `fn` with a schema engine bound to the app's driver adapter for `databaseUrl`, then frees the
 * engine and closes every connection it opened, whatever happens.
 */
export async function withSchemaEngine<T>(
  options: SchemaEngineOptions,
  fn: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const { SchemaEngine } = await loadSchemaEngineWasm();
  const factory = new MigrationAdapterFactory(options.databaseUrl);
  const bound = bindMigrationAwareSqlAdapterFactory(factory);
  const onLog = options.onLog ?? (() => {});
  let engine: SchemaEngine | undefined;
  enginesInUse++;
  try {
    engine = await SchemaEngine.new(
      { datamodels: options.schema ? [[options.schema.path, options.schema.content]] : undefined },
      (line: string) => onLog(line),
      bound,
    );
    return await fn(engine);
  } catch (error) {
    throw explainEngineError(error, bound.errorRegistry);
  } finally {
    engine?.free();
    enginesInUse--;
    if (enginesInUse === 0) clearEngineTimers();
    await factory.disposeAll();
  }
}
