/**
 * `npm run dev`: the whole thing locally. The app (web + worker) on SQLite with the dev defaults, the
 * tracking-service emulator in-process unless TRACKING_API_BASE_URL points elsewhere, the fake store Admin
 * API (no real store is ever called), a local mail catcher for the digest e-mails (unless SMTP_URL is
 * set), and a demo shop connected to the emulator's demo account and installed, ready for
 * `npm run dev:send`, the page and the CLI.
 */
import path from 'node:path';
import { ConfigError, devEnvFilePath, loadAppConfig, loadDotEnvFile } from '../../src/config.js';
import { type DevMailSettings, loadDevSettings } from './dev-settings.js';
import { type MailCatcher, startMailCatcher } from './mail-catcher.js';
import { redactUrl } from '../../src/db/provider.js';
import { type RunningEmulator, startEmulator } from '../emulator/server.js';
import { demoAccount } from '../emulator/state.js';
import { ensurePushToken, statusPushPath, statusPushUrl } from '../../src/status-pushes/token.js';
import { createLogger } from '../../src/logger.js';
import { connectShop } from '../../src/shops/connect-shop.js';
import { parseKeyring } from '../../src/shops/crypto.js';
import type { FakeAdminGraphql } from './fake-store-admin.js';
import { devPageUrl, devTokenHours, installDevShop, startDevStore, writeDevEnvFile } from './dev-store.js';
import { devShopDomain } from './dev-tools.js';
import { defaultPollPolicy, scalePollPolicy } from '../../src/shipments/status.js';
import { setServiceClock } from '../../src/shipments/read-bounds.js';
import { watchPage } from '../build/page-build.js';
import { assertDevAppProxySecret } from './dev-proxy.js';
import { withDevExtras } from './dev-app.js';
import { type Runtime, startRuntime } from '../../src/app/runtime.js';
import { adminPages } from '../../src/ui/vocabulary.js';

async function main(): Promise<void> {
  loadDotEnvFile();
  const dev = loadDevSettings();
  // Checked before anything starts; the emulator's address is filled in once it listens.
  const config = loadAppConfig({
    ...dev.env,
    TRACKING_API_BASE_URL: dev.trackingApiBaseUrl ?? 'http://127.0.0.1:4010/v1',
  });
  // The store's app proxy played locally signs with the app's secret: only the development one.
  assertDevAppProxySecret(config.shopify.apiSecret);
  const logger = createLogger({ level: config.logLevel, name: 'tracksync-dev' });

  let emulator: RunningEmulator | null = null;
  let runtime: Runtime | null = null;
  let store: FakeAdminGraphql | null = null;
  let page: { close(): Promise<void> } | null = null;
  let mail: MailCatcher | null = null;
  let stopping = false;
  const closeAll = async () => {
    await page?.close();
    await runtime?.close();
    await emulator?.close();
    await store?.close();
    await mail?.close();
  };
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`${signal} again: exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'dev: shutting down');
    closeAll().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`error while shutting down: ${messageOf(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);

  try {
    if (!dev.trackingApiBaseUrl) {
      emulator = await startEmulator({
        port: dev.emulator.port,
        accounts: dev.emulator.accounts ?? [],
        seed: dev.emulator.seed,
        clockSpeed: dev.emulator.clockSpeed,
        // A fifth of the demo's parcels take the service's other statuses (failed attempts, holds…).
        statusVariety: 0.2,
        faults: dev.emulator.faults,
        logger: logger.child({ component: 'emulator' }),
      });
      config.trackingApiBaseUrl = emulator.baseUrl;
      // Its clock runs fast: its events are judged by its time, not refused as dated ahead of ours.
      const { clock } = emulator.state;
      setServiceClock(() => clock.nowMs());
    }
    // With the local emulator's clock running fast, statuses are read as often in its time as they would
    // be in real time, so the page shows parcels moving.
    const speed = dev.trackingApiBaseUrl ? 1 : dev.emulator.clockSpeed;
    const pollPolicy = scalePollPolicy(defaultPollPolicy, 1 / speed);
    // The digest e-mails go to a local catcher whose page shows them, unless SMTP_URL names a server.
    if (dev.mailCatcher) {
      mail = await startDevMailCatcher(dev.mailCatcher);
      config.mail = { smtpUrl: mail.smtpUrl, from: config.mail?.from ?? null };
    }
    // Every Admin API request (status write-back, backfill) goes to the local fake store, never to a store.
    store = await startDevStore(devShopDomain);
    // The page's bundle, rebuilt on every change under src/ui (reload the page to see it).
    page = await watchPage();
    runtime = await startRuntime(config, {
      logger,
      pollPolicy,
      reconciler: { firstPollMs: pollPolicy.firstPollMs },
      // In front of the app: the store's app proxy played locally (the shoppers' page at /apps/track), and
      // the page's launch token outside the admin, which lives for hours (tools/dev/dev-app.ts).
      serve: (app) => withDevExtras(app, { secret: config.shopify.apiSecret, shop: devShopDomain }),
    });
    await installDevShop(runtime.db.prisma, parseKeyring(config.encryptionKey), devShopDomain);

    const existing = await runtime.context.shops.findByDomain(devShopDomain);
    let shopLine: string;
    if (
      existing?.appName === demoAccount.appName &&
      existing.apiKeyCiphertext !== null &&
      existing.uninstalledAt === null
    ) {
      shopLine = `${devShopDomain} (app name ${demoAccount.appName}, already connected)`;
    } else {
      const connected = await connectShop(
        { client: runtime.context.client, shops: runtime.context.shops },
        { domain: devShopDomain, apiKey: demoAccount.apiKey, appName: demoAccount.appName },
      );
      shopLine = connected.ok
        ? `${devShopDomain} (app name ${demoAccount.appName}, connected now)`
        : `${devShopDomain} NOT connected: ${connected.message}`;
    }

    // The emulator pushes each new scan of the demo account to the demo shop's status push URL, so the
    // pages and the shoppers' page show statuses in seconds (polling stays as the safety net).
    let pushLine = 'statuses read on a schedule (TRACKING_API_BASE_URL is not the local emulator)';
    const demoShop = await runtime.context.shops.findByDomain(devShopDomain);
    if (emulator && demoShop) {
      const token = await ensurePushToken(runtime.db.prisma, demoShop.id);
      emulator.state.patchAccount(demoAccount.appName, { webhookUrl: statusPushUrl(runtime.url!, token) });
      pushLine = `the emulator pushes each new scan to ${runtime.url}${statusPushPath}/… (the demo shop's URL)`;
    }

    const appPort = new URL(runtime.url!).port;
    const envFile = devEnvFilePath();
    await writeDevEnvFile(envFile, {
      DATABASE_URL: absoluteFileUrl(config.databaseUrl),
      SHOPIFY_API_KEY: config.shopify.apiKey,
      SHOPIFY_API_SECRET: config.shopify.apiSecret,
      SHOPIFY_APP_URL: config.shopify.appUrl,
      TRACKING_API_BASE_URL: config.trackingApiBaseUrl,
      ENCRYPTION_KEY: config.encryptionKey,
    });
    // Every page of the app, each with its own address (one launch token: it opens any of them).
    const pageUrl = devPageUrl({
      shop: devShopDomain,
      apiKey: config.shopify.apiKey,
      secret: config.shopify.apiSecret,
      appUrl: runtime.url!,
    });
    const token = new URL(pageUrl).search;
    const pageList = Object.values(adminPages);
    const titleWidth = Math.max(...pageList.map((page) => page.title.length)) + 2;
    const pageLines = pageList.map(
      (page) => `  ${page.title.padEnd(titleWidth)}${new URL(page.path, runtime!.url!).href}${token}`,
    );
    // The next commands run as printed in another terminal: the ports and the settings file this run uses.
    const cliPrefix =
      envFile === devEnvFilePath({}) ? '' : `DEV_ENV_FILE=${shellWord(path.resolve(envFile))} `;
    const sendFlags = [
      appPort !== '3000' ? ` --port ${appPort}` : '',
      emulator && emulator.port !== 4010 ? ` --emulator-port ${emulator.port}` : '',
    ].join('');
    const lines = [
      '',
      'tracksync dev is running',
      `  app:        ${runtime.url}   (webhooks: POST ${runtime.url}/webhooks)`,
      emulator
        ? `  emulator:   ${emulator.baseUrl}   (trackers: ${emulator.url}/_emulator/trackers?appName=${demoAccount.appName})`
        : `  tracking:   ${config.trackingApiBaseUrl}   (not the emulator: TRACKING_API_BASE_URL is set)`,
      `  database:   ${redactUrl(config.databaseUrl)}`,
      `  demo shop:  ${shopLine}`,
      `  statuses:   ${pushLine}`,
      `  store:      a local fake of the store Admin API (status write-back and backfill; no real store is called)`,
      mail
        ? `  mail:       ${mail.pageUrl}   (digest e-mails, caught by a local SMTP server at ${mail.smtpUrl}; nothing is delivered)`
        : `  mail:       digest e-mails go to SMTP_URL's server`,
      '',
      `The app's ${pageList.length} pages (open one in a browser; the launch token is valid ${devTokenHours} h):`,
      ...pageLines,
      '',
      'Send a signed sample fulfilment and see its tracker (in another terminal, from this folder):',
      `  npm run dev:send -- fulfillments-create.ups${sendFlags}`,
      '',
      "The shoppers' tracking page for that parcel (the store's app proxy played locally):",
      `  ${runtime.url}/apps/track?format=html&tracking=1Z999AA10123456784`,
      '',
      `The operator CLI on this setup (it reads ${envFile}):`,
      `  ${cliPrefix}npm run cli -- trackers:list --shop ${devShopDomain}`,
      '',
      'Ctrl+C stops everything.',
      '',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } catch (error) {
    await closeAll().catch(() => {});
    throw error;
  }
}

/** The mail catcher on its ports; a default port in use is replaced by a free one (a port set is not). */
async function startDevMailCatcher(settings: DevMailSettings): Promise<MailCatcher> {
  try {
    return await startMailCatcher({ smtpPort: settings.smtpPort, pagePort: settings.pagePort });
  } catch (error) {
    const inUse = (error as NodeJS.ErrnoException).code === 'EADDRINUSE';
    if (!inUse || (settings.smtpPortSet && settings.pagePortSet)) throw error;
    return startMailCatcher({
      smtpPort: settings.smtpPortSet ? settings.smtpPort : 0,
      pagePort: settings.pagePortSet ? settings.pagePort : 0,
    });
  }
}

/** A word a POSIX shell reads back as `text`: as it is when plain, else in single quotes. */
function shellWord(text: string): string {
  return /^[\w@%+=:,./-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}

/** `file:./data/dev.db` → `file:/abs/path/data/dev.db`, so the CLI finds it from any directory. */
function absoluteFileUrl(url: string): string {
  return url.startsWith('file:') ? `file:${path.resolve(url.slice('file:'.length))}` : url;
}

function messageOf(error: unknown): string {
  if (error instanceof ConfigError) return error.message;
  const code = (error as { code?: unknown }).code;
  if (code === 'EADDRINUSE') {
    return `a port is already in use (${(error as Error).message}); set PORT / EMULATOR_PORT to free ones`;
  }
  return error instanceof Error ? error.message : String(error);
}

main().catch((error: unknown) => {
  process.stderr.write(`tracksync dev failed to start: ${messageOf(error)}\n`);
  process.exit(1);
});
