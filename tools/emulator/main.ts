/** CLI entry (`npm run emulator`): starts the emulator with settings from the environment. */
import { ConfigError } from '../../src/config.js';
import { loadEmulatorConfig } from './config.js';
import { createLogger } from '../../src/logger.js';
import { startEmulator } from './server.js';
import { demoAccount } from './state.js';

async function main(): Promise<void> {
  let config: ReturnType<typeof loadEmulatorConfig>;
  try {
    config = loadEmulatorConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exitCode = 1;
      return;
    }
    throw err;
  }
  const logger = createLogger({ level: config.logLevel, name: 'emulator' });
  const accounts = config.accounts ?? [];
  const emulator = await startEmulator({
    port: config.port,
    accounts,
    seed: config.seed,
    clockSpeed: config.clockSpeed,
    faults: config.faults,
    logger,
  });

  const lines = [
    `Tracking service emulator listening on ${emulator.url}`,
    `  base URL (tracking interface): ${emulator.baseUrl}`,
    `  control endpoints:             ${emulator.url}/_emulator/...`,
  ];
  if (accounts.length === 0) {
    lines.push(
      '  no accounts configured (EMULATOR_ACCOUNTS): using the demo account',
      `    service-api-key: ${demoAccount.apiKey}`,
      `    app-name:        ${demoAccount.appName}`,
    );
  } else {
    lines.push(`  accounts: ${accounts.map((a) => a.appName).join(', ')}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) {
      process.stderr.write(`${signal} again: exiting now\n`);
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'emulator: shutting down');
    emulator.close().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'emulator: error while closing');
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}

main().catch((err: unknown) => {
  const code = (err as { code?: unknown }).code;
  const message = code === 'EADDRINUSE' ? 'the port is already in use' : String(err);
  process.stderr.write(`emulator failed to start: ${message}\n`);
  process.exit(1);
});
