import { z } from 'zod';
import { storableString } from '../db/storable-text.js';
import { listFailed, retryFailed } from '../jobs/retry-failed.js';
import {
  defineCommand,
  exitCodes,
  jsonFlag,
  jsonFlagValue,
  readFlags,
  shopDomainFlag,
  stringOption,
} from './command.js';
import { printResult, printTable } from './output.js';

export const jobsFailed = defineCommand({
  name: 'jobs:failed',
  summary: 'trackers that failed or ran out of attempts, and webhook deliveries that failed',
  synopsis: '[--shop <domain>] [--json]',
  parse: (args) =>
    readFlags(args, {
      options: { shop: stringOption, ...jsonFlag },
      schema: z.object({ shop: shopDomainFlag.optional(), json: jsonFlagValue }),
    }),
  async run(app, input) {
    const failed = await listFailed(app.prisma, input.shop ? { shopDomain: input.shop } : {});
    return printResult(app.io, input.json, failed, ({ trackers, deliveries }) => {
      app.io.out(`Failed trackers: ${trackers.length}`);
      printTable(
        app.io,
        [
          { header: 'ID', value: (t) => t.id },
          { header: 'SHOP', value: (t) => t.shopDomain },
          { header: 'NUMBER', value: (t) => t.trackingNumber },
          { header: 'PROVIDER', value: (t) => t.provider },
          { header: 'STATE', value: (t) => t.syncState },
          { header: 'ATTEMPTS', value: (t) => t.attempts, align: 'right' },
          { header: 'REASON', value: (t) => t.lastErrorReason },
          { header: 'AT', value: (t) => t.lastErrorAt },
          { header: 'ERROR', value: (t) => t.lastError, maxWidth: 70 },
        ],
        trackers,
      );
      app.io.out('');
      app.io.out(`Failed webhook deliveries: ${deliveries.length}`);
      printTable(
        app.io,
        [
          { header: 'ID', value: (d) => d.id },
          { header: 'SHOP', value: (d) => d.shopDomain },
          { header: 'TOPIC', value: (d) => d.topic },
          { header: 'RECEIVED', value: (d) => d.receivedAt },
          { header: 'RETRYABLE', value: (d) => d.retryable },
          { header: 'ERROR', value: (d) => d.error, maxWidth: 70 },
        ],
        deliveries,
      );
      if (trackers.length + deliveries.length > 0) {
        app.io.out('');
        app.io.out(
          'Retry with: npm run cli -- jobs:retry [--shop <domain>] [--tracker <id>]... [--delivery <id>]...',
        );
      }
    });
  },
});

export const jobsRetry = defineCommand({
  name: 'jobs:retry',
  summary: 'send failed trackers and deliveries round again (all, one shop, or the ids given)',
  synopsis: '[--shop <domain>] [--tracker <id>]... [--delivery <id>]... [--json]',
  details: [
    'Without --tracker or --delivery: everything failed (of the shop, with --shop).',
    'With ids: only those; exit 1 when one of them is not failed (or does not exist).',
    'A running worker picks the work up at once.',
  ],
  parse(args) {
    const repeatable = { type: 'string', multiple: true } as const;
    const id = storableString().trim().min(1, 'is empty').max(100);
    return readFlags(args, {
      options: { shop: stringOption, tracker: repeatable, delivery: repeatable, ...jsonFlag },
      schema: z.object({
        shop: shopDomainFlag.optional(),
        tracker: z.array(id).optional(),
        delivery: z.array(id).optional(),
        json: jsonFlagValue,
      }),
    });
  },
  async run(app, input) {
    const result = await retryFailed(app.prisma, {
      ...(input.shop ? { shopDomain: input.shop } : {}),
      ...(input.tracker ? { trackerIds: input.tracker } : {}),
      ...(input.delivery ? { deliveryIds: input.delivery } : {}),
    });
    printResult(app.io, input.json, result, (r) => {
      app.io.out(
        `Reset ${r.trackersReset} tracker(s) and ${r.deliveriesReset} webhook delivery(ies) to pending.`,
      );
      if (r.deliveriesSkipped > 0) {
        app.io.out(
          `Skipped ${r.deliveriesSkipped} failed delivery(ies) whose body was already removed: they cannot be processed again.`,
        );
      }
    });
    if (result.notFailed.length > 0) {
      app.io.err(`error: not failed (or not found), left alone: ${result.notFailed.join(', ')}`);
      return exitCodes.failed;
    }
    return exitCodes.ok;
  },
});
