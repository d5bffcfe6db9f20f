import { type DestinationStream, pino } from 'pino';
import { type AppContext, createAppContext } from '../context/app-context.js';
import { type AppConfig, ConfigError, loadAppConfig } from '../config.js';
import { createDatabase, type Database } from '../db/client.js';
import { applyMigrations } from '../db/migrate.js';
import { redactUrl } from '../db/provider.js';
import { createLogger } from '../logger.js';
import { parseKeyring } from '../shops/crypto.js';
import { createTrackingClient } from '../tracking/client.js';
import { CliError, exitCodes } from './errors.js';
import type { CliIo } from './output.js';

/** What a command works with: the app's context (src/context/app-context.ts), built the same way from the same configuration. */
export interface CliApp extends AppContext {
  io: CliIo;
  config: AppConfig;
}

type Env = Record<string, string | undefined>;

/**
 * Loads the app's configuration, applies pending migrations (so a fresh database works) and connects.
 * Failures are CliErrors with the configuration exit code and a message free of secrets.
 */
export async function openCliApp(
  io: CliIo,
  env?: Env,
  logDestination: DestinationStream = pino.destination({ dest: 2, sync: true }),
): Promise<{ app: CliApp; secrets: string[]; close(): Promise<void> }> {
  let config: AppConfig;
  try {
    config = loadAppConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      throw new CliError(`invalid configuration: ${error.issues.join('; ')}`, exitCodes.config);
    }
    throw error;
  }
  const secrets = secretsOf(config);
  let keyring: ReturnType<typeof parseKeyring>;
  try {
    keyring = parseKeyring(config.encryptionKey);
  } catch (error) {
    throw new CliError(`invalid configuration: ${(error as Error).message}`, exitCodes.config);
  }
  // Logs go to stderr, so stdout stays the command's result; `info` (the default) is too chatty here.
  const logger = createLogger(
    { level: config.logLevel === 'info' ? 'warn' : config.logLevel, name: 'tracksync-cli' },
    logDestination,
  );
  const where = redactUrl(config.databaseUrl);
  try {
    const { applied } = await applyMigrations(config.databaseUrl);
    if (applied.length > 0) io.err(`Applied ${applied.length} migration(s) to ${where}.`);
  } catch (error) {
    const busy = /SocketTimeout|SQLITE_BUSY|database is locked/.test(String(error));
    throw new CliError(
      busy
        ? `database ${where}: migrations are pending but the database is busy; stop the app, run npm run db:migrate, then start it again`
        : `database ${where}: migrations could not be applied: ${firstLine(error)}`,
      exitCodes.config,
    );
  }
  let db: Database;
  try {
    db = await createDatabase(config.databaseUrl);
  } catch (error) {
    throw new CliError(`database ${where}: could not connect: ${firstLine(error)}`, exitCodes.config);
  }
  const app: CliApp = {
    io,
    config,
    ...createAppContext({
      prisma: db.prisma,
      logger,
      keyring,
      client: createTrackingClient({ baseUrl: config.trackingApiBaseUrl, logger }),
    }),
  };
  return { app, secrets, close: () => db.close() };
}

export function firstLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? 'unknown error'
  );
}

/** The configuration's secrets, as they could appear in a message: keys, the app secret, a database password. */
function secretsOf(config: AppConfig): string[] {
  const secrets = [config.encryptionKey, config.shopify.apiSecret];
  for (const part of config.encryptionKey.split(','))
    secrets.push(part.trim(), part.slice(part.indexOf(':') + 1).trim());
  try {
    const password = new URL(config.databaseUrl).password;
    if (password) secrets.push(password, decodeURIComponent(password));
  } catch {
    // not a URL with a password (file:)
  }
  return secrets;
}
