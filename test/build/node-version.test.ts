import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/db/paths.js';
import { readDockerfile } from './dockerfile.js';

/**
 * One Node across the repository: .nvmrc and .node-version (what nvm, fnm, volta and CI hosts read), the
 * Dockerfile's images, the version scripts/use-node-24.sh installs for CI, and package.json's engines,
 * which admit only maintained LTS lines (even majors from 22: Node 20 reached its end of life on
 * 2026-04-30, odd majors are never LTS).
 */

const read = (file: string) => readFileSync(path.join(PROJECT_ROOT, file), 'utf8');
const packageJson = JSON.parse(read('package.json')) as {
  engines: { node: string };
  devDependencies: Record<string, string>;
};

const nvmrc = read('.nvmrc').trim();
const major = Number(nvmrc);

/** engines.node as its `^major.minor` alternatives (the only form it uses). */
function engineLines(range: string): { major: number; minor: number }[] {
  return range.split('||').map((part) => {
    const match = /^\^(\d+)(?:\.(\d+))?$/.exec(part.trim());
    if (!match) throw new Error(`engines.node: expected ^major[.minor] alternatives, got "${part.trim()}"`);
    return { major: Number(match[1]), minor: Number(match[2] ?? 0) };
  });
}

const lines = engineLines(packageJson.engines.node);

describe('the Node the project runs on', () => {
  it('is one major in .nvmrc and .node-version, an LTS line', () => {
    expect(nvmrc).toMatch(/^\d+$/);
    expect(read('.node-version').trim()).toBe(nvmrc);
    expect(major % 2).toBe(0);
    expect(major).toBeGreaterThanOrEqual(24);
  });

  it('is admitted by engines, which names maintained LTS lines only', () => {
    expect(lines.map((l) => l.major)).toContain(major);
    for (const line of lines) {
      expect(line.major % 2, `Node ${line.major} is not an LTS line`).toBe(0);
      expect(line.major, `Node ${line.major} is past its end of life`).toBeGreaterThanOrEqual(22);
    }
  });

  it('is the Node of both Dockerfile stages', () => {
    const stages = readDockerfile();
    expect(stages.length).toBeGreaterThanOrEqual(2);
    for (const stage of stages) expect(stage.image).toBe(`node:${major}-bookworm-slim`);
  });

  it('is the Node that scripts/use-node-24.sh pins, and CI sources that script before installing', () => {
    const pinned = /^TRACKSYNC_NODE_VERSION=(\d+)\.(\d+)\.(\d+)$/m.exec(read('scripts/use-node-24.sh'));
    expect(pinned).not.toBeNull();
    expect(Number(pinned?.[1])).toBe(major);
    const ci = read('.ci/run').split('\n');
    const sourced = ci.indexOf('source scripts/use-node-24.sh');
    expect(sourced).toBeGreaterThanOrEqual(0);
    expect(sourced).toBeLessThan(ci.indexOf('npm ci'));
  });

  it("types the oldest admitted Node's API (@types/node of the lowest engines line)", () => {
    const lowest = Math.min(...lines.map((l) => l.major));
    expect(packageJson.devDependencies['@types/node']).toMatch(new RegExp(`^${lowest}\\.`));
  });
});
