import type { DestinationStream } from 'pino';
import { carriersList, carriersMap, carriersRefresh } from './carrier-commands.js';
import { CliError, type Command, exitCodes } from './command.js';
import { firstLine, openCliApp } from './context.js';
import { jobsFailed, jobsRetry } from './job-commands.js';
import { type CliIo, redactSecrets } from './output.js';
import { shopConnect, shopList, shopRotatePushUrl } from './shop-commands.js';
import { trackersList } from './tracker-commands.js';

export const commands: readonly Command[] = [
  shopConnect,
  shopList,
  shopRotatePushUrl,
  trackersList,
  jobsFailed,
  jobsRetry,
  carriersRefresh,
  carriersList,
  carriersMap,
];

const invocation = 'npm run cli --';

export function usageText(): string {
  return [
    `Usage: ${invocation} <command> [flags]`,
    '',
    'Commands:',
    ...commands.flatMap((c) => [`  ${c.name} ${c.synopsis}`, `      ${c.summary}`]),
    '  help [<command>]',
    "      this text, or one command's flags (also: <command> --help)",
    '',
    'Configuration comes from the environment (and .env), as for the app: DATABASE_URL, ENCRYPTION_KEY,',
    'TRACKING_API_BASE_URL, SHOPIFY_API_KEY, SHOPIFY_API_SECRET, SHOPIFY_APP_URL. Pending migrations are',
    'applied first.',
    'Exit codes: 0 ok; 1 the operation failed or the service refused it; 2 usage error or invalid input;',
    '3 configuration or database problem.',
  ].join('\n');
}

export function commandUsage(command: Command): string {
  return [
    `Usage: ${invocation} ${command.name} ${command.synopsis}`,
    '',
    `  ${command.summary}`,
    ...(command.details ?? []).map((d) => `  ${d}`),
  ].join('\n');
}

export interface RunCliOptions {
  io: CliIo;
  /** The environment to configure from (default: the process's). */
  env?: Record<string, string | undefined>;
  /** What `--api-key -` reads (default: the process's stdin). */
  readStdin?: () => Promise<string>;
  /** Where the commands' log lines go (default: the process's stderr, fd 2). */
  logDestination?: DestinationStream;
}

const helpFlags = new Set(['--help', '-h']);

/**
 * Runs one command line; returns the exit code. Expected failures print one line on stderr. Whatever it
 * reads or writes can be passed in `options` (main.ts passes the process's), so tests run it in-process.
 */
export async function runCli(argv: readonly string[], options: RunCliOptions): Promise<number> {
  const { io } = options;
  const [name, ...args] = argv;
  if (name === 'help' || (name !== undefined && helpFlags.has(name))) {
    const command = commands.find((c) => c.name === args[0]);
    io.out(command ? commandUsage(command) : usageText());
    return exitCodes.ok;
  }
  const command = commands.find((c) => c.name === name);
  if (!command) {
    if (name !== undefined) io.err(`error: unknown command "${name}"`);
    io.err(usageText());
    return exitCodes.usage;
  }
  if (args.some((a) => helpFlags.has(a))) {
    io.out(commandUsage(command));
    return exitCodes.ok;
  }

  const secrets: string[] = [];
  // Whatever a command prints passes through here: no secret reaches the terminal, even by accident.
  const safeIo: CliIo = {
    out: (text) => io.out(text === undefined ? text : redactSecrets(text, secrets)),
    err: (text) => io.err(redactSecrets(text, secrets)),
  };
  let close: (() => Promise<void>) | undefined;
  try {
    const input = await command.parse(args, { readStdin: options.readStdin ?? readAll });
    secrets.push(...(command.secrets?.(input) ?? []));
    const opened = await openCliApp(safeIo, options.env, options.logDestination);
    secrets.push(...opened.secrets);
    close = opened.close;
    return await command.run(opened.app, input);
  } catch (error) {
    if (error instanceof CliError) {
      const prefix = error.exitCode === exitCodes.usage ? `${command.name}: ` : '';
      io.err(`error: ${prefix}${redactSecrets(error.message, secrets)}`);
      if (error.exitCode === exitCodes.usage)
        io.err(`usage: ${invocation} ${command.name} ${command.synopsis}`);
      return error.exitCode;
    }
    safeIo.err(`error: ${command.name} failed unexpectedly: ${firstLine(error)}`);
    return exitCodes.failed;
  } finally {
    await close?.().catch(() => {});
  }
}

async function readAll(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
