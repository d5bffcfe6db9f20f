import { describe, expect, it } from 'vitest';
import { createLookupLimiter } from '../../src/proxy/rate-limit.js';

describe('createLookupLimiter', () => {
  it('allows a burst per client, then asks to wait until a lookup is refilled', () => {
    let now = 0;
    const limiter = createLookupLimiter(
      { perClient: { burst: 3, perMinute: 6 }, perShop: { burst: 100, perMinute: 100 } },
      () => now,
    );
    for (let i = 0; i < 3; i++) expect(limiter.take('a.myshopify.com', '1.1.1.1')).toEqual({ ok: true });
    expect(limiter.take('a.myshopify.com', '1.1.1.1')).toEqual({ ok: false, retryAfterS: 10 });
    // Another client and the same client at another shop are counted apart.
    expect(limiter.take('a.myshopify.com', '2.2.2.2')).toEqual({ ok: true });
    expect(limiter.take('b.myshopify.com', '1.1.1.1')).toEqual({ ok: true });
    now += 10_000;
    expect(limiter.take('a.myshopify.com', '1.1.1.1')).toEqual({ ok: true });
    expect(limiter.take('a.myshopify.com', '1.1.1.1').ok).toBe(false);
  });

  it('limits a shop across all its clients, and a refused lookup spends nothing', () => {
    let now = 0;
    const limiter = createLookupLimiter(
      { perClient: { burst: 5, perMinute: 60 }, perShop: { burst: 4, perMinute: 60 } },
      () => now,
    );
    for (let i = 0; i < 4; i++) expect(limiter.take('s.myshopify.com', `10.0.0.${i}`).ok).toBe(true);
    expect(limiter.take('s.myshopify.com', '10.0.0.9')).toEqual({ ok: false, retryAfterS: 1 });
    now += 1_000;
    expect(limiter.take('s.myshopify.com', '10.0.0.9').ok).toBe(true);
  });
});
