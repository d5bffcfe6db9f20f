import { randomBytes } from 'node:crypto';
import { withoutSourcePaths } from './safe-reason.js';

/**
 * What a log line says of an unexpected error: enough to find it, none of its data. Logged under `error`
 * (not pino's `err`, whose serializer would dress it as an Error with an empty stack).
 */
export interface ErrorSummary {
  name: string;
  code?: string;
  /** The database's own error code under an ORM error (PostgreSQL's SQLSTATE, e.g. 42P01). */
  databaseCode?: string;
  message: string;
}

/**
 * The error's name, code and the first line of its message, source paths replaced and cut short. Never
 * the stack nor the rest of the message: an ORM's message goes on with the call's source excerpt and the
 * query's arguments (which may be a shopper's input or a secret); its first line names the call only.
 */
export function describeError(error: unknown, maxLength = 200): ErrorSummary {
  if (!(error instanceof Error)) return { name: typeof error, message: 'non-error thrown' };
  const firstLine =
    error.message
      .split('\n')
      .map((line) => line.trim())
      .find((line) => line !== '') ?? '';
  const line = withoutSourcePaths(firstLine);
  const code = (error as { code?: unknown }).code;
  const databaseCode = (error as { meta?: { code?: unknown } }).meta?.code;
  return {
    name: error.name.slice(0, 100),
    ...(typeof code === 'string' ? { code: code.slice(0, 50) } : {}),
    ...(typeof databaseCode === 'string' && /^[A-Za-z0-9_]{1,20}$/.test(databaseCode)
      ? { databaseCode }
      : {}),
    message: line.length > maxLength ? `${line.slice(0, maxLength - 1)}…` : line,
  };
}

/**
 * A random id for one failed request: logged with the failure and given to the client in the 500 answer,
 * so an operator finds the one line a merchant or a shopper reports.
 */
export function newErrorId(): string {
  return randomBytes(8).toString('hex');
}
