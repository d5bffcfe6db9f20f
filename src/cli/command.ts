import { z } from 'zod';
import { connectInput } from '../shops/connect-shop.js';
import type { CliApp } from './context.js';
import { CliError, exitCodes } from './errors.js';

export { CliError, exitCodes } from './errors.js';

export class UsageError extends CliError {
  constructor(message: string) {
    super(message, exitCodes.usage);
    this.name = 'UsageError';
  }
}

export interface Command<Input = unknown> {
  name: string;
  /** One line for the command list. */
  summary: string;
  /** The flags, as shown after the command name: `--shop <domain> [--json]`. */
  synopsis: string;
  /** Extra lines shown by `<command> --help`. */
  details?: string[];
  /** Reads and checks the flags; throws UsageError. Runs before the environment or database is touched. */
  parse(args: string[], io: { readStdin(): Promise<string> }): Input | Promise<Input>;
  /** Secrets in the input that must never be printed (scrubbed from any error message). */
  secrets?(input: Input): string[];
  /** Does the work; returns the exit code. */
  run(app: CliApp, input: Input): Promise<number>;
}

/** Erases a command's input type for the registry (parse and run always travel together). */
export function defineCommand<Input>(command: Command<Input>): Command<unknown> {
  return command as Command<unknown>;
}

/** Runs util.parseArgs (or anything else that throws on bad flags), turning its errors into UsageError. */
export function usageErrors<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Node's messages go on with advice about positionals after `--`; the first sentence is the point.
    throw new UsageError(message.split('. ')[0]!.replace(/'/g, ''));
  }
}

/** Missing flags, named the way they are typed. */
export function requireFlags(values: Record<string, unknown>, flags: Record<string, string>): void {
  const missing = Object.entries(flags)
    .filter(([name]) => values[name] === undefined)
    .map(([name, placeholder]) => `--${name} ${placeholder}`);
  if (missing.length > 0) throw new UsageError(`missing ${missing.join(', ')}`);
}

/** Validates flag values with a schema keyed by flag name; a failure names the flag, never its value. */
export function validateFlags<S extends z.ZodType>(schema: S, values: unknown): z.output<S> {
  const result = schema.safeParse(values);
  if (result.success) return result.data;
  throw new UsageError(
    result.error.issues
      .map((i) => (i.path.length > 0 ? `--${i.path.map(String).join('.')}: ${i.message}` : i.message))
      .join('; '),
  );
}

/** A `*.myshopify.com` domain, trimmed and lower-cased (the same rule as connecting a shop). */
export const shopDomainFlag = connectInput.shape.domain;

export const jsonFlag = { json: { type: 'boolean' } } as const;

/** `--limit <n>`: a positive whole number, as text on the command line. */
export const limitFlag = z.coerce.number().int().min(1).max(100_000);

export const optionalShopFlag = z.object({ shop: shopDomainFlag.optional() });
