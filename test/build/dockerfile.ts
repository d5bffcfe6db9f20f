import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROJECT_ROOT } from '../../src/db/paths.js';

/**
 * Just enough of a Dockerfile reader for the repository's own Dockerfile: instructions grouped by stage,
 * line continuations joined, comments dropped. The production-build test runs the build stage's npm
 * commands and the runtime stage's CMD exactly as written here, so the two cannot drift apart.
 */

export interface Instruction {
  /** Upper-case keyword: FROM, RUN, COPY, ENV, CMD, … */
  keyword: string;
  /** Everything after the keyword, continuations joined with single spaces. */
  args: string;
}

export interface Stage {
  /** The `AS <name>` of its FROM (or its index as text when unnamed). */
  name: string;
  /** The image of its FROM. */
  image: string;
  instructions: Instruction[];
}

export const DOCKERFILE_PATH = path.join(PROJECT_ROOT, 'Dockerfile');
export const DOCKERIGNORE_PATH = path.join(PROJECT_ROOT, '.dockerignore');

export function parseDockerfile(text: string): Stage[] {
  const logical: string[] = [];
  let pending = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (pending === '' && (line === '' || line.startsWith('#'))) continue;
    if (pending !== '' && line.startsWith('#')) continue; // comments inside a continued instruction
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1).trim()} `;
      continue;
    }
    logical.push((pending + line).trim());
    pending = '';
  }
  if (pending.trim() !== '') logical.push(pending.trim());

  const stages: Stage[] = [];
  for (const line of logical) {
    const match = /^(\S+)\s*(.*)$/.exec(line);
    if (!match) continue;
    const keyword = (match[1] ?? '').toUpperCase();
    const args = match[2] ?? '';
    if (keyword === 'FROM') {
      const from = /^(?:--\S+\s+)*(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!from) throw new Error(`Dockerfile: cannot read FROM ${args}`);
      stages.push({ name: from[2] ?? String(stages.length), image: from[1] ?? '', instructions: [] });
      continue;
    }
    const stage = stages.at(-1);
    if (!stage) throw new Error(`Dockerfile: ${keyword} before the first FROM`);
    stage.instructions.push({ keyword, args });
  }
  return stages;
}

export function readDockerfile(): Stage[] {
  return parseDockerfile(readFileSync(DOCKERFILE_PATH, 'utf8'));
}

/** The shell command of a RUN, without its flags (`--mount=…`, `--network=…`). */
export function runCommand(instruction: Instruction): string {
  return instruction.args.replace(/^(?:--\S+\s+)*/, '').trim();
}

/** An exec-form (`["a", "b"]`) or shell-form instruction argument as an argument list. */
export function execForm(args: string): string[] {
  if (args.trim().startsWith('[')) return JSON.parse(args) as string[];
  return ['/bin/sh', '-c', args];
}

export interface ProductionSteps {
  /** The build stage's npm commands, in order (its other RUNs install the compiler toolchain). */
  build: string[];
  /** The runtime stage's CMD. */
  start: string[];
}

/** What the Dockerfile does to a checkout: the build stage's npm commands, then the runtime stage's CMD. */
export function productionSteps(stages: Stage[] = readDockerfile()): ProductionSteps {
  const build = stages.find((s) => s.name === 'build');
  const runtime = stages.at(-1);
  if (!build || !runtime || runtime === build)
    throw new Error('Dockerfile: expected a build and a runtime stage');
  const cmd = runtime.instructions.filter((i) => i.keyword === 'CMD').at(-1);
  if (!cmd) throw new Error('Dockerfile: the runtime stage has no CMD');
  return {
    build: build.instructions
      .filter((i) => i.keyword === 'RUN')
      .map(runCommand)
      .filter((command) => /^npm\s/.test(command)),
    start: execForm(cmd.args),
  };
}
