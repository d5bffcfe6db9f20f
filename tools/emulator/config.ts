import { z } from 'zod';
import { type Env, logLevel, parseEnv } from '../../src/config.js';

/** The emulator's settings, from its own environment variables (EMULATOR_*), read through the app's parseEnv. */

const rate = z.coerce.number().min(0).max(1).default(0);

const emulatorAccount = z.object({
  apiKey: z.string().min(1),
  appName: z.string().min(1),
  plan: z.string().default('Free'),
  balance: z.number().int().min(0).default(100),
  https: z.boolean().default(true),
  /** Where the emulator POSTs each new tracking event of the account's trackers (its tracking webhook). */
  webhookUrl: z.string().url().nullable().optional(),
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
