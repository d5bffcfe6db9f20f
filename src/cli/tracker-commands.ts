import { z } from 'zod';
import { storableString } from '../db/storable-text.js';
import {
  CliError,
  defineCommand,
  exitCodes,
  jsonFlag,
  jsonFlagValue,
  limitFlag,
  readFlags,
  shopDomainFlag,
  stringOption,
} from './command.js';
import { formatTable, printResult, printTable } from './output.js';
import { estimateOf } from '../shipments/estimates.js';
import { type ProblemKind, problemWords } from '../shipments/problem-words.js';
import { parcelOf } from '../shipments/parcel-model.js';
import {
  countListedTrackers,
  linesWaitingForCarrier,
  listedTrackers,
} from '../trackers/queries/tracker-list.js';

export const trackersList = defineCommand({
  name: 'trackers:list',
  summary: "a shop's trackers, and its lines waiting for a carrier mapping",
  synopsis: '--shop <domain> [--order <id>] [--state pending|synced|failed|dead] [--limit <n>] [--json]',
  details: [
    '--order matches the order id sent to the service or the store order id of the lines.',
    '--limit caps the trackers shown (default 200, newest first).',
  ],
  parse: (args) =>
    readFlags(args, {
      options: {
        shop: stringOption,
        order: stringOption,
        state: stringOption,
        limit: stringOption,
        ...jsonFlag,
      },
      required: { shop: '<domain>' },
      schema: z.object({
        shop: shopDomainFlag,
        order: storableString().trim().min(1, 'is empty').optional(),
        state: z.enum(['pending', 'synced', 'failed', 'dead']).optional(),
        limit: limitFlag.default(200),
        json: jsonFlagValue,
      }),
    }),
  async run(app, input) {
    const shop = await app.shops.findByDomain(input.shop);
    if (!shop) throw new CliError(`No shop ${input.shop} is known. See shop:list.`, exitCodes.failed);
    const filter = { shopId: shop.id, order: input.order, state: input.state };
    const total = await countListedTrackers(app.prisma, filter);
    const trackers = await listedTrackers(app.prisma, filter, input.limit);
    const waiting = (await linesWaitingForCarrier(app.prisma, shop.id, input.order)).sort(
      (a, b) => b.lines - a.lines || (a.carrierName ?? '').localeCompare(b.carrierName ?? ''),
    );

    const rows = trackers.map((t) => {
      const ended = t.lines[0] && !t.lines[0].active ? t.lines[0].endedReason : null;
      // The parcel as every view tells it (the parcel model): its label, advice and estimate.
      const view = t.status || ended ? parcelOf(t.status, t.statusDetail, ended) : null;
      const estimate = estimateOf(t, ended);
      return {
        id: t.id,
        trackingNumber: t.trackingNumber,
        provider: t.provider,
        orderKey: t.orderKey,
        desired: t.desired,
        remote: t.remote,
        syncState: t.syncState,
        /** The parcel as the service last said: its status, last event and estimate. */
        status: t.status,
        statusDetail: t.statusDetail,
        lastEventAt: t.lastEventAt,
        lastEventMessage: t.lastEventMessage,
        /** The estimate as the Shipments page shows it (none for a cancelled or unfollowed parcel). */
        estimatedDelivery: estimate && !estimate.predicted ? estimate.date : null,
        /** The parcel in words: the same label, advice and action as the Shipments page. */
        parcel: view && { label: view.label, advice: view.advice, action: view.action },
        /** Open shipment problems (src/shipments/problems.ts), oldest first. */
        openProblems: t.problems.map((p) => ({ kind: p.kind, since: p.since })),
        attempts: t.attempts,
        lastErrorReason: t.lastErrorReason,
        lastError: t.lastError,
        lastErrorAt: t.lastErrorAt,
        syncedAt: t.syncedAt,
      };
    });
    const result = { shop: shop.domain, total, trackers: rows, waitingForCarrier: waiting };
    return printResult(app.io, input.json, result, () => {
      printTable(
        app.io,
        [
          { header: 'NUMBER', value: (r) => r.trackingNumber },
          { header: 'PROVIDER', value: (r) => r.provider },
          { header: 'ORDER', value: (r) => r.orderKey },
          { header: 'DESIRED', value: (r) => r.desired },
          { header: 'REMOTE', value: (r) => r.remote },
          { header: 'SYNC', value: (r) => r.syncState },
          { header: 'ATTEMPTS', value: (r) => r.attempts, align: 'right' },
          { header: 'STATUS', value: (r) => r.parcel?.label ?? null, maxWidth: 40 },
          {
            header: 'LAST EVENT',
            value: (r) =>
              r.lastEventAt
                ? `${r.lastEventAt.toISOString().slice(0, 16)} ${r.lastEventMessage ?? ''}`
                : null,
            maxWidth: 40,
          },
          { header: 'ESTIMATE', value: (r) => r.estimatedDelivery },
          {
            header: 'PROBLEM',
            value: (r) =>
              r.openProblems.map((p) => problemWords[p.kind as ProblemKind]?.label ?? p.kind).join(', ') ||
              null,
          },
          { header: 'WHAT TO DO', value: (r) => r.parcel?.advice ?? null, maxWidth: 60 },
          {
            header: 'LAST ERROR',
            value: (r) => (r.lastErrorReason ? `${r.lastErrorReason}: ${r.lastError ?? ''}` : r.lastError),
            maxWidth: 60,
          },
          { header: 'ID', value: (r) => r.id },
        ],
        rows,
        'No trackers match.',
      );
      if (rows.length > 0 && total > rows.length) {
        app.io.out(`(${rows.length} of ${total} shown; raise --limit for more)`);
      }
      if (waiting.length > 0) {
        app.io.out('');
        app.io.out('Lines waiting for a carrier mapping:');
        app.io.out(
          formatTable(
            [
              { header: 'CARRIER NAME', value: (w) => w.carrierName ?? '(no carrier name)' },
              { header: 'LINES', value: (w) => w.lines, align: 'right' },
            ],
            waiting,
          ),
        );
        app.io.out(
          `Map one with: npm run cli -- carriers:map --shop ${shop.domain} --name "<carrier name>" --slug <slug>`,
        );
      }
    });
  },
});
