import { type Logger, pino } from 'pino';

export type { Logger };

/** Paths whose values never reach a log line, wherever they appear in a logged object. */
export const redactedPaths = [
  'apiKey',
  '*.apiKey',
  'api_key',
  '*.api_key',
  'headers["service-api-key"]',
  '*.headers["service-api-key"]',
  'headers["x-shopify-hmac-sha256"]',
  '*.headers["x-shopify-hmac-sha256"]',
  'accessToken',
  '*.accessToken',
  'refreshToken',
  '*.refreshToken',
  'secret',
  '*.secret',
  'password',
  '*.password',
  'authorization',
  '*.authorization',
  'headers.authorization',
  '*.headers.authorization',
];

export function createLogger(
  options: { level: string; name?: string },
  destination?: pino.DestinationStream,
): Logger {
  return pino(
    {
      level: options.level,
      name: options.name,
      redact: { paths: redactedPaths, censor: '[redacted]' },
      base: { pid: process.pid },
    },
    destination,
  );
}

/** A logger that drops everything: the default where a caller passes none. */
export const silentLogger: Logger = pino({ level: 'silent' });
