import { z } from 'zod';

/**
 * The one place that reads the environment. Every other module receives its settings as arguments.
 * Each loader takes the environment as a parameter (default: process.env) so tests can pass their own.
 */

type Env = Record<string, string | undefined>;

const logLevel = z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info');

const rate = z.coerce.number().min(0).max(1).default(0);

const boolFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const emulatorAccount = z.object({
  apiKey: z.string().min(1),
  appName: z.string().min(1),
  plan: z.string().default('Free'),
  balance: z.number().int().min(0).default(100),
  https: z.boolean().default(true),
});
export type EmulatorAccountConfig = z.infer<typeof emulatorAccount>;

const emulatorAccounts = z
  .string()
  .transform((text, ctx) => {
    try {
      return JSON.parse(text) as unknown;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'EMULATOR_ACCOUNTS is not valid JSON' });
      return z.NEVER;
    }
  })
  .pipe(z.array(emulatorAccount));

const emulatorEnv = z.object({
  EMULATOR_PORT: z.coerce.number().int().min(0).max(65535).default(4010),
  EMULATOR_ACCOUNTS: emulatorAccounts.optional(),
  EMULATOR_SEED: z.coerce.number().int().optional(),
  /** Speed of the simulated lifecycle clock: 60 means one real second is one simulated minute. */
  EMULATOR_CLOCK_SPEED: z.coerce.number().positive().default(1),
  EMULATOR_LATENCY_MS: z.coerce.number().int().min(0).default(0),
  EMULATOR_ERROR_RATE: rate,
  EMULATOR_TIMEOUT_RATE: rate,
  EMULATOR_RESET_RATE: rate,
  EMULATOR_RATE_LIMIT_RATE: rate,
  EMULATOR_DEPRECATION: z.string().min(1).optional(),
  EMULATOR_SUNSET: z.string().min(1).optional(),
  LOG_LEVEL: logLevel,
});

export interface EmulatorConfig {
  port: number;
  accounts: EmulatorAccountConfig[] | undefined;
  seed: number | undefined;
  clockSpeed: number;
  faults: {
    latencyMs: number;
    errorRate: number;
    timeoutRate: number;
    resetRate: number;
    rateLimitRate: number;
    deprecation: string | undefined;
    sunset: string | undefined;
  };
  logLevel: z.infer<typeof logLevel>;
}

export function loadEmulatorConfig(env: Env = process.env): EmulatorConfig {
  const e = parseEnv(emulatorEnv, env);
  return {
    port: e.EMULATOR_PORT,
    accounts: e.EMULATOR_ACCOUNTS,
    seed: e.EMULATOR_SEED,
    clockSpeed: e.EMULATOR_CLOCK_SPEED,
    faults: {
      latencyMs: e.EMULATOR_LATENCY_MS,
      errorRate: e.EMULATOR_ERROR_RATE,
      timeoutRate: e.EMULATOR_TIMEOUT_RATE,
      resetRate: e.EMULATOR_RESET_RATE,
      rateLimitRate: e.EMULATOR_RATE_LIMIT_RATE,
      deprecation: e.EMULATOR_DEPRECATION,
      sunset: e.EMULATOR_SUNSET,
    },
    logLevel: e.LOG_LEVEL,
  };
}

export class ConfigError extends Error {
  constructor(readonly issues: string[]) {
    super(`Invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

/** Parses env with a schema; on failure names every bad variable, never its value (it may be a secret). */
export function parseEnv<S extends z.ZodType>(schema: S, env: Env): z.output<S> {
  const cleaned: Env = {};
  for (const [k, v] of Object.entries(env)) cleaned[k] = v === '' ? undefined : v;
  const result = schema.safeParse(cleaned);
  if (result.success) return result.data;
  throw new ConfigError(result.error.issues.map((i) => `${i.path.join('.') || '(env)'}: ${i.message}`));
}

export { boolFlag, logLevel };
