import { type ParseArgsConfig, parseArgs } from 'node:util';
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

/** The flags a command takes, described as util.parseArgs takes them. */
export type FlagOptions = NonNullable<ParseArgsConfig['options']>;

type FlagConfig<O extends FlagOptions> = {
  args: readonly string[];
  options: O;
  strict: true;
  allowPositionals: false;
};

/** The values util.parseArgs finds for these flags (a flag not given is absent). */
export type FlagValues<O extends FlagOptions> = ReturnType<typeof parseArgs<FlagConfig<O>>>['values'];

/** A command's flags: how util.parseArgs reads them, and which must be given. */
export interface FlagSpec<O extends FlagOptions> {
  options: O;
  /** Flags that must be given, each with the placeholder its error shows: `{ shop: '<domain>' }`. */
  required?: NoInfer<{ [Name in keyof O]?: string }>;
}

/**
 * Reads a command's flags (no positionals). An unknown or malformed flag, or a missing required one, is a
 * UsageError.
 */
export function parseFlags<const O extends FlagOptions>(
  args: readonly string[],
  { options, required = {} }: FlagSpec<O>,
): FlagValues<O> {
  const { values } = usageErrors(() =>
    parseArgs<FlagConfig<O>>({ args, options, strict: true, allowPositionals: false }),
  );
  requireFlags(values, required);
  return values;
}

/** parseFlags, then validateFlags with the spec's schema: the flags as the command uses them. */
export function readFlags<const O extends FlagOptions, S extends z.ZodType>(
  args: readonly string[],
  spec: FlagSpec<O> & { schema: S },
): z.output<S> {
  return validateFlags(spec.schema, parseFlags(args, spec));
}

/** Runs util.parseArgs (or anything else that throws on bad flags), turning its errors into UsageError. */
function usageErrors<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // Node's messages go on with advice about positionals after `--`; the first sentence is the point.
    throw new UsageError(message.split('. ')[0]!.replace(/'/g, ''));
  }
}

/** Missing flags, named the way they are typed. */
function requireFlags(values: Record<string, unknown>, flags: Record<string, string | undefined>): void {
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

/** A flag that takes a value, as util.parseArgs describes it. */
export const stringOption = { type: 'string' } as const;

export const jsonFlag = { json: { type: 'boolean' } } as const;

/** `--json` as read: off unless given. */
export const jsonFlagValue = z.boolean().default(false);

/** The synopsis and parse of a command whose only flag is `--json`: spread it into the command. */
export const jsonOnly = {
  synopsis: '[--json]',
  parse: (args: readonly string[]): { json: boolean } =>
    readFlags(args, { options: jsonFlag, schema: z.object({ json: jsonFlagValue }) }),
};

/** `--limit <n>`: a positive whole number, as text on the command line. */
export const limitFlag = z.coerce.number().int().min(1).max(100_000);
