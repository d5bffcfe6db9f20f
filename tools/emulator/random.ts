/** Small deterministic randomness: a seeded PRNG and a string hash, so runs are reproducible. */

/** Default seed used when none is given. */
export const defaultSeed = 20_240_601;

/** A PRNG returning floats in [0, 1). */
export type Random = () => number;

/** mulberry32: fast, 32-bit state, good enough for simulation (not for cryptography). */
export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** FNV-1a 32-bit hash of a string: a stable seed derived from text. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
