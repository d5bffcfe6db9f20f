import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PageApiHarness, startPageApi, uniqueName } from './harness.js';

/** POST/GET /api/backfill: validation, one running job per shop, and only the session's shop. */

let api: PageApiHarness;

beforeAll(async () => {
  api = await startPageApi();
});
afterAll(async () => {
  await api?.close();
});

describe('page API: backfill', () => {
  it('refuses days outside 1..365, non-integers and extra fields', async () => {
    const shop = await api.connectedShop(uniqueName('bf-valid'));
    for (const body of [
      {},
      { days: 0 },
      { days: 366 },
      { days: 2.5 },
      { days: '30' },
      { days: 3, shop: 'x' },
    ]) {
      const res = await api.as(shop.domain).post('/backfill', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe('invalid_input');
    }
    expect((await api.as(shop.domain).get('/backfill')).body).toEqual({ job: null });
  });

  it('starts a job for the token’s shop only; another shop sees none and starts its own', async () => {
    const a = await api.connectedShop(uniqueName('bf-a'));
    const b = await api.connectedShop(uniqueName('bf-b'));
    const started = await api.as(a.domain).post('/backfill', { days: 14 });
    expect(started.status).toBe(200);
    expect(started.body.job).toMatchObject({ state: 'running', days: 14, pagesDone: 0, error: null });
    expect(Object.keys(started.body.job).sort()).toEqual(
      [
        'days',
        'error',
        'finishedAt',
        'fulfillmentsSeen',
        'pagesDone',
        'startedAt',
        'state',
        'trackersWanted',
      ].sort(),
    );

    const asA = await api.as(a.domain).get('/backfill');
    expect(asA.body.job).toMatchObject({ days: 14, startedAt: started.body.job.startedAt });
    expect((await api.as(b.domain).get('/backfill')).body).toEqual({ job: null });

    const ofB = await api.as(b.domain).post('/backfill', { days: 3 });
    expect(ofB.body.job).toMatchObject({ days: 3 });
    expect((await api.as(a.domain).get('/backfill')).body.job).toMatchObject({ days: 14 });
    const prisma = api.app.database.prisma;
    expect(await prisma.backfillJob.count({ where: { shopId: a.id } })).toBe(1);
    expect(await prisma.backfillJob.count({ where: { shopId: b.id } })).toBe(1);
    api.expectNoKeyLeaked();
  });

  it('a store without an offline session: the job fails with the reason, and starting again resumes it', async () => {
    const shop = await api.connectedShop(uniqueName('bf-nosession'));
    // Its offline session lost (the platform's token revoked, or never stored).
    await api.app.database.prisma.session.deleteMany({ where: { shop: shop.domain } });
    const first = await api.as(shop.domain).post('/backfill', { days: 5 });
    expect(first.status).toBe(200);
    let job: { state: string; error: string | null } | null = null;
    for (let i = 0; i < 200 && job?.state !== 'failed'; i++) {
      job = (await api.as(shop.domain).get('/backfill')).body.job;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(job).toMatchObject({ state: 'failed', error: expect.stringMatching(/offline session/) });
    const again = await api.as(shop.domain).post('/backfill', { days: 5 });
    expect(again.body.job).toMatchObject({
      state: 'running',
      error: null,
      startedAt: first.body.job.startedAt,
    });
  });
});
