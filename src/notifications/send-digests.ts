import type { NotifyWork } from './notify-work.js';
import { type DatabaseClient, isUniqueViolation } from '../db/client.js';
import type { DigestRun } from '../generated/sqlite/client.js';
import { safeReason } from '../errors/safe-reason.js';
import { knownTimeZone } from '../lib/business-days.js';
import { nowOf } from '../lib/clock.js';
import { localDay } from '../lib/local-time.js';
import { type ProblemKind, problemKinds } from '../shipments/problem-words.js';
import { type DigestContent, digestEmail, digestSlackText, openedTotal } from './digest-message.js';
import { nextDigestTime, scheduleMissingDigests } from './digest-schedule.js';
import {
  type DigestShop,
  digestRunOf,
  dueDigestShops,
  firstRunBefore,
  insertDigestRun,
  lastDoneRunBefore,
  moveDigestTime,
  problemsClosedFor,
  parcelsWithProblemsOpened,
  retakeFailedRun,
  updateDigestRun,
} from './queries/digests.js';
import { digestRecipients } from './recipients.js';

/**
 * The daily digest pass: for each shop whose digest is due (`Shop.nextDigestAt`, its digest hour where it
 * is), the parcels with problems opened since its last digest, counted by kind (a parcel once however often
 * its trouble began), and how many closed by themselves, sent
 * by e-mail (to the contact e-mail and the further recipients) and to Slack (when a webhook URL is set).
 *
 * - At most one digest per shop, channel and local day, whatever the number of workers: a shop is claimed
 *   by moving its `nextDigestAt` on (a conditional write: one worker wins), and each channel's digest by
 *   inserting its `DigestRun` row (shopId, day, channel) before anything is sent: a second insert fails.
 *   A worker that dies after that insert leaves the row `pending`: that digest is not sent again.
 * - A day with nothing new sends nothing: its run is recorded `skipped`.
 * - A failed send is recorded `failed` with the reason (one safe line, the attempt number first) and
 *   tried again later the same day: `digestPolicy.attempts` attempts in all, `retryAfterMs` apart. A retry
 *   sends what the first attempt would have (the same window); what opened since goes in the next digest.
 *   When the SMTP server itself fails, the pass sends no more e-mail: the other shops' e-mails wait for a
 *   later pass (the same day) rather than each waiting out a timeout.
 * - Each digest covers [the end of the channel's last sent or skipped digest, now - settleMs): the windows
 *   follow one another, so no problem is counted twice or left out (the first covers a day, none more
 *   than a week; one given up leaves its problems to the next).
 */

export interface DigestPassCounts {
  /** Shops whose digest was due and that this pass claimed. */
  shops: number;
  /** Shops given their first digest time (the backfill). */
  scheduled: number;
  sent: number;
  /** Digests with nothing new: recorded, not sent. */
  skipped: number;
  failed: number;
  /** E-mails left for a later pass because the SMTP server had failed earlier in this one. */
  deferred: number;
}

export type DigestChannel = 'email' | 'slack';

export const digestPolicy = {
  /** Attempts per channel and day: the first and two retries. */
  attempts: 3,
  /** How long after the first and the second failure the next attempt comes. */
  retryAfterMs: [10 * 60_000, 60 * 60_000],
  /** A claimed shop is due again after this when its worker died mid-digest (sent runs are not repeated). */
  holdMs: 10 * 60_000,
  /** A digest covers up to this long before now: a problem being written at the time is left for the next. */
  settleMs: 30_000,
  /** What a channel's first digest covers, and the most any digest covers. */
  firstWindowMs: 24 * 3_600_000,
  maxWindowMs: 7 * 24 * 3_600_000,
} as const;

/** The closing reasons of a problem that went away by itself (not handled, not a rule switched off). */
const closedByThemselves = ['moved', 'delivered', 'ended'];

/** What one channel's digest came to in this pass. */
type ChannelOutcome =
  | { kind: 'sent' | 'skipped' | 'none' }
  /** `retryAt`: when to try again (null: that was the last attempt); `serverDown`: stop sending e-mail. */
  | { kind: 'failed'; retryAt: Date | null; serverDown: boolean }
  /** Not tried in this pass (the SMTP server failed for an earlier shop): due again soon. */
  | { kind: 'deferred' };

/**
 * Sends the digests due, up to `limit` shops, after giving up to `limit` shops that have none their first
 * digest time. Returns what it did.
 */
export async function sendDueDigests(deps: NotifyWork, limit: number): Promise<DigestPassCounts> {
  const now = nowOf(deps);
  const counts: DigestPassCounts = { shops: 0, scheduled: 0, sent: 0, skipped: 0, failed: 0, deferred: 0 };
  counts.scheduled = await scheduleMissingDigests(deps.prisma, limit, now);
  const due = await dueDigestShops(deps.prisma, now, limit);
  const pass = { mailDown: false };
  for (const shop of due) {
    const hold = new Date(now.getTime() + digestPolicy.holdMs);
    const claimed = await moveDigestTime(deps.prisma, shop.id, shop.nextDigestAt, hold);
    if (claimed === 0) continue; // another worker has it
    counts.shops += 1;
    let outcomes: ChannelOutcome[] = [];
    try {
      outcomes = await digestShop(deps, shop, now, pass);
    } catch (error) {
      // The shop is due again when its hold ends; a run it inserted stays as it is (never sent twice).
      deps.logger.error({ shop: shop.domain, err: safeReason(error) }, 'digest failed');
      counts.failed += 1;
      continue;
    }
    for (const outcome of outcomes) {
      if (outcome.kind === 'sent') counts.sent += 1;
      else if (outcome.kind === 'skipped') counts.skipped += 1;
      else if (outcome.kind === 'failed') counts.failed += 1;
      else if (outcome.kind === 'deferred') counts.deferred += 1;
    }
    // A settings save meanwhile set the time itself: it stands.
    await moveDigestTime(deps.prisma, shop.id, hold, nextDueAt(shop, now, outcomes));
  }
  return counts;
}

/** The shop's next digest time: a retry later today when a channel wants one, else its next digest hour. */
function nextDueAt(shop: DigestShop, now: Date, outcomes: ChannelOutcome[]): Date {
  const zone = knownTimeZone(shop.timezone);
  const day = localDay(shop.nextDigestAt ?? now, zone);
  const retries = outcomes
    .map((o) => (o.kind === 'failed' ? o.retryAt : o.kind === 'deferred' ? deferredRetry(now) : null))
    .filter((at): at is Date => at !== null && localDay(at, zone) === day)
    .sort((a, b) => a.getTime() - b.getTime());
  return retries[0] ?? nextDigestTime(shop, now);
}

const deferredRetry = (now: Date) => new Date(now.getTime() + digestPolicy.retryAfterMs[0]);

/** One shop's digest on each of its channels. */
async function digestShop(
  deps: NotifyWork,
  shop: DigestShop,
  now: Date,
  pass: { mailDown: boolean },
): Promise<ChannelOutcome[]> {
  if (!shop.digestEnabled || shop.uninstalledAt !== null) return [];
  const day = localDay(shop.nextDigestAt ?? now, knownTimeZone(shop.timezone));
  const outcomes: ChannelOutcome[] = [];

  const recipients = digestRecipients(shop);
  const mailer = deps.mailer;
  if (mailer && recipients.length > 0) {
    if (pass.mailDown) {
      outcomes.push({ kind: 'deferred' });
    } else {
      const outcome = await channelDigest(deps, shop, 'email', day, now, async (content) => {
        const email = digestEmail(content, deps.appApiKey);
        const sent = await mailer.send({ to: recipients, ...email });
        if (sent.ok && sent.rejected > 0)
          deps.logger.warn(
            { shop: shop.domain, accepted: sent.accepted, rejected: sent.rejected },
            'digest e-mail refused for some recipients',
          );
        return sent.ok ? { ok: true } : { ok: false, reason: sent.reason, serverDown: sent.serverDown };
      });
      if (outcome.kind === 'failed' && outcome.serverDown) pass.mailDown = true;
      outcomes.push(outcome);
    }
  }

  if (shop.slackWebhookCiphertext !== null) {
    outcomes.push(
      await channelDigest(deps, shop, 'slack', day, now, async (content) => {
        let url: string | null;
        try {
          url = await deps.shops.slackWebhook(shop);
        } catch (error) {
          return { ok: false, reason: safeReason(error, 200), serverDown: false };
        }
        if (url === null) return { ok: false, reason: 'no Slack webhook URL is set', serverDown: false };
        const posted = await deps.slack.post(url, digestSlackText(content, deps.appApiKey));
        return posted.ok ? { ok: true } : { ok: false, reason: posted.reason, serverDown: false };
      }),
    );
  }
  return outcomes;
}

type SendOutcome = { ok: true } | { ok: false; reason: string; serverDown: boolean };

/**
 * One channel's digest for the day: claimed by inserting its run (or, after a failure with attempts left,
 * by taking the failed run back), then sent, then recorded.
 */
async function channelDigest(
  deps: NotifyWork,
  shop: DigestShop,
  channel: DigestChannel,
  day: string,
  now: Date,
  send: (content: DigestContent) => Promise<SendOutcome>,
): Promise<ChannelOutcome> {
  const { prisma } = deps;
  const claimed = await claimRun(prisma, shop.id, channel, day, now);
  if (claimed === null) return { kind: 'none' };
  const { run, attempt } = claimed;
  const content = await digestContent(prisma, shop.domain, day, run);
  if (openedTotal(content) === 0) {
    await updateDigestRun(prisma, run.id, {
      state: 'skipped',
      opened: 0,
      closed: content.closedByThemselves,
    });
    deps.logger.debug({ shop: shop.domain, channel, day }, 'digest skipped: nothing new');
    return { kind: 'skipped' };
  }
  await updateDigestRun(prisma, run.id, { opened: openedTotal(content), closed: content.closedByThemselves });
  const sent = await send(content);
  if (sent.ok) {
    await updateDigestRun(prisma, run.id, { state: 'sent', sentAt: nowOf(deps), error: null });
    deps.logger.info(
      { shop: shop.domain, channel, day, opened: openedTotal(content), attempt },
      'digest sent',
    );
    return { kind: 'sent' };
  }
  const last = attempt >= digestPolicy.attempts;
  await updateDigestRun(prisma, run.id, {
    state: 'failed',
    error: `attempt ${attempt} of ${digestPolicy.attempts}: ${sent.reason}`,
  });
  deps.logger.warn(
    { shop: shop.domain, channel, day, attempt, reason: sent.reason },
    last ? 'digest not sent: no attempts left today' : 'digest not sent: will try again',
  );
  const retryAt = last
    ? null
    : new Date(now.getTime() + (digestPolicy.retryAfterMs[attempt - 1] ?? digestPolicy.holdMs));
  return { kind: 'failed', retryAt, serverDown: sent.serverDown };
}

/**
 * The channel's run for the day, now this worker's to send: inserted (its `createdAt` the end of the
 * window it covers), or a failed one with attempts left taken back with a conditional write. Null when
 * another worker has it, it is done, or it has no attempts left.
 */
async function claimRun(
  prisma: DatabaseClient,
  shopId: string,
  channel: DigestChannel,
  day: string,
  now: Date,
): Promise<{ run: DigestRun; attempt: number } | null> {
  const existing = await digestRunOf(prisma, shopId, day, channel);
  if (existing === null) {
    try {
      const run = await insertDigestRun(prisma, {
        shopId,
        day,
        channel,
        createdAt: new Date(now.getTime() - digestPolicy.settleMs),
      });
      return { run, attempt: 1 };
    } catch (error) {
      if (isUniqueViolation(error)) return null;
      throw error;
    }
  }
  if (existing.state !== 'failed') return null;
  const attempt = attemptsOf(existing.error) + 1;
  if (attempt > digestPolicy.attempts) return null;
  const count = await retakeFailedRun(prisma, existing.id, existing.error);
  return count === 1 ? { run: existing, attempt } : null;
}

/** The attempts a failed run has had, from its error line (`attempt 2 of 3: …`). */
function attemptsOf(error: string | null): number {
  const match = /^attempt (\d+) of /.exec(error ?? '');
  return match ? Number(match[1]) : 1;
}

/**
 * What a run covers: the parcels with a problem opened in its window, by kind and in all, and the problems
 * that closed by themselves.
 */
async function digestContent(
  prisma: DatabaseClient,
  shopDomain: string,
  day: string,
  run: Pick<DigestRun, 'shopId' | 'channel' | 'createdAt'>,
): Promise<DigestContent> {
  const until = run.createdAt;
  const since = await windowStart(prisma, run);
  const [grouped, closed] = await Promise.all([
    parcelsWithProblemsOpened(prisma, run.shopId, since, until),
    problemsClosedFor(prisma, run.shopId, since, until, closedByThemselves),
  ]);
  const opened: Partial<Record<ProblemKind, number>> = {};
  for (const g of grouped.byKind) {
    if ((problemKinds as readonly string[]).includes(g.kind)) opened[g.kind as ProblemKind] = g.parcels;
  }
  return { shopDomain, day, opened, parcels: grouped.parcels, closedByThemselves: closed };
}

/**
 * Where a run's window starts: the end of the channel's last digest sent or skipped before it (a digest
 * given up after its attempts leaves its problems to the next one), at most a week back.
 */
async function windowStart(
  prisma: DatabaseClient,
  run: Pick<DigestRun, 'shopId' | 'channel' | 'createdAt'>,
): Promise<Date> {
  const until = run.createdAt.getTime();
  const last = await lastDoneRunBefore(prisma, run.shopId, run.channel, run.createdAt);
  const floor = until - digestPolicy.maxWindowMs;
  if (last) return new Date(Math.max(last.createdAt.getTime(), floor));
  // None went yet: a day before the channel's first run (so a first digest given up is covered later).
  const first = await firstRunBefore(prisma, run.shopId, run.channel, run.createdAt);
  return new Date(Math.max((first?.createdAt.getTime() ?? until) - digestPolicy.firstWindowMs, floor));
}
