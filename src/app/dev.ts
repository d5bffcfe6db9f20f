/**
 * `npm run dev`: the whole thing locally. The app (web + worker) on SQLite with the dev defaults, the
 * tracking-service emulator in-process unless TRACKING_API_BASE_URL points elsewhere, and a demo shop
 * connected to the emulator's demo account, ready for `npm run dev:send`.
 */
import { ConfigError, loadAppConfig, loadDevSettings, loadDotEnvFile } from '../config.js';
import { redactUrl } from '../db/provider.js';
import { type RunningEmulator, startEmulator } from '../emulator/server.js';
import { demoAccount } from '../emulator/state.js';
import { createLogger } from '../logger.js';
import { connectShop } from '../shops/connect-shop.js';
import { devShopDomain } from './dev-tools.js';
import { defaultPollPolicy, scalePollPolicy } from '../shipments/status.js';
import { type Runtime, startRuntime } from './runtime.js';

async function main(): Promise<void> {
  loadDotEnvFile();
  const dev = loadDevSettings();
  // Checked before anything starts; the emulator's address is filled in once it listens.
  const config = loadAppConfig({
    ...dev.env,
    TRACKING_API_BASE_URL: dev.trackingApiBaseUrl ?? 'http://127.0.0.1:4010/v1',
  });
  const logger = createLogger({ level: config.logLevel, name: 'tracksync-dev' });

  let emulator: RunningEmulator | null = null;
  let runtime: Runtime | null = null;
  let stopping = false;
  const closeAll = async () => {
    await runtime?.close();
    await emulator?.close();
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
    }
    // With the local emulator's clock running fast, statuses are read as often in its time as they would
    // be in real time, so the page shows parcels moving.
    const speed = dev.trackingApiBaseUrl ? 1 : dev.emulator.clockSpeed;
    const pollPolicy = scalePollPolicy(defaultPollPolicy, 1 / speed);
    runtime = await startRuntime(config, {
      logger,
      pollPolicy,
      reconciler: { firstPollMs: pollPolicy.firstPollMs },
    });

    const existing = await runtime.shops.findByDomain(devShopDomain);
    let shopLine: string;
    if (
      existing?.appName === demoAccount.appName &&
      existing.apiKeyCiphertext !== null &&
      existing.uninstalledAt === null
    ) {
      shopLine = `${devShopDomain} (app name ${demoAccount.appName}, already connected)`;
    } else {
      const connected = await connectShop(
        { client: runtime.client, shops: runtime.shops },
        { domain: devShopDomain, apiKey: demoAccount.apiKey, appName: demoAccount.appName },
      );
      shopLine = connected.ok
        ? `${devShopDomain} (app name ${demoAccount.appName}, connected now)`
        : `${devShopDomain} NOT connected: ${connected.message}`;
    }

    const appPort = new URL(runtime.url!).port;
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
      '',
      'Send a signed sample fulfilment and see its tracker:',
      `  npm run dev:send -- fulfillments-create.ups${sendFlags}`,
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
