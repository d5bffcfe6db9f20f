import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logger.js';

export interface Captured {
  logger: Logger;
  /** Every line exactly as written. */
  lines: string[];
  /** The same lines, parsed. */
  records: Array<Record<string, unknown> & { msg: string; level: number }>;
}

/** A real pino logger (with the app's redaction) writing into memory, so tests can read what was logged. */
export function captureLogger(level = 'debug'): Captured {
  const lines: string[] = [];
  const records: Captured['records'] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) {
        if (line.trim() === '') continue;
        lines.push(line);
        records.push(JSON.parse(line));
      }
      done();
    },
  });
  return { logger: createLogger({ level }, sink), lines, records };
}
