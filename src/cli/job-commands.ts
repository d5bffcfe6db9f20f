import { parseArgs } from 'node:util';
import { z } from 'zod';
import { storableString } from '../db/storable-text.js';
import { listFailed, retryFailed } from '../jobs/retry-failed.js';
import { defineCommand, exitCodes, jsonFlag, shopDomainFlag, usageErrors, validateFlags } from './command.js';
import { formatJson, formatTable } from './output.js';

export const jobsFailed = defineCommand({
  name: 'jobs:failed',
  summary: 'trackers that failed or ran out of attempts, and webhook deliveries that failed',
  synopsis: '[--shop <domain>] [--json]',
  parse(args) {
    const { values } = usageErrors(() =>
      parseArgs({
        args,
        options: { shop: { type: 'string' }, ...jsonFlag },
        strict: true,
        allowPositionals: false,
      }),
    );
    return validateFlags(
      z.object({ shop: shopDomainFlag.optional(), json: z.boolean().default(false) }),
      values,
    );
  },
  async run(app, input) {
    const failed = await listFailed(app.prisma, input.shop ? { shopDomain: input.shop } : {});
    if (input.json) {
      app.io.out(formatJson(failed));
      return exitCodes.ok;
    }
    app.io.out(`Failed trackers: ${failed.trackers.length}`);
    if (failed.trackers.length > 0) {
      app.io.out(
        formatTable(
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
          failed.trackers,
        ),
      );
    }
    app.io.out('');
    app.io.out(`Failed webhook deliveries: ${failed.deliveries.length}`);
    if (failed.deliveries.length > 0) {
      app.io.out(
        formatTable(
          [
            { header: 'ID', value: (d) => d.id },
            { header: 'SHOP', value: (d) => d.shopDomain },
            { header: 'TOPIC', value: (d) => d.topic },
            { header: 'RECEIVED', value: (d) => d.receivedAt },
            { header: 'RETRYABLE', value: (d) => d.retryable },
            { header: 'ERROR', value: (d) => d.error, maxWidth: 70 },
          ],
          failed.deliveries,
        ),
      );
    }
    if (failed.trackers.length + failed.deliveries.length > 0) {
      app.io.out('');
      app.io.out(
        'Retry with: npm run cli -- jobs:retry [--shop <domain>] [--tracker <id>]... [--delivery <id>]...',
      );
    }
    return exitCodes.ok;
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
    const { values } = usageErrors(() =>
      parseArgs({
        args,
        options: {
          shop: { type: 'string' },
          tracker: { type: 'string', multiple: true },
          delivery: { type: 'string', multiple: true },
          ...jsonFlag,
        },
        strict: true,
        allowPositionals: false,
      }),
    );
    const id = storableString().trim().min(1, 'is empty').max(100);
    return validateFlags(
      z.object({
        shop: shopDomainFlag.optional(),
        tracker: z.array(id).optional(),
        delivery: z.array(id).optional(),
        json: z.boolean().default(false),
      }),
      values,
    );
  },
  async run(app, input) {
    const result = await retryFailed(app.prisma, {
      ...(input.shop ? { shopDomain: input.shop } : {}),
      ...(input.tracker ? { trackerIds: input.tracker } : {}),
      ...(input.delivery ? { deliveryIds: input.delivery } : {}),
    });
    if (input.json) app.io.out(formatJson(result));
    else {
      app.io.out(
        `Reset ${result.trackersReset} tracker(s) and ${result.deliveriesReset} webhook delivery(ies) to pending.`,
      );
      if (result.deliveriesSkipped > 0) {
        app.io.out(
          `Skipped ${result.deliveriesSkipped} failed delivery(ies) whose body was already removed: they cannot be processed again.`,
        );
      }
    }
    if (result.notFailed.length > 0) {
      app.io.err(`error: not failed (or not found), left alone: ${result.notFailed.join(', ')}`);
      return exitCodes.failed;
    }
    return exitCodes.ok;
  },
});
