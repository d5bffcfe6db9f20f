/** The CLI's exit codes. */
export const exitCodes = {
  ok: 0,
  /** The operation could not be done: the service refused, the shop or carrier is unknown, … */
  failed: 1,
  /** The command line is wrong: unknown command or flag, a missing or invalid value. */
  usage: 2,
  /** The environment is wrong: invalid configuration, database cannot be opened or migrated. */
  config: 3,
} as const;

/** An expected failure: its message is printed as one line on stderr, with its exit code. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = exitCodes.failed,
  ) {
    super(message);
    this.name = 'CliError';
  }
}
