import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * The README is what a newcomer reads first: short, its links and its configuration table true. The rest
 * lives in docs/, as pages a user reads: no issue or stop numbers, no link to a file that is not there.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

const docPages = readdirSync(path.join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => `docs/${name}`);
const pages = ['README.md', ...docPages];

/** The text outside fenced code blocks. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```/gm, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  return new Set([...prose(markdown).matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => anchorOf(heading!)));
}

/** Every relative link of a page: `[text](target)`, outside code. */
function relativeLinks(markdown: string): string[] {
  const withoutInlineCode = prose(markdown).replace(/`[^`\n]*`/g, '');
  return [...withoutInlineCode.matchAll(/\]\(([^)\s]+)\)/g)]
    .map(([, target]) => target!)
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

describe('the README and docs/', () => {
  it('the README has at most 250 lines', () => {
    const lines = read('README.md').split('\n');
    if (lines.at(-1) === '') lines.pop();
    expect(lines.length).toBeLessThanOrEqual(250);
  });

  it('name no issue or stop numbers', () => {
    const numbered = /\b(?:issues?|stops?)\s+#?\d+\b|(?<![\w&/])#\d{1,3}(?![\d.\w])/gi;
    for (const page of pages) {
      // An order name such as #1001 or a fulfilment such as #1002.1 is the store's, not an issue.
      expect(
        [...read(page).matchAll(numbered)].map(([found]) => found),
        page,
      ).toEqual([]);
    }
  });

  it('link only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const page of pages) {
      for (const link of relativeLinks(read(page))) {
        const [file, anchor] = link.split('#') as [string, string | undefined];
        const target =
          file === '' ? path.join(root, page) : path.resolve(path.dirname(path.join(root, page)), file);
        if (!existsSync(target)) {
          broken.push(`${page}: ${link} (no such file)`);
          continue;
        }
        if (anchor && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) {
          broken.push(`${page}: ${link} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('the README links every page of docs/', () => {
    const linked = new Set(relativeLinks(read('README.md')).map((link) => link.split('#')[0]));
    expect(docPages.filter((page) => !linked.has(page))).toEqual([]);
  });

  it("the README's configuration table names every variable src/config.ts reads, and .env.example's", () => {
    const readme = read('README.md');
    const section = readme.split('\n## Configuration')[1]?.split('\n## ')[0] ?? '';
    const named = new Set([...section.matchAll(/`([A-Z][A-Z0-9_]*)(?:=[^`]*)?`/g)].map(([, name]) => name!));
    const prefixes = [...section.matchAll(/`([A-Z][A-Z0-9_]*_)\*`/g)].map(([, prefix]) => prefix!);
    const config = read('src/config.ts');
    const fromConfig = [
      ...[...config.matchAll(/^\s+([A-Z][A-Z0-9_]+): (?:z\.|logLevel|trustProxySetting)/gm)].map(
        ([, n]) => n!,
      ),
      ...[...config.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)].map(([, n]) => n!),
    ];
    expect(fromConfig).toContain('SHOPIFY_API_SECRET');
    expect(fromConfig).toContain('DEV_ENV_FILE');
    const fromExample = [...read('.env.example').matchAll(/^#? ?([A-Z][A-Z0-9_]+)=/gm)].map(([, n]) => n!);
    expect(fromExample).toContain('EMULATOR_PORT');
    const missing = [...new Set([...fromConfig, ...fromExample])].filter(
      (name) => !named.has(name) && !prefixes.some((prefix) => name.startsWith(prefix)),
    );
    expect(missing).toEqual([]);
  });
});
