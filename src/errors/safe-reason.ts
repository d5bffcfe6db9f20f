/**
 * An unexpected error as one short line fit to store on a row and show on the page: never a stack, a
 * source path or a code excerpt. Prisma's messages carry all three ("Invalid `tx.x.create()` invocation
 * in /path/file.ts:137:7", the numbered source lines, an arrow at the call) before the actual cause on
 * their last line; node's errors may carry paths too.
 */
export function safeReason(error: unknown, maxLength = 300): string {
  const code =
    typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : null;
  const message = error instanceof Error ? error.message : String(error);
  const lines = message
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !isSourceExcerpt(line) && line.replace(sourcePath, '') !== '');
  // Prisma puts its own "where" first and the cause last; anything else leads with the cause.
  const cause = (prismaPreamble.test(message) ? lines.at(-1) : lines[0]) ?? 'unexpected error';
  const clean = cause.replace(sourcePath, '<source>').replace(/\s+/g, ' ');
  const text = code && /^P\d{4}$/.test(code) ? `database error ${code}: ${clean}` : clean;
  return text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
}

/** `text` with every source or compiled file path (and its line and column) written `<source>`. */
export function withoutSourcePaths(text: string): string {
  return text.replace(sourcePath, '<source>');
}

/** An absolute or relative path to a source or compiled file, with or without line and column. */
const sourcePath = /(?:file:\/\/)?(?:[A-Za-z]:)?[\w.@~-]*(?:[/\\][\w.@~-]+)+\.(?:[cm]?[jt]sx?)(?::\d+){0,2}/g;

const prismaPreamble = /^\s*Invalid `.+` invocation/m;

/** Numbered source lines (`137 await tx…`, `→ 137 …`), stack frames and Prisma's invocation header. */
function isSourceExcerpt(line: string): boolean {
  return /^(?:→\s*)?\d+\s/.test(line) || /^at\s/.test(line) || /^Invalid `.+` invocation in$/.test(line);
}
