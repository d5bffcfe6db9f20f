import { describe, expect, it } from 'vitest';
import { safeReason } from '../../src/errors/safe-reason.js';

describe('safeReason', () => {
  it('keeps the cause of a Prisma error and drops its source path and code excerpt', () => {
    const error = Object.assign(
      new Error(
        [
          '',
          'Invalid `tx.trackingLine.create()` invocation in',
          '/work/main/src/trackers/desired-state.ts:137:7',
          '',
          '  134   active,',
          '  135 });',
          '  136 ',
          '→ 137 await tx.trackingLine.create(',
          'invalid byte sequence for encoding "UTF8": 0x00',
        ].join('\n'),
      ),
      { code: 'P2010' },
    );
    const reason = safeReason(error);
    expect(reason).toBe('database error P2010: invalid byte sequence for encoding "UTF8": 0x00');
  });

  it('never shows a path or a stack frame', () => {
    const error = new Error('cannot open /srv/app/dist/jobs/worker.js:12:3 for reading');
    expect(safeReason(error)).toBe('cannot open <source> for reading');
    expect(safeReason(new Error('boom\n    at run (/srv/app/src/x.ts:1:2)'))).toBe('boom');
  });

  it('is one bounded line for anything thrown', () => {
    expect(safeReason('x'.repeat(1_000))).toHaveLength(300);
    expect(safeReason(undefined)).toBe('undefined');
    expect(safeReason(new Error(''))).toBe('unexpected error');
    expect(safeReason(new Error('a\nb'))).toBe('a');
  });
});
