import type { NotifyWork } from '../../src/notifications/notify-work.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { DatabaseClient } from '../../src/db/client.js';
import type { Shop } from '../../src/generated/sqlite/client.js';
import { silentLogger } from '../../src/logger.js';
import { createSmtpMailer, type Mailer } from '../../src/notifications/mailer.js';
import { digestPolicy, sendDueDigests } from '../../src/notifications/send-digests.js';
import { createSlackPoster } from '../../src/notifications/slack-poster.js';
import type { ProblemKind } from '../../src/shipments/problem-words.js';
import { createShopRepository, type ShopRepository } from '../../src/shops/shop-repository.js';
import { type MailCatcher, startMailCatcher } from '../../tools/dev/mail-catcher.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { useOtherConnection, useTestDatabase } from '../helpers/database.js';
import { createShop, createTracker, testKeyring } from '../helpers/factories.js';
import { type SlackReceiver, startSlackReceiver } from './slack-receiver.js';

/**
 * The daily digest against a real SMTP server on 127.0.0.1 (the dev mail catcher, smtp-server) and a local
 * stand-in for Slack: who gets it, what it says, that nothing goes on a day with nothing new, that two
 * workers at once send it once, that the hour is the shop's own in its time zone, and that a failed send
 * is recorded and tried again the same day a bounded number of times.
 */

const db = useTestDatabase({ reset: true });
const second = useOtherConnection(db);
let mail: MailCatcher;
let slack: SlackReceiver;
let shops: ShopRepository;
let mailer: Mailer;
/** A mailer whose server is gone: every send fails as a server would. */
let deadMailer: Mailer;

const appApiKey = 'test-app-key';
const poster = createSlackPoster({ allowLoopbackHttp: true, timeoutMs: 2_000 });

beforeAll(async () => {
  mail = await startMailCatcher();
  slack = await startSlackReceiver();
  shops = createShopRepository(db.prisma, testKeyring());
  mailer = createSmtpMailer({
    smtpUrl: mail.smtpUrl,
    from: 'Tracksync <digest@tracksync.test>',
    timeoutMs: 3_000,
  });
  const gone = await startMailCatcher();
  const goneUrl = gone.smtpUrl;
  await gone.close();
  deadMailer = createSmtpMailer({ smtpUrl: goneUrl, from: 'digest@tracksync.test', timeoutMs: 1_000 });
});
afterAll(async () => {
  mailer?.close();
  deadMailer?.close();
  await slack?.close();
  await mail?.close();
});
beforeEach(async () => {
  mail.clear();
  slack.posts.length = 0;
  slack.status = 200;
});

const at = (iso: string) => new Date(iso);

function deps(now: Date, over: Partial<NotifyWork> = {}): NotifyWork {
  return {
    prisma: db.prisma,
    logger: silentLogger,
    mailer,
    slack: poster,
    shops,
    now: () => now,
    appApiKey,
    ...over,
  };
}

async function digestShop(over: Partial<Shop> = {}): Promise<Shop> {
  const shop = await createShop(db.prisma);
  return db.prisma.shop.update({
    where: { id: shop.id },
    data: {
      contactEmail: 'owner@example.com',
      digestRecipients: JSON.stringify(['ops@example.com', 'OWNER@example.com', 'warehouse@example.org']),
      ...over,
    },
  });
}

/** A problem of the shop, opened at `openedAt` (and closed, when given). */
async function problem(
  shopId: string,
  kind: ProblemKind,
  openedAt: Date,
  closed?: { at: Date; reason: string },
): Promise<void> {
  const tracker = await createTracker(db.prisma, shopId, { remote: 'present', syncState: 'synced' });
  await db.prisma.shipmentProblem.create({
    data: {
      shopId,
      trackerId: tracker.id,
      kind,
      since: new Date(openedAt.getTime() - 3_600_000),
      openedAt,
      detail: 'No news from the carrier',
      closedAt: closed?.at ?? null,
      closedReason: closed?.reason ?? null,
    },
  });
}

const runs = (shopId: string, prisma: DatabaseClient = db.prisma) =>
  prisma.digestRun.findMany({ where: { shopId }, orderBy: [{ day: 'asc' }, { channel: 'asc' }] });
const nextAt = async (shopId: string) =>
  (await db.prisma.shop.findUniqueOrThrow({ where: { id: shopId } })).nextDigestAt?.toISOString();

describe('the daily digest by e-mail', () => {
  it('goes to the contact e-mail and the further recipients, counting new problems by kind, with links into the admin', async () => {
    const now = at('2026-11-25T08:00:00Z');
    const shop = await digestShop({ domain: 'acme-goods.myshopify.com', nextDigestAt: now });
    await problem(shop.id, 'stalled', at('2026-11-24T12:00:00Z'));
    await problem(shop.id, 'stalled', at('2026-11-25T07:00:00Z'));
    await problem(shop.id, 'on_hold', at('2026-11-25T06:00:00Z'));
    // Before the window (a first digest covers a day), and closed ones: not new.
    await problem(shop.id, 'carrier_exception', at('2026-11-23T12:00:00Z'));
    await problem(shop.id, 'failed_attempt', at('2026-11-20T12:00:00Z'), {
      at: at('2026-11-25T05:00:00Z'),
      reason: 'delivered',
    });
    await problem(shop.id, 'returning', at('2026-11-20T12:00:00Z'), {
      at: at('2026-11-25T05:00:00Z'),
      reason: 'handled',
    });

    expect(await sendDueDigests(deps(now), 50)).toEqual({
      shops: 1,
      scheduled: 0,
      sent: 1,
      skipped: 0,
      failed: 0,
      deferred: 0,
    });

    const [message] = await mail.waitFor(1);
    expect(mail.messages()).toHaveLength(1);
    // The contact e-mail first, each address once whatever its case.
    expect(message!.envelope.to).toEqual(['owner@example.com', 'ops@example.com', 'warehouse@example.org']);
    expect(message!.envelope.from).toBe('digest@tracksync.test');
    expect(message!.subject).toBe('acme-goods: 3 new shipment problems since the last digest (2026-11-25)');

    const link = (kind: string) =>
      `https://admin.shopify.com/store/acme-goods/apps/${appApiKey}/attention?kind=${kind}`;
    const text = message!.text!;
    expect(text).toContain('3 new shipment problems since the last digest:');
    expect(text).toContain(`  2  Stalled: ${link('stalled')}`);
    expect(text).toContain(`  1  On hold: ${link('on_hold')}`);
    expect(text).not.toContain('Carrier exception');
    expect(text).toContain('1 problem closed by itself since the last digest');
    expect(text).toContain(
      `Every open problem: https://admin.shopify.com/store/acme-goods/apps/${appApiKey}/attention`,
    );

    const html = message!.html!;
    expect(html).toContain(`<a href="${link('stalled')}">Stalled</a>`);
    expect(html).toContain(`<a href="${link('on_hold')}">On hold</a>`);
    expect(html).toMatch(/<strong>2<\/strong>[\s\S]*Stalled[\s\S]*<strong>1<\/strong>[\s\S]*On hold/);

    expect(await runs(shop.id)).toMatchObject([
      { day: '2026-11-25', channel: 'email', state: 'sent', opened: 3, closed: 1, error: null },
    ]);
    // The next one: tomorrow at the shop's hour.
    expect(await nextAt(shop.id)).toBe('2026-11-26T08:00:00.000Z');
  });

  it('counts parcels, not problem rows: one parcel whose problem began 50 times is one new problem', async () => {
    const now = at('2026-11-25T08:00:00Z');
    const shop = await digestShop({ domain: 'flapping-parcel.myshopify.com', nextDigestAt: now });
    // One parcel: fifty stalled episodes (written before episodes continued) and an on-hold one.
    const flapping = await createTracker(db.prisma, shop.id, { remote: 'present', syncState: 'synced' });
    await db.prisma.shipmentProblem.createMany({
      data: [
        ...Array.from({ length: 50 }, (_, i) => ({
          shopId: shop.id,
          trackerId: flapping.id,
          kind: 'stalled',
          since: new Date(at('2026-11-10T08:00:00Z').getTime() + i * 60_000),
          openedAt: new Date(at('2026-11-24T12:00:00Z').getTime() + i * 1_000),
          closedAt: i < 49 ? new Date(at('2026-11-24T12:00:00Z').getTime() + i * 1_000 + 500) : null,
          closedReason: i < 49 ? 'delivered' : null,
        })),
        {
          shopId: shop.id,
          trackerId: flapping.id,
          kind: 'on_hold',
          since: at('2026-11-24T13:00:00Z'),
          openedAt: at('2026-11-24T13:00:00Z'),
        },
      ],
    });
    // Another parcel, stalled once.
    await problem(shop.id, 'stalled', at('2026-11-25T07:00:00Z'));

    expect(await sendDueDigests(deps(now), 50)).toMatchObject({ sent: 1 });
    const [message] = await mail.waitFor(1);
    expect(message!.subject).toBe(
      'flapping-parcel: 2 new shipment problems since the last digest (2026-11-25)',
    );
    expect(message!.text).toContain('  2  Stalled:');
    expect(message!.text).toContain('  1  On hold:');
    expect(await runs(shop.id)).toMatchObject([{ channel: 'email', state: 'sent', opened: 2 }]);
  });

  it('sends nothing on a day with nothing new (recorded as skipped); the next day counts from there', async () => {
    const day1 = at('2026-11-25T08:00:00Z');
    const shop = await digestShop({ nextDigestAt: day1 });
    await problem(shop.id, 'stalled', at('2026-11-20T12:00:00Z'), {
      at: at('2026-11-25T01:00:00Z'),
      reason: 'moved',
    });
    expect(await sendDueDigests(deps(day1), 50)).toMatchObject({ shops: 1, sent: 0, skipped: 1 });
    expect(mail.messages()).toEqual([]);
    expect(await runs(shop.id)).toMatchObject([
      { day: '2026-11-25', state: 'skipped', opened: 0, closed: 1 },
    ]);
    expect(await nextAt(shop.id)).toBe('2026-11-26T08:00:00.000Z');

    // The next day: only what opened since the skipped digest.
    await problem(shop.id, 'tracking_problem', at('2026-11-25T20:00:00Z'));
    const day2 = at('2026-11-26T08:00:00Z');
    expect(await sendDueDigests(deps(day2), 50)).toMatchObject({ sent: 1 });
    const [message] = await mail.waitFor(1);
    expect(message!.subject).toContain('1 new shipment problem since the last digest (2026-11-26)');
    expect(message!.text).toContain('Tracking problem');
    expect(message!.text).not.toContain('Stalled');
  });

  it('is sent once a day with two workers passing at once on two connections, and not again that day', async () => {
    const now = at('2026-11-25T08:00:00Z');
    const shop = await digestShop({ nextDigestAt: now });
    await problem(shop.id, 'stalled', at('2026-11-25T07:00:00Z'));
    const [a, b] = await Promise.all([
      sendDueDigests(deps(now), 50),
      sendDueDigests(deps(now, { prisma: second.prisma }), 50),
    ]);
    expect(a.sent + b.sent).toBe(1);
    expect(a.shops + b.shops).toBe(1);
    expect(mail.messages()).toHaveLength(1);
    expect(await runs(shop.id)).toHaveLength(1);

    // Due again the same day (the merchant picked a later hour): the day's digest went already.
    await problem(shop.id, 'on_hold', at('2026-11-25T09:00:00Z'));
    await db.prisma.shop.update({
      where: { id: shop.id },
      data: { nextDigestAt: at('2026-11-25T10:00:00Z') },
    });
    const later = await Promise.all([
      sendDueDigests(deps(at('2026-11-25T10:00:00Z')), 50),
      sendDueDigests(deps(at('2026-11-25T10:00:00Z'), { prisma: second.prisma }), 50),
    ]);
    expect(later[0].sent + later[1].sent).toBe(0);
    expect(mail.messages()).toHaveLength(1);
    expect(await runs(shop.id)).toMatchObject([{ day: '2026-11-25', state: 'sent', opened: 1 }]);
    expect(await nextAt(shop.id)).toBe('2026-11-26T08:00:00.000Z');
  });

  it('comes at the shop’s hour in the shop’s time zone, and is dated by its day there', async () => {
    // 8 o'clock in New York (UTC-5 in December) is 13:00 UTC; in Tokyo (UTC+9), 23:00 UTC the day before.
    const newYork = await digestShop({ timezone: 'America/New_York', digestHour: 8, nextDigestAt: null });
    const tokyo = await digestShop({ timezone: 'Asia/Tokyo', digestHour: 8, nextDigestAt: null });
    await problem(newYork.id, 'stalled', at('2026-12-01T10:00:00Z'));
    await problem(tokyo.id, 'on_hold', at('2026-12-01T10:00:00Z'));

    // Midnight in New York: both get their time (the backfill), nothing is due yet.
    expect(await sendDueDigests(deps(at('2026-12-01T05:00:00Z')), 50)).toMatchObject({
      scheduled: 2,
      shops: 0,
    });
    expect(await nextAt(newYork.id)).toBe('2026-12-01T13:00:00.000Z');
    expect(await nextAt(tokyo.id)).toBe('2026-12-01T23:00:00.000Z');

    expect(await sendDueDigests(deps(at('2026-12-01T12:59:59Z')), 50)).toMatchObject({ shops: 0, sent: 0 });
    expect(mail.messages()).toEqual([]);

    expect(await sendDueDigests(deps(at('2026-12-01T13:00:00Z')), 50)).toMatchObject({ shops: 1, sent: 1 });
    expect((await mail.waitFor(1))[0]!.subject).toContain('(2026-12-01)');
    expect(await runs(newYork.id)).toMatchObject([{ day: '2026-12-01', state: 'sent' }]);
    expect(await nextAt(newYork.id)).toBe('2026-12-02T13:00:00.000Z');

    expect(await sendDueDigests(deps(at('2026-12-01T23:00:00Z')), 50)).toMatchObject({ shops: 1, sent: 1 });
    expect((await mail.waitFor(2))[1]!.subject).toContain('(2026-12-02)');
    expect(await runs(tokyo.id)).toMatchObject([{ day: '2026-12-02', state: 'sent' }]);
  });

  it('a failed send is recorded as one line and tried again later the same day, three attempts at most', async () => {
    const eight = at('2026-11-25T08:00:00Z');
    const shop = await digestShop({ nextDigestAt: eight });
    await problem(shop.id, 'stalled', at('2026-11-25T07:00:00Z'));
    const logs = captureLogger('debug');

    expect(await sendDueDigests(deps(eight, { mailer: deadMailer, logger: logs.logger }), 50)).toMatchObject({
      failed: 1,
      sent: 0,
    });
    let [run] = await runs(shop.id);
    expect(run).toMatchObject({ state: 'failed', channel: 'email' });
    expect(run!.error).toMatch(/^attempt 1 of 3: .*ECONNREFUSED/);
    expect(run!.error).not.toMatch(/\n|\s{2}at\s/);
    expect(await nextAt(shop.id)).toBe('2026-11-25T08:10:00.000Z');
    expect(logs.records.some((r) => r.msg === 'digest not sent: will try again')).toBe(true);

    // Not before its retry time.
    expect(await sendDueDigests(deps(at('2026-11-25T08:05:00Z')), 50)).toMatchObject({ shops: 0 });

    // Second attempt fails too; the third (an hour later) gets through: the same run, sent.
    await sendDueDigests(deps(at('2026-11-25T08:10:00Z'), { mailer: deadMailer }), 50);
    [run] = await runs(shop.id);
    expect(run!.error).toMatch(/^attempt 2 of 3: /);
    expect(await nextAt(shop.id)).toBe('2026-11-25T09:10:00.000Z');
    expect(await sendDueDigests(deps(at('2026-11-25T09:10:00Z')), 50)).toMatchObject({ sent: 1 });
    expect(await mail.waitFor(1)).toHaveLength(1);
    expect(await runs(shop.id)).toMatchObject([{ id: run!.id, state: 'sent', error: null, opened: 1 }]);
    expect(await nextAt(shop.id)).toBe('2026-11-26T08:00:00.000Z');
  });

  it('after the third failure the day is given up; the next digest covers it', async () => {
    const shop = await digestShop({ nextDigestAt: at('2026-11-25T08:00:00Z') });
    await problem(shop.id, 'stalled', at('2026-11-25T07:00:00Z'));
    for (const time of ['2026-11-25T08:00:00Z', '2026-11-25T08:10:00Z', '2026-11-25T09:10:00Z'])
      await sendDueDigests(deps(at(time), { mailer: deadMailer }), 50);
    const [run] = await runs(shop.id);
    expect(run!.error).toMatch(/^attempt 3 of 3: /);
    expect(await nextAt(shop.id)).toBe('2026-11-26T08:00:00.000Z');

    // Made due again the same day: no fourth attempt.
    await db.prisma.shop.update({
      where: { id: shop.id },
      data: { nextDigestAt: at('2026-11-25T12:00:00Z') },
    });
    await sendDueDigests(deps(at('2026-11-25T12:00:00Z')), 50);
    expect(mail.messages()).toEqual([]);

    // The next day's digest includes the problem the failed one would have told.
    await sendDueDigests(deps(at('2026-11-26T08:00:00Z')), 50);
    const [message] = await mail.waitFor(1);
    expect(message!.subject).toContain('1 new shipment problem since the last digest (2026-11-26)');
  });

  it('when the SMTP server fails, the pass stops sending e-mail: the other shops wait for a later pass', async () => {
    const now = at('2026-11-25T08:00:00Z');
    const first = await digestShop({ nextDigestAt: now });
    const other = await digestShop({ nextDigestAt: at('2026-11-25T08:00:01Z') });
    await problem(first.id, 'stalled', at('2026-11-25T07:00:00Z'));
    await problem(other.id, 'stalled', at('2026-11-25T07:00:00Z'));
    expect(await sendDueDigests(deps(at('2026-11-25T08:00:01Z'), { mailer: deadMailer }), 50)).toMatchObject({
      shops: 2,
      failed: 1,
      deferred: 1,
    });
    // Nothing was claimed for the shop not tried: it is due again at the first retry.
    expect(await runs(other.id)).toEqual([]);
    expect(await nextAt(other.id)).toBe(
      new Date(at('2026-11-25T08:00:01Z').getTime() + digestPolicy.retryAfterMs[0]).toISOString(),
    );
  });

  it('is not sent when switched off or uninstalled; the next time still moves on', async () => {
    const now = at('2026-11-25T08:00:00Z');
    const off = await digestShop({ digestEnabled: false, nextDigestAt: now });
    const gone = await digestShop({ uninstalledAt: at('2026-11-20T00:00:00Z'), nextDigestAt: now });
    await problem(off.id, 'stalled', at('2026-11-25T07:00:00Z'));
    await problem(gone.id, 'stalled', at('2026-11-25T07:00:00Z'));
    expect(await sendDueDigests(deps(now), 50)).toMatchObject({ shops: 2, sent: 0, skipped: 0 });
    expect(mail.messages()).toEqual([]);
    expect(await runs(off.id)).toEqual([]);
    expect(await nextAt(off.id)).toBe('2026-11-26T08:00:00.000Z');
    expect(await nextAt(gone.id)).toBe('2026-11-26T08:00:00.000Z');
  });

  it('a pass reads the shops due, up to its limit, and gives a bounded batch of unscheduled shops their time', async () => {
    const now = at('2026-11-25T08:00:00Z');
    for (let i = 0; i < 5; i++) await digestShop({ nextDigestAt: null });
    for (let i = 0; i < 3; i++) await digestShop({ nextDigestAt: at('2026-11-26T08:00:00Z') });
    const due = [];
    for (let i = 0; i < 3; i++) due.push(await digestShop({ nextDigestAt: at(`2026-11-25T07:5${i}:00Z`) }));

    const first = await sendDueDigests(deps(now), 2);
    expect(first).toMatchObject({ scheduled: 2, shops: 2 });
    const second = await sendDueDigests(deps(now), 2);
    expect(second).toMatchObject({ scheduled: 2, shops: 1 });
    const third = await sendDueDigests(deps(now), 2);
    expect(third).toMatchObject({ scheduled: 1, shops: 0 });
    expect(await db.prisma.shop.count({ where: { nextDigestAt: null } })).toBe(0);
    // The ones scheduled at 08:00 sharp were just past: their next is tomorrow's.
    expect(await db.prisma.shop.count({ where: { nextDigestAt: { lte: now } } })).toBe(0);
    for (const shop of due) expect(await nextAt(shop.id)).toBe('2026-11-26T08:00:00.000Z');
  });
});

describe('the daily digest on Slack', () => {
  it('goes to the shop’s webhook with the same counts and links, each channel once; without SMTP only Slack', async () => {
    const now = at('2026-11-25T08:00:00Z');
    const shop = await digestShop({ domain: 'slack-shop.myshopify.com', nextDigestAt: now });
    await shops.saveSlackWebhook(shop.id, slack.url);
    await problem(shop.id, 'stalled', at('2026-11-25T07:00:00Z'));
    await problem(shop.id, 'stalled', at('2026-11-25T06:00:00Z'));
    await problem(shop.id, 'waiting_pickup', at('2026-11-25T05:00:00Z'));
    const logs = captureLogger('debug');

    expect(await sendDueDigests(deps(now, { mailer: null, logger: logs.logger }), 50)).toMatchObject({
      sent: 1,
    });
    expect(mail.messages()).toEqual([]);
    expect(slack.posts).toHaveLength(1);
    const text = slack.posts[0]!.text;
    expect(text).toContain(
      '*Shipment problems at slack-shop, 2026-11-25*: 3 new problems since the last digest',
    );
    expect(text).toContain(
      `• <https://admin.shopify.com/store/slack-shop/apps/${appApiKey}/attention?kind=stalled|Stalled>: 2`,
    );
    expect(text).toContain('|Waiting at a pickup point>: 1');
    expect(await runs(shop.id)).toMatchObject([{ channel: 'slack', state: 'sent', opened: 3 }]);

    // With SMTP as well, the e-mail goes once and Slack is not posted twice.
    await db.prisma.shop.update({
      where: { id: shop.id },
      data: { nextDigestAt: at('2026-11-25T09:00:00Z') },
    });
    await sendDueDigests(deps(at('2026-11-25T09:00:00Z')), 50);
    expect(slack.posts).toHaveLength(1);
    expect(await mail.waitFor(1)).toHaveLength(1);
    expect((await runs(shop.id)).map((r) => [r.channel, r.state])).toEqual([
      ['email', 'sent'],
      ['slack', 'sent'],
    ]);
    for (const line of logs.lines) expect(line).not.toContain(slack.secret);
  });

  it('a Slack failure is recorded and retried later the same day, the e-mail unaffected', async () => {
    const now = at('2026-11-25T08:00:00Z');
    const shop = await digestShop({ nextDigestAt: now });
    await shops.saveSlackWebhook(shop.id, slack.url);
    await problem(shop.id, 'on_hold', at('2026-11-25T07:00:00Z'));
    slack.status = 500;
    expect(await sendDueDigests(deps(now), 50)).toMatchObject({ sent: 1, failed: 1 });
    expect(slack.posts).toHaveLength(1);
    const slackRun = (await runs(shop.id)).find((r) => r.channel === 'slack');
    expect(slackRun).toMatchObject({
      state: 'failed',
      error: 'attempt 1 of 3: Slack answered 500 (no_service)',
    });
    expect(slackRun!.error).not.toContain(slack.secret);
    expect(await nextAt(shop.id)).toBe('2026-11-25T08:10:00.000Z');

    slack.status = 200;
    expect(await sendDueDigests(deps(at('2026-11-25T08:10:00Z')), 50)).toMatchObject({ sent: 1, failed: 0 });
    expect(slack.posts).toHaveLength(2);
    expect(mail.messages()).toHaveLength(1);
    expect((await runs(shop.id)).map((r) => [r.channel, r.state])).toEqual([
      ['email', 'sent'],
      ['slack', 'sent'],
    ]);
  });
});
