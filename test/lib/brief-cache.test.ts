import { describe, expect, it } from 'vitest';
import { type BriefCacheOptions, createBriefCache } from '../../src/lib/brief-cache.js';

/** A promise settled by hand. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

function setup(options: Partial<BriefCacheOptions> = {}) {
  let time = 1_000_000;
  const cache = createBriefCache<string>({
    keepMs: 60_000,
    waitMs: 200,
    maxEntries: 100,
    now: () => time,
    ...options,
  });
  return { cache, advance: (ms: number) => (time += ms) };
}

describe('createBriefCache: get', () => {
  it('shares one read among requests at the same moment and keeps its answer for keepMs', async () => {
    const { cache, advance } = setup();
    let reads = 0;
    const read = async () => `answer ${++reads}`;
    const [a, b] = await Promise.all([cache.get('k', read), cache.get('k', read)]);
    expect([a, b]).toEqual(['answer 1', 'answer 1']);
    advance(59_999);
    expect(await cache.get('k', read)).toBe('answer 1');
    advance(1);
    expect(await cache.get('k', read)).toBe('answer 2');
    expect(reads).toBe(2);
  });

  it('keeps no failure: null and a throw are asked again next time', async () => {
    const { cache } = setup();
    let reads = 0;
    expect(await cache.get('k', async () => (reads++, null))).toBeNull();
    expect(
      await cache.get('k', async () => {
        reads++;
        throw new Error('store down');
      }),
    ).toBeNull();
    expect(await cache.get('k', async () => (reads++, 'fine'))).toBe('fine');
    expect(await cache.get('k', async () => (reads++, 'again'))).toBe('fine');
    expect(reads).toBe(3);
    expect(cache.size).toBe(1);
  });

  it('waits at most waitMs; an answer that comes later is kept for the next request', async () => {
    const { cache } = setup({ waitMs: 30 });
    const slow = deferred<string | null>();
    let reads = 0;
    const read = () => (reads++, slow.promise);
    const started = Date.now();
    expect(await cache.get('k', read)).toBeNull();
    expect(Date.now() - started).toBeLessThan(500);
    slow.resolve('late');
    await slow.promise;
    expect(await cache.get('k', read)).toBe('late');
    expect(reads).toBe(1);
  });

  it('does not use an answer kept from before notBefore', async () => {
    const { cache, advance } = setup();
    await cache.get('k', async () => 'before');
    advance(10);
    const redactedAt = new Date(1_000_005);
    expect(await cache.get('k', async () => 'after', redactedAt)).toBe('after');
    expect(await cache.get('k', async () => 'later', redactedAt)).toBe('after');
  });

  it('keeps at most maxEntries answers, dropping the oldest', async () => {
    const { cache } = setup({ maxEntries: 2 });
    for (const key of ['a', 'b', 'c']) await cache.get(key, async () => `${key}1`);
    expect(cache.size).toBe(2);
    expect(await cache.get('a', async () => 'a2')).toBe('a2');
    expect(await cache.get('c', async () => 'c2')).toBe('c1');
  });

  it('drops the least recently used: an answer asked again stays over one not asked since', async () => {
    const { cache } = setup({ maxEntries: 2 });
    await cache.get('a', async () => 'a1');
    await cache.get('b', async () => 'b1');
    expect(await cache.get('a', async () => 'a2')).toBe('a1');
    await cache.get('c', async () => 'c1');
    expect(await cache.get('a', async () => 'a3')).toBe('a1');
    expect(await cache.get('b', async () => 'b2')).toBe('b2');
  });
});

describe('createBriefCache: getMany', () => {
  it('reads only the keys not kept, in batches of batchSize at once', async () => {
    const { cache } = setup();
    const asked: string[][] = [];
    const read = async (keys: string[]) => (asked.push(keys), new Map(keys.map((k) => [k, `v${k}`])));
    expect(await cache.getMany(['1', '2'], read)).toEqual(
      new Map([
        ['1', 'v1'],
        ['2', 'v2'],
      ]),
    );
    const answers = await cache.getMany(['2', '3', '4', '5', '3'], read, { batchSize: 2 });
    expect([...answers!.keys()]).toEqual(['2', '3', '4', '5']);
    expect(asked).toEqual([['1', '2'], ['3', '4'], ['5']]);
  });

  it('shares a batch being read with a request for one of its keys', async () => {
    const { cache } = setup();
    const pending = deferred<Map<string, string>>();
    let reads = 0;
    const many = cache.getMany(['a', 'b'], () => (reads++, pending.promise));
    const one = cache.get('b', async () => (reads++, 'other'));
    pending.resolve(
      new Map([
        ['a', 'A'],
        ['b', 'B'],
      ]),
    );
    expect(await one).toBe('B');
    expect((await many)?.get('a')).toBe('A');
    expect(reads).toBe(1);
  });

  it('is null when any key failed: a key left out of the answer, a failed batch; those are not kept', async () => {
    const { cache } = setup();
    const partial = async (keys: string[]) => new Map(keys.filter((k) => k !== 'b').map((k) => [k, k]));
    expect(await cache.getMany(['a', 'b'], partial)).toBeNull();
    expect(cache.size).toBe(1);
    expect(await cache.getMany(['b'], async () => null)).toBeNull();
    expect(
      await cache.getMany(['b'], async () => {
        throw new Error('down');
      }),
    ).toBeNull();
    expect(await cache.getMany(['a', 'b'], async (keys) => new Map(keys.map((k) => [k, 'new'])))).toEqual(
      new Map([
        ['a', 'a'],
        ['b', 'new'],
      ]),
    );
  });

  it('waits at most waitMs for all of them together', async () => {
    const { cache } = setup({ waitMs: 30 });
    await cache.getMany(['a'], async (keys) => new Map(keys.map((k) => [k, k])));
    const never = new Promise<Map<string, string>>(() => {});
    const started = Date.now();
    expect(await cache.getMany(['a', 'b'], () => never)).toBeNull();
    expect(Date.now() - started).toBeLessThan(500);
  });

  it('asks nothing for no keys', async () => {
    const { cache } = setup();
    let reads = 0;
    expect(await cache.getMany([], async () => (reads++, new Map()))).toEqual(new Map());
    expect(reads).toBe(0);
  });
});
