import { type RunningEmulator, startEmulator } from '../../tools/emulator/server.js';
import { setServiceClock } from '../../src/shipments/read-bounds.js';

/** One entry of the emulator's call log. */
export interface LoggedCall {
  operation: 'create' | 'get' | 'by-order-id' | 'delete' | 'providers';
  path: string;
  body: unknown;
  httpStatus: number;
  at: string;
  appName: string | null;
}

export interface EmulatorTracker {
  appName: string;
  tracking_number: string;
  tracking_provider: string;
  order_id: string;
  postal_code: string | null;
  destination_country: string | null;
  status: string;
}

/** Drives a running emulator through its `/_emulator` control routes, over real HTTP. */
export function emulatorControl(url: string) {
  async function send(method: string, path: string, body?: unknown): Promise<unknown> {
    const response = await fetch(url + path, {
      method,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path} → ${response.status}: ${text}`);
    return text === '' ? undefined : JSON.parse(text);
  }
  return {
    async calls(filter: { operation?: string; appName?: string } = {}): Promise<LoggedCall[]> {
      const query = new URLSearchParams(filter as Record<string, string>).toString();
      const body = (await send('GET', `/_emulator/calls${query ? `?${query}` : ''}`)) as {
        calls: LoggedCall[];
      };
      return body.calls;
    },
    clearCalls: () => send('DELETE', '/_emulator/calls'),
    setFaults: (plan: Record<string, unknown>) => send('PUT', '/_emulator/faults', plan),
    script: (responses: Array<Record<string, unknown>>) => send('POST', '/_emulator/script', { responses }),
    clearScript: () => send('DELETE', '/_emulator/script'),
    reset: () => send('POST', '/_emulator/reset'),
    advanceClock: (seconds: number) => send('POST', '/_emulator/clock/advance', { seconds }),
    async trackers(appName?: string): Promise<EmulatorTracker[]> {
      const query = appName ? `?appName=${encodeURIComponent(appName)}` : '';
      return ((await send('GET', `/_emulator/trackers${query}`)) as { trackers: EmulatorTracker[] }).trackers;
    },
    patchAccount: (appName: string, patch: Record<string, unknown>) =>
      send('PATCH', `/_emulator/accounts/${encodeURIComponent(appName)}`, patch),
    addAccount: (account: Record<string, unknown>) => send('POST', '/_emulator/accounts', account),
  };
}

export type EmulatorControl = ReturnType<typeof emulatorControl>;

export interface TestEmulator extends RunningEmulator {
  control: EmulatorControl;
}

/**
 * The emulator in this process. Its clock is moved on by the tests, so the app in this process judges event
 * times by it, as it would the real service's (else its events would be refused as dated ahead).
 */
export async function startTestEmulator(
  options: Parameters<typeof startEmulator>[0] = {},
): Promise<TestEmulator> {
  const emulator = await startEmulator({ port: 0, seed: 1, ...options });
  const { clock } = emulator.state;
  setServiceClock(() => clock.nowMs());
  return Object.assign(emulator, { control: emulatorControl(emulator.url) });
}
