import { describe, expect, it } from 'vitest';
import { describeError, newErrorId } from '../../src/errors/error-log.js';

describe('describeError', () => {
  it('keeps the name, the codes and the first line of an ORM error: not its source excerpt nor arguments', () => {
    const error = Object.assign(
      new Error(
        [
          '',
          'Invalid `prisma.trackingLine.findFirst()` invocation in',
          '/work/main/src/shipments/queries/shopper-lookups.ts:79:3',
          '→ 79 return prisma.trackingLine.findFirst({ where: { trackingNumber: "1Z\u0000secret" } })',
          'invalid byte sequence for encoding "UTF8": 0x00',
        ].join('\n'),
      ),
      { name: 'PrismaClientKnownRequestError', code: 'P2010', meta: { code: '22021', message: 'x' } },
    );
    expect(describeError(error)).toEqual({
      name: 'PrismaClientKnownRequestError',
      code: 'P2010',
      databaseCode: '22021',
      message: 'Invalid `prisma.trackingLine.findFirst()` invocation in',
    });
  });

  it('writes a path in the first line as <source> and cuts it short', () => {
    expect(describeError(new Error('cannot read /srv/app/dist/jobs/worker.js:12:3 now')).message).toBe(
      'cannot read <source> now',
    );
    const long = describeError(new Error('x'.repeat(500)), 50).message;
    expect(long).toHaveLength(50);
    expect(long.endsWith('…')).toBe(true);
    expect(describeError('a string')).toEqual({ name: 'string', message: 'non-error thrown' });
  });

  it('ids are random hex', () => {
    const ids = new Set(Array.from({ length: 100 }, newErrorId));
    expect(ids.size).toBe(100);
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{16}$/);
  });
});
