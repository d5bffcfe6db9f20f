/**
 * The production entry: `npm start` runs it compiled (`node dist/app/main.js`, after `npm run build`).
 * Config from the environment; web + worker unless --role says otherwise.
 */
import { ConfigError, loadAppConfig, loadDotEnvFile } from '../config.js';
import { createLogger } from '../logger.js';
import { startRuntime } from './runtime.js';
import { safeReason } from '../errors/safe-reason.js';

function roleFromArgs(argv: string[]): string | undefined {
  const index = argv.indexOf('--role');
  if (index !== -1) return argv[index + 1];
  return argv.find((a) => a.startsWith('--role='))?.slice('--role='.length);
}

async function main(): Promise<void> {
  loadDotEnvFile();
  const role = roleFromArgs(process.argv.slice(2));
  const config = loadAppConfig(role ? { ...process.env, ROLE: role } : process.env);
  const logger = createLogger({ level: config.logLevel, name: 'tracksync' });
  const runtime = await startRuntime(config, { logger });

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing calls in flight, releasing leased work');
    runtime.close().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error({ err: safeReason(error) }, 'error while shutting down');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) process.stderr.write(`${error.message}\n`);
  else
    process.stderr.write(
      `tracksync failed to start: ${error instanceof Error ? error.message : String(error)}\n`,
    );
  process.exit(1);
});
