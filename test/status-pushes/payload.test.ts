import { describe, expect, it } from 'vitest';
import { parsePush } from '../../src/status-pushes/payload.js';

/** A push's body as text the database can store: the number refused, free text cleaned. */
describe('parsePush and text the database cannot store', () => {
  it('refuses a tracking number with a NUL or a lone surrogate, naming the field (never another number)', () => {
    for (const number of ['1Z\u0000999', '1Z999\ud800']) {
      for (const body of [{ tracking_number: number }, { status: 'ok', data: { tracking_number: number } }]) {
        const push = parsePush(JSON.stringify(body));
        expect(push).toMatchObject({ ok: false, reason: 'not_a_shipment' });
        expect(push.ok ? '' : push.message).toMatch(/tracking_number .*NUL/);
      }
    }
  });

  it('keeps a push whose free text has them, cleaned as every read is', () => {
    const push = parsePush(
      JSON.stringify({
        tracking_number: '1Z999',
        events: [{ message: 'Arr\u0000ived \ud800', datetime: '2026-01-02 03:04:05' }],
      }),
    );
    expect(push.ok).toBe(true);
    if (push.ok) expect(push.shipment.events[0]?.message).toBe('Arrived \ufffd');
  });
});
