import type { NotifyWork } from './notify-work.js';
import { codeWords } from '../shipments/parcel-model.js';
import { type DatabaseClient, isUniqueViolation } from '../db/client.js';
import { safeReason } from '../errors/safe-reason.js';
import { nowOf } from '../lib/clock.js';
import { type ProblemKind, problemKinds } from '../shipments/problem-words.js';
import { type InstantProblem, instantListed, instantSlackText } from './digest-message.js';
import {
  createPassHold,
  type InstantShop,
  moveInstantCursor,
  newProblemsOf,
  passHoldOf,
  shopsWithNewProblems,
  startInstantCursors,
  swapPassHold,
} from './queries/instant-problems.js';

/**
 * New problems posted to Slack as they open, for the shops that asked (`Shop.slackInstantProblems`):
 * one message per shop and pass listing the problems opened since `Shop.slackPostedThrough` that are
 * still open, the cursor moved on only after Slack answered 2xx. A failed post is not retried here: the
 * same problems (and any newer) go in the shop's message at the next pass.
 *
 * One process of the fleet runs a pass at a time (a conditional write on an AppState row claims it for
 * `instantPolicy.holdMs`, and the pass starts no post it could not finish within it), so two workers
 * never post the same problems. A shop that switched instant posts on starts from then: nothing older is
 * posted (the digest has it).
 */

export interface InstantPassCounts {
  /** Shops with new problems looked at. */
  shops: number;
  /** Messages Slack took. */
  posted: number;
  /** Problems in those messages (listed or counted). */
  problems: number;
  /** Messages not taken: tried again at the next pass. */
  failed: number;
}

export const instantPolicy = {
  /** How long a claimed pass is this process's alone. */
  holdMs: 60_000,
  /** No post is started with less than this left of the hold (a post gives up after 5 s). */
  postMarginMs: 10_000,
  /** Problems opened in the last seconds are left for the next pass (one may still be being written). */
  settleMs: 30_000,
} as const;

const passKey = 'notifications.slack-instant-pass';

/** Posts the new problems of up to `limit` shops, those waiting longest first. */
export async function postInstantProblems(deps: NotifyWork, limit: number): Promise<InstantPassCounts> {
  const counts: InstantPassCounts = { shops: 0, posted: 0, problems: 0, failed: 0 };
  const now = nowOf(deps);
  const held = await claimPass(deps.prisma, now);
  if (held === null) return counts;
  const started = Date.now();
  try {
    const until = new Date(now.getTime() - instantPolicy.settleMs);
    // Switched on without a cursor (the page sets one; this covers any other way): from now on.
    await startInstantCursors(deps.prisma, until);
    for (const shop of await shopsWithNewProblems(deps.prisma, until, limit)) {
      if (Date.now() - started > instantPolicy.holdMs - instantPolicy.postMarginMs) break;
      counts.shops += 1;
      const through = shop.slackPostedThrough!;
      const { rows, total } = await newProblemsOf(deps.prisma, shop.id, through, until, instantListed);
      if (total === 0) continue;
      const problems: InstantProblem[] = rows
        .filter((r) => (problemKinds as readonly string[]).includes(r.kind))
        .map((r) => ({
          kind: r.kind as ProblemKind,
          trackingNumber: r.tracker.trackingNumber,
          // In words (a problem stored before the words were the parcel model's may hold a bare code).
          detail: codeWords(r.detail) ?? r.detail,
        }));
      const reason = await post(
        deps,
        shop,
        instantSlackText({ shopDomain: shop.domain, problems, total }, deps.appApiKey),
      );
      if (reason === null) {
        await moveInstantCursor(deps.prisma, shop.id, through, until);
        counts.posted += 1;
        counts.problems += total;
      } else {
        counts.failed += 1;
        deps.logger.warn({ shop: shop.domain, reason }, 'new problems not posted to Slack: next pass');
      }
    }
  } finally {
    await releasePass(deps.prisma, held);
  }
  return counts;
}

/** Posts the text to the shop's webhook: null when Slack took it, else why not. */
async function post(deps: NotifyWork, shop: InstantShop, text: string): Promise<string | null> {
  let url: string | null;
  try {
    url = await deps.shops.slackWebhook(shop);
  } catch (error) {
    return safeReason(error, 200);
  }
  if (url === null) return 'no Slack webhook URL is set';
  const posted = await deps.slack.post(url, text);
  return posted.ok ? null : posted.reason;
}

/** The pass, this process's until `now + holdMs`: the hold's value, or null when another process has it. */
async function claimPass(prisma: DatabaseClient, now: Date): Promise<string | null> {
  const value = new Date(now.getTime() + instantPolicy.holdMs).toISOString();
  const existing = await passHoldOf(prisma, passKey);
  if (existing === null) {
    try {
      await createPassHold(prisma, passKey, value);
      return value;
    } catch (error) {
      if (isUniqueViolation(error)) return null;
      throw error;
    }
  }
  if (existing > now.toISOString()) return null;
  return (await swapPassHold(prisma, passKey, existing, value)) === 1 ? value : null;
}

/** Lets the next pass (any process, whatever its clock) run at once. */
async function releasePass(prisma: DatabaseClient, held: string): Promise<void> {
  await swapPassHold(prisma, passKey, held, released);
}

/** A hold that ended long ago. */
const released = new Date(0).toISOString();
