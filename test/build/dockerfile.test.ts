import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../../src/db/paths.js';
import {
  DOCKERIGNORE_PATH,
  execForm,
  parseDockerfile,
  productionSteps,
  readDockerfile,
  runCommand,
  type Stage,
} from './dockerfile.js';

/**
 * The Dockerfile's shape, checked without a Docker engine. What it builds is proved by
 * production-build.test.ts, which runs the same npm commands (read from the Dockerfile) and its CMD.
 */

const packageJson = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')) as {
  scripts: Record<string, string>;
};

const stages = readDockerfile();
const build = stages.find((s) => s.name === 'build') as Stage;
const runtime = stages.at(-1) as Stage;

const args = (stage: Stage, keyword: string) =>
  stage.instructions.filter((i) => i.keyword === keyword).map((i) => i.args);

describe('Dockerfile', () => {
  it('builds with npm ci, npm run build and a prune of everything the runtime does not need, in that order', () => {
    expect(build).toBeDefined();
    expect(productionSteps(stages).build).toEqual([
      'npm ci',
      'npm run build',
      'npm prune --omit=dev --omit=optional',
    ]);
  });

  it('compiles better-sqlite3 in the build stage: python3, make and g++', () => {
    const apt = build.instructions
      .filter((i) => i.keyword === 'RUN')
      .map(runCommand)
      .find((c) => c.includes('apt-get install'));
    expect(apt).toBeDefined();
    for (const tool of ['python3', 'make', 'g++']) expect(apt?.split(/\s+/)).toContain(tool);
  });

  it('runs node dist/app/main.js, the same command as npm start', () => {
    expect(productionSteps(stages).start).toEqual(['node', 'dist/app/main.js']);
    expect(packageJson.scripts.start).toBe('node dist/app/main.js');
  });

  it('runs on node:24-bookworm-slim as the non-root node user, in production mode', () => {
    expect(build.image).toBe('node:24-bookworm-slim');
    expect(runtime.image).toBe('node:24-bookworm-slim');
    expect(runtime.name).not.toBe('build');
    expect(args(runtime, 'USER')).toEqual(['node']);
    expect(args(runtime, 'ENV').join(' ')).toMatch(/\bNODE_ENV=production\b/);
  });

  it('copies only package.json, the pruned node_modules, dist and prisma from the build stage', () => {
    const copied = args(runtime, 'COPY').map((a) => {
      const match = /^--from=build\s+(\S+)\s+(\S+)$/.exec(a);
      expect(match, `COPY ${a}`).not.toBeNull();
      return match?.[1];
    });
    expect(copied.sort()).toEqual(['/app/dist', '/app/node_modules', '/app/package.json', '/app/prisma']);
  });

  it('exposes the port it listens on and checks /healthz with node (no curl in the slim image)', () => {
    const port = /\bPORT=(\d+)\b/.exec(args(runtime, 'ENV').join(' '))?.[1];
    expect(port).toBeDefined();
    expect(args(runtime, 'EXPOSE')).toEqual([port]);
    const [healthcheck] = args(runtime, 'HEALTHCHECK');
    const command = execForm(healthcheck?.replace(/^(?:--\S+\s+)*CMD\s+/, '') ?? '');
    expect(command[0]).toBe('node');
    expect(command.join(' ')).toContain('/healthz');
    expect(command.join(' ')).toContain('fetch(');
  });

  it('keeps local installs, builds, databases and secrets out of the build context', () => {
    const ignored = readFileSync(DOCKERIGNORE_PATH, 'utf8')
      .split('\n')
      .map((l) => l.trim());
    for (const entry of ['.git', 'node_modules', 'dist', 'src/generated', 'data', '*.db', '.env', '.env.*']) {
      expect(ignored).toContain(entry);
    }
    expect(ignored).toContain('!.env.example');
  });
});

describe('parseDockerfile', () => {
  it('joins continuations, drops comments and groups instructions by stage', () => {
    const parsed = parseDockerfile(
      [
        '# syntax=docker/dockerfile:1',
        'FROM node:24 AS build',
        'RUN apt-get update \\',
        '  # a comment inside',
        ' && apt-get install -y make',
        'RUN --mount=type=cache,target=/root/.npm npm ci',
        'FROM node:24-slim',
        'CMD ["node", "main.js"]',
      ].join('\n'),
    );
    expect(parsed.map((s) => [s.name, s.image])).toEqual([
      ['build', 'node:24'],
      ['1', 'node:24-slim'],
    ]);
    expect(parsed[0]?.instructions.map(runCommand)).toEqual([
      'apt-get update && apt-get install -y make',
      'npm ci',
    ]);
    expect(productionSteps(parsed)).toEqual({ build: ['npm ci'], start: ['node', 'main.js'] });
  });
});
