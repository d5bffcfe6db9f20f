/**
 * `npx tsx bench/profile-top.ts <dir> [--top N]`: the top frames of the V8 CPU profiles a bench run wrote
 * (`BENCH_CPU_PROF_DIR=<dir> npm run bench -- --quick`: one folder per process), by self time, and the
 * same time by where its code lives (the app, Prisma, the SQLite driver, undici, Express, zod, Node).
 * Idle time is left out: shares are of the time the process was running JavaScript or native code.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '15' } },
});
const dir = positionals[0];
if (!dir) throw new Error('usage: npx tsx bench/profile-top.ts <dir> [--top N]');
const top = Number(values.top);

function profilesIn(folder: string): string[] {
  return readdirSync(folder).flatMap((entry) => {
    const full = path.join(folder, entry);
    if (statSync(full).isDirectory()) return profilesIn(full);
    return entry.endsWith('.cpuprofile') ? [full] : [];
  });
}

function placeOf(url: string, name: string): string {
  if (name === '(garbage collector)') return 'garbage collection';
  if (name === '(program)') return 'V8 and native (program)';
  if (url.includes('@prisma/') || url.includes('/generated/')) return 'Prisma';
  if (url.includes('better-sqlite3')) return 'SQLite driver';
  if (url.includes('/pg/') || url.includes('pg-protocol')) return 'PostgreSQL driver';
  if (url.includes('undici')) return 'undici (fetch)';
  if (url.includes('/express/') || url.includes('/router/') || url.includes('body-parser')) return 'Express';
  if (url.includes('/zod/')) return 'zod';
  if (url.includes('/pino')) return 'pino';
  if (url.includes('/src/')) return 'the app (src/)';
  if (url.startsWith('node:') || url === '') return 'Node';
  return 'other modules';
}

for (const file of profilesIn(dir)) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  let busy = 0;
  const frames = new Map<string, number>();
  const places = new Map<string, number>();
  for (const [id, micros] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    if (functionName === '(idle)') continue;
    busy += micros;
    const where = url
      ? `${url.replace(/^.*\/node_modules\//, '').replace(/^file:\/\/.*?\/(src|tools|bench)\//, '$1/')}:${lineNumber + 1}`
      : '';
    const key = `${functionName || '(anonymous)'} ${where}`.trim();
    frames.set(key, (frames.get(key) ?? 0) + micros);
    const place = placeOf(url, functionName);
    places.set(place, (places.get(place) ?? 0) + micros);
  }
  if (busy === 0) continue;
  const pct = (micros: number) => `${((micros / busy) * 100).toFixed(1).padStart(5)} %`;
  console.log(`\n${path.relative(dir, file)}: ${(busy / 1e6).toFixed(2)} s busy`);
  for (const [place, micros] of [...places].sort((a, b) => b[1] - a[1]))
    console.log(`  ${pct(micros)}  ${place}`);
  console.log('  top frames (self time):');
  for (const [frame, micros] of [...frames].sort((a, b) => b[1] - a[1]).slice(0, top))
    console.log(`  ${pct(micros)}  ${frame}`);
}
