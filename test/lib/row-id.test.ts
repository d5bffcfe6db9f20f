import { describe, expect, it } from 'vitest';
import { newRowId, rowIdTime } from '../../src/lib/row-id.js';

const v7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('row ids (UUID version 7)', () => {
  it('are UUIDs of version 7 and variant 10 carrying the time they were made', () => {
    const before = Date.now();
    const id = newRowId();
    const after = Date.now();
    expect(id).toMatch(v7);
    const at = rowIdTime(id)!;
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after + 1);
    // A given time (later than any before: ids only grow, see below) is the id's time.
    expect(rowIdTime(newRowId(Date.UTC(2031, 0, 2, 3, 4, 5, 6)))).toBe(Date.UTC(2031, 0, 2, 3, 4, 5, 6));
  });

  it('only ever grow within a process: many in one millisecond, and when the clock steps back', () => {
    const at = Date.UTC(2032, 5, 1);
    const ids = [
      ...Array.from({ length: 10_000 }, () => newRowId(at)),
      // The clock steps back a second: still after every id before.
      ...Array.from({ length: 100 }, () => newRowId(at - 1000)),
      ...Array.from({ length: 100 }, (_, i) => newRowId(at + 5000 + i)),
    ];
    for (let i = 1; i < ids.length; i++) expect(ids[i]! > ids[i - 1]!).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    ids.forEach((id) => expect(id).toMatch(v7));
    // 4 096 a millisecond at most: past that the time part runs ahead of the clock, by a few ms here.
    expect(rowIdTime(ids[9_999]!)! - at).toBeGreaterThan(0);
    expect(rowIdTime(ids[9_999]!)! - at).toBeLessThan(10);
    // A later clock reading takes over again.
    expect(rowIdTime(ids.at(-1)!)).toBe(at + 5099);
  });

  it('are random past the time and the counter: no two alike among 20 000', () => {
    const at = Date.UTC(2033, 0, 1);
    const tails = new Set<string>();
    for (let i = 0; i < 20_000; i++) tails.add(newRowId(at + i * 10).slice(19));
    // 62 random bits each: a repeat among 20 000 would mean the randomness is broken.
    expect(tails.size).toBe(20_000);
  });

  it('reads no time from text that is not a version-7 id', () => {
    expect(rowIdTime('6f1c2b7e-0d6a-4a51-9c3e-2f3a1d0b9e77')).toBeNull();
    expect(rowIdTime('not an id')).toBeNull();
  });
});
