/**
 * `npm run dev:send -- <sample> [flags]`: delivers one of the project's sample webhooks (samples/shopify/) to
 * the local app, signed with the dev secret exactly as the platform signs, then shows what the emulator holds.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatTable } from '../../src/cli/output.js';
import { ConfigError, loadDotEnvFile } from '../../src/config.js';
import { loadDevSettings } from './dev-settings.js';
import { demoAccount } from '../emulator/state.js';
import { webhookHeaders } from './webhook-sign.js';
import { PROJECT_ROOT } from '../../src/db/paths.js';
import { devShopDomain } from './dev-tools.js';
import { sampleNames, samplePath, samplesDir, topicForSample } from './samples.js';

/** `samples/shopify/`, as a developer types it from the project's root. */
const samplesFolder = `${path.relative(PROJECT_ROOT, samplesDir)}${path.sep}`;

const usage = [
  'Usage: npm run dev:send -- <sample> [--topic <topic>] [--port <app port>] [--emulator-port <port>]',
  '                           [--shop <domain>] [--event-id <id>] [--wait <seconds>]',
  '',
  `  <sample>   a file of ${samplesFolder} without .json (its README says what each one is):`,
  ...sampleNames().map((name) => `               ${name}`),
  '  --topic    default from the name: fulfillments-create.* → fulfillments/create,',
  '             fulfillments-update.* → fulfillments/update, orders-cancelled* → orders/cancelled',
  '  --port     the app (default PORT, else 3000); --emulator-port the emulator (default EMULATOR_PORT, else 4010)',
  `  --shop     default ${devShopDomain}; --event-id default random (repeat one to send a duplicate)`,
  '  --wait     how long to watch the emulator for the tracker (default 5 s)',
].join('\n');

class SendError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
  ) {
    super(message);
  }
}

const usageError = (message: string) => new SendError(`${message}\n\n${usage}`, 2);

interface EmulatorTrackerView {
  tracking_number: string;
  tracking_provider: string;
  order_id: string;
  status: string;
  created_at: string;
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: process.argv.slice(2),
      options: {
        topic: { type: 'string' },
        port: { type: 'string' },
        'emulator-port': { type: 'string' },
        shop: { type: 'string' },
        'event-id': { type: 'string' },
        wait: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw usageError((error as Error).message.split('. ')[0]!);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw usageError('name exactly one sample');
  const name = positionals[0]!;

  loadDotEnvFile();
  const dev = loadDevSettings();
  const port = portOf('--port', values.port ?? dev.env.PORT ?? '3000');
  const appUrl = `http://127.0.0.1:${port}`;
  const emulatorUrl =
    values['emulator-port'] !== undefined
      ? `http://127.0.0.1:${portOf('--emulator-port', values['emulator-port'])}`
      : dev.trackingApiBaseUrl
        ? dev.trackingApiBaseUrl.replace(/\/v\d+\/?$/, '')
        : `http://127.0.0.1:${dev.emulator.port}`;
  const waitSeconds = values.wait === undefined ? 5 : Number(values.wait);
  if (!Number.isFinite(waitSeconds) || waitSeconds < 0 || waitSeconds > 600) {
    throw usageError('--wait must be a number of seconds from 0 to 600');
  }
  const secret = dev.env.SHOPIFY_API_SECRET;
  if (!secret) throw new SendError('SHOPIFY_API_SECRET is empty', 3);

  const file = samplePath(name);
  const body = file ? await readFile(file, 'utf8').catch(() => null) : null;
  if (body === null) {
    throw usageError(`no sample "${name}" in ${samplesFolder}; there are: ${sampleNames().join(', ')}`);
  }
  try {
    JSON.parse(body);
  } catch {
    throw new SendError(`${file} is not JSON`, 2);
  }
  const topic = values.topic ?? topicForSample(name);
  if (!topic) throw usageError(`cannot tell the topic from "${name}": pass --topic`);
  const shop = values.shop ?? devShopDomain;
  const appName = demoAccount.appName;

  const before = await emulatorTrackers(emulatorUrl);
  const headers = webhookHeaders({
    topic,
    shop,
    body,
    secret,
    ...(values['event-id'] ? { eventId: values['event-id'] } : {}),
  });
  process.stdout.write(
    `POST ${appUrl}/webhooks  ${topic}  ${shop}  event ${headers['x-shopify-event-id']}\n`,
  );
  let response: Response;
  try {
    response = await fetch(`${appUrl}/webhooks`, {
      method: 'POST',
      headers,
      body,
      signal: AbortSignal.timeout(10_000),
    });
  } catch (error) {
    throw new SendError(
      `the app does not answer at ${appUrl} (${causeOf(error)}): is npm run dev running, on this --port?`,
      1,
    );
  }
  const answer = await response.text();
  process.stdout.write(`→ HTTP ${response.status} ${answer}\n`);
  if (!response.ok) {
    if (response.status === 401) {
      process.stdout.write(
        '  (the app refused the signature: is it running with the same SHOPIFY_API_SECRET?)\n',
      );
    }
    return 1;
  }

  if (before === null) {
    process.stdout.write(`(no emulator answers at ${emulatorUrl}: not watching for trackers)\n`);
    return 0;
  }
  const deadline = Date.now() + waitSeconds * 1000;
  let current = before;
  let changedAt: number | null = null;
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    current = (await emulatorTrackers(emulatorUrl)) ?? current;
    if (changedAt === null && fingerprint(current) !== fingerprint(before)) changedAt = Date.now();
    // Once something changed, give the worker a moment to finish the rest of the delivery.
    if (changedAt !== null && Date.now() - changedAt >= 750) break;
  }
  process.stdout.write(
    changedAt === null
      ? `No change at the emulator within ${waitSeconds}s. It holds ${current.length} tracker(s) for ${appName}:\n`
      : `The emulator holds ${current.length} tracker(s) for ${appName}:\n`,
  );
  if (current.length > 0) {
    process.stdout.write(
      `${formatTable(
        [
          { header: 'NUMBER', value: (t: EmulatorTrackerView) => t.tracking_number },
          { header: 'PROVIDER', value: (t) => t.tracking_provider },
          { header: 'ORDER', value: (t) => t.order_id },
          { header: 'STATUS', value: (t) => t.status },
          { header: 'CREATED', value: (t) => t.created_at },
        ],
        current,
      )}\n`,
    );
  }
  process.stdout.write(`(${emulatorUrl}/_emulator/trackers?appName=${appName})\n`);
  return 0;

  async function emulatorTrackers(url: string): Promise<EmulatorTrackerView[] | null> {
    try {
      const res = await fetch(`${url}/_emulator/trackers?appName=${encodeURIComponent(appName)}`, {
        signal: AbortSignal.timeout(2_000),
      });
      if (!res.ok) return null;
      return ((await res.json()) as { trackers: EmulatorTrackerView[] }).trackers;
    } catch {
      return null;
    }
  }
}

function fingerprint(trackers: EmulatorTrackerView[]): string {
  return trackers
    .map((t) => `${t.tracking_number}/${t.tracking_provider}/${t.order_id}`)
    .sort()
    .join(',');
}

function portOf(flag: string, text: string): number {
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw usageError(`${flag} must be a port number`);
  return port;
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } }).cause;
  if (typeof cause?.code === 'string') return cause.code;
  return error instanceof Error ? error.message : String(error);
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof SendError) {
      process.stderr.write(`dev:send: ${error.message}\n`);
      process.exitCode = error.exitCode;
    } else if (error instanceof ConfigError) {
      process.stderr.write(`dev:send: ${error.message}\n`);
      process.exitCode = 3;
    } else {
      process.stderr.write(`dev:send failed: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = 1;
    }
  },
);
