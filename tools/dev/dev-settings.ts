import { devDefaults, type Env } from '../../src/config.js';
import { type EmulatorConfig, loadEmulatorConfig } from '../emulator/config.js';

/** What the emulator `npm run dev` embeds defaults to: a fast clock, so trackers visibly move. */
export const devEmulatorDefaults: Env = {
  EMULATOR_CLOCK_SPEED: '60',
};

/** For `npm run dev` and the dev tools: the environment over the dev defaults, plus where the emulator is. */
export function loadDevSettings(env: Env = process.env): {
  env: Env;
  emulator: EmulatorConfig;
  trackingApiBaseUrl: string | undefined;
} {
  const given: Env = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') given[k] = v;
  const merged: Env = { ...devDefaults, ...given };
  // The app URL follows a PORT chosen without one.
  if (given.SHOPIFY_APP_URL === undefined && given.PORT !== undefined && /^\d+$/.test(given.PORT)) {
    merged.SHOPIFY_APP_URL = `http://127.0.0.1:${given.PORT}`;
  }
  return {
    env: merged,
    emulator: loadEmulatorConfig({ ...devEmulatorDefaults, ...given }),
    trackingApiBaseUrl: merged.TRACKING_API_BASE_URL,
  };
}
