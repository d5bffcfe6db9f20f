import { z } from 'zod';
import { connectInput, connectShop } from '../shops/connect-shop.js';
import { viewOf } from '../shops/shop-repository.js';
import { ensurePushToken, rotatePushToken, statusPushUrl } from '../status-pushes/token.js';
import {
  defineCommand,
  exitCodes,
  jsonFlag,
  jsonFlagValue,
  jsonOnly,
  parseFlags,
  readFlags,
  shopDomainFlag,
  stringOption,
  validateFlags,
} from './command.js';
import { trackersByShopAndSyncState } from '../trackers/queries/tracker-counts.js';
import { printResult, printTable } from './output.js';

const syncStates = ['pending', 'synced', 'failed', 'dead'] as const;

export const shopConnect = defineCommand({
  name: 'shop:connect',
  summary: "check a shop's API key and app name with the tracking service, then store them encrypted",
  synopsis: '--shop <domain> --api-key <key|-> --app-name <name>',
  details: [
    '--api-key -  reads the key from stdin (keeps it out of the shell history and the process list).',
    'Exit 1 when the service refuses the credentials, 2 when a value is invalid.',
  ],
  async parse(args, io) {
    const values = parseFlags(args, {
      options: { shop: stringOption, 'api-key': stringOption, 'app-name': stringOption },
      required: { shop: '<domain>', 'api-key': '<key>', 'app-name': '<name>' },
    });
    const apiKey = values['api-key'] === '-' ? (await io.readStdin()).trim() : values['api-key'];
    const flags = validateFlags(
      z.object({
        shop: shopDomainFlag,
        'api-key': connectInput.shape.apiKey,
        'app-name': connectInput.shape.appName,
      }),
      { ...values, 'api-key': apiKey },
    );
    return { domain: flags.shop, apiKey: flags['api-key'], appName: flags['app-name'] };
  },
  secrets: (input) => [input.apiKey],
  async run(app, input) {
    const result = await connectShop({ client: app.client, shops: app.shops }, input);
    if (!result.ok) {
      app.io.err(`error: ${cliMessageFor(result.reason, result.message)}`);
      return result.reason === 'invalid_input' ? exitCodes.usage : exitCodes.failed;
    }
    app.io.out(
      `Connected ${result.shop.domain} to the tracking service as app "${result.shop.appName ?? ''}".`,
    );
    app.io.out('The API key is stored encrypted; work held for this shop resumes.');
    return exitCodes.ok;
  },
});

/** The use case's message, with what to do about it. */
function cliMessageFor(reason: string, message: string): string {
  switch (reason) {
    case 'ssl_error':
      return `${message} Serve the store over HTTPS, then connect again.`;
    case 'unauthorized':
      return `${message} Check the API key and the app name (wrong key, or a key of another store).`;
    default:
      return message;
  }
}

export const shopList = defineCommand({
  name: 'shop:list',
  summary: 'every shop: connection, balance, plan, pause, trackers by sync state',
  ...jsonOnly,
  async run(app, input) {
    const shops = await app.shops.list();
    const groups = await trackersByShopAndSyncState(app.prisma);
    const counts = new Map<string, Record<string, number>>();
    for (const g of groups) {
      const byState = counts.get(g.shopId) ?? {};
      byState[g.syncState] = g.count;
      counts.set(g.shopId, byState);
    }
    const urls = new Map<string, string>();
    for (const shop of shops)
      urls.set(shop.id, statusPushUrl(app.config.shopify.appUrl, await ensurePushToken(app.prisma, shop.id)));
    const rows = shops.map((shop) => {
      const view = viewOf(shop);
      const byState = counts.get(shop.id) ?? {};
      return {
        domain: view.domain,
        appName: view.appName,
        connected: view.hasApiKey && view.uninstalledAt === null,
        trackersBalance: view.trackersBalance,
        userPlan: view.userPlan,
        pausedReason: view.paused?.reason ?? null,
        pausedSince: view.paused?.since ?? null,
        trackers: Object.fromEntries(syncStates.map((s) => [s, byState[s] ?? 0])) as Record<
          (typeof syncStates)[number],
          number
        >,
        /** Where the tracking service pushes this shop's statuses (register it at the service). */
        statusPushUrl: urls.get(shop.id)!,
        lastStatusPushAt: shop.lastStatusPushAt,
      };
    });
    return printResult(app.io, input.json, { shops: rows }, () =>
      printTable(
        app.io,
        [
          { header: 'SHOP', value: (r) => r.domain },
          { header: 'APP NAME', value: (r) => r.appName },
          { header: 'CONNECTED', value: (r) => r.connected },
          { header: 'BALANCE', value: (r) => r.trackersBalance, align: 'right' },
          { header: 'PLAN', value: (r) => r.userPlan },
          { header: 'PAUSED', value: (r) => r.pausedReason },
          ...syncStates.map((s) => ({
            header: s.toUpperCase(),
            value: (r: (typeof rows)[number]) => r.trackers[s],
            align: 'right' as const,
          })),
        ],
        rows,
        'No shops yet. Connect one with: npm run cli -- shop:connect --shop <domain> ...',
      ),
    );
  },
});

export const shopRotatePushUrl = defineCommand({
  name: 'shop:rotate-push-url',
  summary: "replace a shop's status push URL (the old one is refused at once); prints the new one",
  synopsis: '--shop <domain> [--json]',
  details: ['Register the printed URL as the tracking webhook at the tracking service.'],
  parse: (args) =>
    readFlags(args, {
      options: { shop: stringOption, ...jsonFlag },
      required: { shop: '<domain>' },
      schema: z.object({ shop: shopDomainFlag, json: jsonFlagValue }),
    }),
  async run(app, input) {
    const shop = await app.shops.findByDomain(input.shop);
    if (!shop) {
      app.io.err(`error: no shop ${input.shop}`);
      return exitCodes.failed;
    }
    const url = statusPushUrl(app.config.shopify.appUrl, await rotatePushToken(app.prisma, shop.id));
    return printResult(app.io, input.json, { domain: shop.domain, statusPushUrl: url }, (r) => {
      app.io.out(`New status push URL of ${r.domain}:`);
      app.io.out(r.statusPushUrl);
      app.io.out('The old URL is refused from now on: register this one at the tracking service.');
    });
  },
});
