import { devDefaults, type Env } from '../../src/config.js';
import { type EmulatorConfig, loadEmulatorConfig } from '../emulator/config.js';

/** What the emulator `npm run dev` embeds defaults to: a fast clock, so trackers visibly move. */
export const devEmulatorDefaults: Env = {
  EMULATOR_CLOCK_SPEED: '60',
};

/**
 * The dev mail catcher (tools/dev/mail-catcher.ts): its SMTP port (DEV_MAIL_SMTP_PORT, default 1025) and
 * its page's (DEV_MAIL_PAGE_PORT, default 8025). A default port in use is replaced by a free one; a port
 * set is used or the start fails. Null when SMTP_URL is set: the app sends to that server instead.
 */
export interface DevMailSettings {
  smtpPort: number;
  pagePort: number;
  /** Whether each port was set (else a default port in use may be replaced). */
  smtpPortSet: boolean;
  pagePortSet: boolean;
}

function portSetting(env: Env, name: string, fallback: number): { port: number; set: boolean } {
  const value = env[name];
  if (value === undefined || value === '') return { port: fallback, set: false };
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535) throw new Error(`${name} must be a port number (0-65535)`);
  return { port, set: true };
}

/** For `npm run dev` and the dev tools: the environment over the dev defaults, plus where the emulator is. */
export function loadDevSettings(env: Env = process.env): {
  env: Env;
  emulator: EmulatorConfig;
  trackingApiBaseUrl: string | undefined;
  mailCatcher: DevMailSettings | null;
} {
  const given: Env = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '') given[k] = v;
  const merged: Env = { ...devDefaults, ...given };
  // The app URL follows a PORT chosen without one.
  if (given.SHOPIFY_APP_URL === undefined && given.PORT !== undefined && /^\d+$/.test(given.PORT)) {
    merged.SHOPIFY_APP_URL = `http://127.0.0.1:${given.PORT}`;
  }
  const smtp = portSetting(given, 'DEV_MAIL_SMTP_PORT', 1025);
  const page = portSetting(given, 'DEV_MAIL_PAGE_PORT', 8025);
  return {
    env: merged,
    emulator: loadEmulatorConfig({ ...devEmulatorDefaults, ...given }),
    trackingApiBaseUrl: merged.TRACKING_API_BASE_URL,
    mailCatcher:
      merged.SMTP_URL === undefined
        ? { smtpPort: smtp.port, pagePort: page.port, smtpPortSet: smtp.set, pagePortSet: page.set }
        : null,
  };
}
