import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import path from 'node:path';

/**
 * What a module imports, read from its text (compiled JavaScript in dist/, or TypeScript in src/): the
 * specifiers of `import … from`, `export … from`, `import '…'`, `import('…')` and `require('…')`. A
 * type-only import or re-export (`import type`, `export type`) is erased by the compiler: it is left out.
 */
export function importSpecifiers(text: string): string[] {
  const specifiers: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s+(?!type\s)[^'";]*?\sfrom\s*['"]([^'"]+)['"]/gm,
    /^\s*import\s*['"]([^'"]+)['"]/gm,
    /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of text.matchAll(pattern)) specifiers.push(match[1]!);
  return specifiers;
}

/** The package a bare specifier names: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

const builtins = new Set(builtinModules);

export function isBuiltin(specifier: string): boolean {
  return specifier.startsWith('node:') || builtins.has(specifier) || builtins.has(packageOf(specifier));
}

/** Every file under `dir` whose name ends with one of `extensions`, leaving out the folders `skip` names. */
export function filesUnder(
  dir: string,
  extensions: readonly string[],
  skip: (folder: string) => boolean = () => false,
): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return skip(full) ? [] : filesUnder(full, extensions, skip);
    return extensions.some((e) => entry.name.endsWith(e)) ? [full] : [];
  });
}

/**
 * The imports of the modules under `root` that production cannot honour, as `module -> specifier`: a
 * package that is not among `dependencies` (after `npm prune --omit=dev` only those are there), or a
 * relative import that leaves `root` (tools/, test/, scripts/ are not shipped).
 */
export function strayImports(
  root: string,
  files: readonly string[],
  dependencies: readonly string[],
): string[] {
  const allowed = new Set(dependencies);
  const strays: string[] = [];
  for (const file of files) {
    for (const specifier of importSpecifiers(readFileSync(file, 'utf8'))) {
      const stray = specifier.startsWith('.')
        ? path.relative(root, path.resolve(path.dirname(file), specifier)).startsWith('..')
        : !isBuiltin(specifier) && !allowed.has(packageOf(specifier));
      if (stray) strays.push(`${path.relative(root, file)} -> ${specifier}`);
    }
  }
  return strays.sort();
}
