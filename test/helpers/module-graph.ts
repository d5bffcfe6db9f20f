import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** src/'s modules and their relative imports (type imports included), for the architecture tests. */
export const srcDir = path.resolve(import.meta.dirname, '../../src');

/** Every module under `dir`, the generated Prisma clients left out. */
export function modules(dir: string = srcDir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'generated' ? [] : modules(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The modules of src/ a module imports or re-exports from (absolute paths, generated clients left out). */
export function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^(?:import|export)[^;]*?from '(\.[^']+)'/gm)]
    .map((m) => path.resolve(path.dirname(file), m[1]!.replace(/\.js$/, '.ts')))
    .filter((target) => !target.includes(`${path.sep}generated${path.sep}`));
}

/** The module graph of src/: each module and what it imports. */
export function moduleGraph(): Map<string, string[]> {
  return new Map(modules().map((file) => [file, importsOf(file)]));
}
