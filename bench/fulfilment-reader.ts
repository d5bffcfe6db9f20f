/**
 * The fulfilment fast reader against the zod schema alone (issue 32: a hand-written reader stays only if a
 * figure justifies it): `npx tsx bench/fulfilment-reader.ts [--ms 200] [--rounds 25]`.
 *
 * Over the project's sample fulfilment bodies (samples/shopify/fulfillments-*.json, as
 * `npm run dev:send` delivers them), parsed once, it times what the hot paths do with a body:
 * - `read`: the worker's read, parseFulfillmentPayload (hand-read, zod where not plainly well-formed)
 *   against fulfillmentPayload.safeParse;
 * - `check`: intake's verdict, isPlainFulfillment against fulfillmentPayload.safeParse(...).success.
 * Each is run for `--ms` per round, the four interleaved round by round (short rounds, so a machine's load
 * drifting weighs on all four alike); the median round's ops/s is printed as
 * `name: value` lines, with the ratio hand ÷ zod.
 */
import path from 'node:path';
import { parseArgs } from 'node:util';
import { performance } from 'node:perf_hooks';
import { sampleNames, samplesDir, readSample } from '../tools/dev/samples.js';
import {
  fulfillmentPayload,
  isPlainFulfillment,
  parseFulfillmentPayload,
} from '../src/trackers/fulfillment-payload.js';

const { values } = parseArgs({
  options: { ms: { type: 'string', default: '200' }, rounds: { type: 'string', default: '25' } },
});
const roundMs = Number(values.ms);
const rounds = Number(values.rounds);

const names = sampleNames().filter((name) => name.startsWith('fulfillments-'));
if (names.length === 0) throw new Error(`No sample fulfilment bodies in ${samplesDir}`);
const bodies: unknown[] = names.map((name) => readSample(name));

// Both must take every sample alike, or the comparison is of different work.
for (const [i, body] of bodies.entries()) {
  const hand = parseFulfillmentPayload(body);
  const zod = fulfillmentPayload.safeParse(body);
  if (!hand.success || !zod.success || JSON.stringify(hand.data) !== JSON.stringify(zod.data))
    throw new Error(`${path.basename(names[i]!)}: the hand reader and the schema disagree`);
  if (!isPlainFulfillment(body))
    throw new Error(`${names[i]}: not read by hand (the bench would time zod twice)`);
}

let sink = 0;
/** Ops/s of `fn` over the bodies, for about `ms`. */
function opsPerSecond(fn: (body: unknown) => unknown, ms: number): number {
  let ops = 0;
  const started = performance.now();
  let elapsed = 0;
  while (elapsed < ms) {
    for (let i = 0; i < 1000; i++) if (fn(bodies[ops++ % bodies.length])) sink++;
    elapsed = performance.now() - started;
  }
  return (ops / elapsed) * 1000;
}

const cases = {
  read_hand: (body: unknown) => parseFulfillmentPayload(body).success,
  read_zod: (body: unknown) => fulfillmentPayload.safeParse(body).success,
  check_hand: (body: unknown) => isPlainFulfillment(body),
  check_zod: (body: unknown) => fulfillmentPayload.safeParse(body).success,
} as const;
type Case = keyof typeof cases;

// Warm-up: every case compiled and its caches full before timing.
for (const fn of Object.values(cases)) opsPerSecond(fn, Math.min(300, roundMs));
const seen: Record<Case, number[]> = { read_hand: [], read_zod: [], check_hand: [], check_zod: [] };
for (let round = 0; round < rounds; round++)
  for (const [name, fn] of Object.entries(cases) as Array<[Case, (body: unknown) => unknown]>)
    seen[name].push(opsPerSecond(fn, roundMs));
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;

const out = (name: string, value: number | string) => process.stdout.write(`${name}: ${value}\n`);
out('samples', names.join(', '));
for (const name of Object.keys(seen) as Case[]) out(`${name}_ops_per_s`, Math.round(median(seen[name])));
out('read_hand_over_zod', (median(seen.read_hand) / median(seen.read_zod)).toFixed(2));
out('check_hand_over_zod', (median(seen.check_hand) / median(seen.check_zod)).toFixed(2));
out('node', process.version);
if (sink < 0) out('sink', sink);
