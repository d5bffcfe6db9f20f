import type { NotifyWork } from '../../src/notifications/notify-work.js';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Shop } from '../../src/generated/sqlite/client.js';
import { instantPolicy, postInstantProblems } from '../../src/notifications/instant-problems.js';
import { createSlackPoster } from '../../src/notifications/slack-poster.js';
import type { ProblemKind } from '../../src/shipments/problem-words.js';
import { createShopRepository, type ShopRepository } from '../../src/shops/shop-repository.js';
import { captureLogger, type Captured } from '../helpers/capture-logger.js';
import { useOtherConnection, useTestDatabase } from '../helpers/database.js';
import { createShop, createTracker, testKeyring } from '../helpers/factories.js';
import { type SlackReceiver, startSlackReceiver } from './slack-receiver.js';

/**
 * New problems posted to Slack as they open, against a local stand-in for Slack's incoming webhooks: one
 * message per shop and pass however many opened, the cursor moved on only after a 2xx, a 500 tried again
 * at the next pass, and the webhook URL never in a log line.
 */

const db = useTestDatabase({ reset: true });
const second = useOtherConnection(db);
let slack: SlackReceiver;
let shops: ShopRepository;
let logs: Captured;
const appApiKey = 'test-app-key';
const poster = createSlackPoster({ allowLoopbackHttp: true, timeoutMs: 1_000 });

beforeAll(async () => {
  slack = await startSlackReceiver();
  shops = createShopRepository(db.prisma, testKeyring());
});
afterAll(async () => {
  await slack?.close();
});
beforeEach(async () => {
  slack.posts.length = 0;
  slack.status = 200;
  slack.delayMs = 0;
  logs = captureLogger('debug');
});

const at = (iso: string) => new Date(iso);
const start = at('2026-11-25T08:00:00Z');

function deps(now: Date, over: Partial<NotifyWork> = {}): NotifyWork {
  return {
    prisma: db.prisma,
    logger: logs.logger,
    mailer: null,
    slack: poster,
    shops,
    now: () => now,
    appApiKey,
    ...over,
  };
}

async function instantShop(over: Partial<Shop> = {}): Promise<Shop> {
  const shop = await createShop(db.prisma);
  await shops.saveSlackWebhook(shop.id, slack.url);
  return db.prisma.shop.update({
    where: { id: shop.id },
    data: { slackInstantProblems: true, slackPostedThrough: start, ...over },
  });
}

async function problem(
  shopId: string,
  kind: ProblemKind,
  openedAt: Date,
  options: { number?: string; detail?: string; closedAt?: Date } = {},
): Promise<void> {
  const tracker = await createTracker(db.prisma, shopId, {
    ...(options.number ? { trackingNumber: options.number } : {}),
  });
  await db.prisma.shipmentProblem.create({
    data: {
      shopId,
      trackerId: tracker.id,
      kind,
      since: openedAt,
      openedAt,
      detail: options.detail ?? 'Held at the depot',
      closedAt: options.closedAt ?? null,
      closedReason: options.closedAt ? 'moved' : null,
    },
  });
}

const cursor = async (shopId: string) =>
  (await db.prisma.shop.findUniqueOrThrow({ where: { id: shopId } })).slackPostedThrough?.toISOString();

describe('postInstantProblems', () => {
  it('posts one message for many new problems, lists 20 and counts the rest, then moves the cursor', async () => {
    const shop = await instantShop({ domain: 'busy-store.myshopify.com' });
    for (let i = 0; i < 25; i++)
      await problem(shop.id, i % 2 ? 'stalled' : 'on_hold', new Date(start.getTime() + (i + 1) * 60_000), {
        number: `1ZBUSY${String(i).padStart(4, '0')}`,
      });
    // Closed already, or from before the cursor: not posted.
    await problem(shop.id, 'returning', at('2026-11-25T08:30:00Z'), { closedAt: at('2026-11-25T08:40:00Z') });
    await problem(shop.id, 'returning', at('2026-11-25T07:00:00Z'));

    const now = at('2026-11-25T09:00:00Z');
    expect(await postInstantProblems(deps(now), 50)).toEqual({
      shops: 1,
      posted: 1,
      problems: 25,
      failed: 0,
    });
    expect(slack.posts).toHaveLength(1);
    const text = slack.posts[0]!.text;
    expect(text.split('\n')[0]).toBe('*25 new shipment problems at busy-store*');
    expect(text).toContain(
      `• <https://admin.shopify.com/store/busy-store/apps/${appApiKey}/attention?kind=on_hold|On hold> · 1ZBUSY0000: Held at the depot`,
    );
    expect(text).toContain('1ZBUSY0019');
    expect(text).not.toContain('1ZBUSY0020');
    expect(text).toContain('…and 5 more.');
    expect(text).not.toContain('Returning');
    expect(await cursor(shop.id)).toBe(new Date(now.getTime() - instantPolicy.settleMs).toISOString());

    // Nothing new: nothing posted.
    expect(await postInstantProblems(deps(at('2026-11-25T09:05:00Z')), 50)).toMatchObject({ posted: 0 });
    expect(slack.posts).toHaveLength(1);
  });

  it('a 500 leaves the cursor; the next pass posts the same problems (and newer) once Slack takes them', async () => {
    const shop = await instantShop();
    await problem(shop.id, 'failed_attempt', at('2026-11-25T08:10:00Z'), { number: '1ZFIRST0001' });
    slack.status = 500;
    expect(await postInstantProblems(deps(at('2026-11-25T08:20:00Z')), 50)).toEqual({
      shops: 1,
      posted: 0,
      problems: 0,
      failed: 1,
    });
    // One attempt, no retry within the pass.
    expect(slack.posts).toHaveLength(1);
    expect(await cursor(shop.id)).toBe(start.toISOString());
    expect(logs.records.find((r) => r.msg === 'new problems not posted to Slack: next pass')).toMatchObject({
      reason: 'Slack answered 500 (no_service)',
    });

    slack.status = 200;
    await problem(shop.id, 'stalled', at('2026-11-25T08:25:00Z'), { number: '1ZSECOND002' });
    expect(await postInstantProblems(deps(at('2026-11-25T08:30:00Z')), 50)).toMatchObject({
      posted: 1,
      problems: 2,
    });
    expect(slack.posts).toHaveLength(2);
    expect(slack.posts[1]!.text).toContain('1ZFIRST0001');
    expect(slack.posts[1]!.text).toContain('1ZSECOND002');
    expect(await cursor(shop.id)).toBe('2026-11-25T08:29:30.000Z');
    for (const line of logs.lines) expect(line).not.toContain(slack.secret);
  });

  it('a Slack that does not answer in time counts as a failure: the cursor stays', async () => {
    const shop = await instantShop();
    await problem(shop.id, 'on_hold', at('2026-11-25T08:10:00Z'));
    slack.delayMs = 3_000;
    expect(await postInstantProblems(deps(at('2026-11-25T08:20:00Z')), 50)).toMatchObject({ failed: 1 });
    expect(await cursor(shop.id)).toBe(start.toISOString());
    expect(logs.records.at(-1)).toMatchObject({ reason: 'Slack did not answer within 1 s' });
  });

  it('escapes what comes from data, so a problem’s detail cannot mention the channel or make a link', async () => {
    const shop = await instantShop();
    await problem(shop.id, 'carrier_exception', at('2026-11-25T08:10:00Z'), {
      detail: 'Call <!channel> & see <https://evil.example|here>',
    });
    await postInstantProblems(deps(at('2026-11-25T08:20:00Z')), 50);
    const text = slack.posts[0]!.text;
    expect(text).toContain('Call &lt;!channel&gt; &amp; see &lt;https://evil.example|here&gt;');
    expect(text).not.toContain('<!channel>');
  });

  it('only shops that asked, with a URL, installed; one switched on without a cursor starts from now', async () => {
    const asked = await instantShop();
    const notAsked = await instantShop({ slackInstantProblems: false });
    const noUrl = await instantShop();
    await shops.saveSlackWebhook(noUrl.id, null);
    const gone = await instantShop({ uninstalledAt: at('2026-11-20T00:00:00Z') });
    const fresh = await instantShop({ slackPostedThrough: null });
    for (const shop of [asked, notAsked, noUrl, gone, fresh])
      await problem(shop.id, 'stalled', at('2026-11-25T08:10:00Z'));
    const now = at('2026-11-25T08:20:00Z');
    expect(await postInstantProblems(deps(now), 50)).toMatchObject({ shops: 1, posted: 1 });
    expect(await cursor(fresh.id)).toBe(new Date(now.getTime() - instantPolicy.settleMs).toISOString());
    expect(await cursor(notAsked.id)).toBe(start.toISOString());
  });

  it('two workers passing at once post each problem once', async () => {
    const shop = await instantShop();
    await problem(shop.id, 'stalled', at('2026-11-25T08:10:00Z'));
    slack.delayMs = 200;
    const now = at('2026-11-25T08:20:00Z');
    const [a, b] = await Promise.all([
      postInstantProblems(deps(now), 50),
      postInstantProblems(deps(now, { prisma: second.prisma }), 50),
    ]);
    expect(a.posted + b.posted).toBe(1);
    expect(slack.posts).toHaveLength(1);
    expect(await cursor(shop.id)).toBe('2026-11-25T08:19:30.000Z');
  });
});
