/** The tracking-service emulator as a child process, and the few control routes the bench uses. */
import { type Child, spawnTsx } from './processes.js';
import { fetchWithTimeout } from './wait.js';

export interface EmulatorAccount {
  apiKey: string;
  appName: string;
  plan: string;
  balance: number;
}

export interface CreateCall {
  appName: string | null;
  httpStatus: number;
  at: string;
  body: { tracking_number?: unknown; tracking_provider?: unknown } | null;
}

export interface EmulatorProcess {
  child: Child;
  /** http://127.0.0.1:PORT */
  url: string;
  /** url + '/v1', the app's TRACKING_API_BASE_URL */
  baseUrl: string;
  /** Clears trackers, calls and script; restores the start accounts (balances) and faults. */
  reset(): Promise<void>;
  /** Current balance of every account (cheap: one small JSON answer). */
  balances(): Promise<Map<string, number>>;
  /** The call log's create calls (one request; heavy only at the very end of a drain). */
  createCalls(): Promise<CreateCall[]>;
  /** Trackers the emulator holds for one account. */
  trackers(appName: string): Promise<Array<{ tracking_number: string; tracking_provider: string }>>;
}

export async function startEmulatorProcess(options: {
  /** A free port chosen by the caller, so the address is known before the emulator is up. */
  port: number;
  latencyMs: number;
  accounts: EmulatorAccount[];
}): Promise<EmulatorProcess> {
  const child = spawnTsx('emulator', 'tools/emulator/main.ts', [], {
    EMULATOR_PORT: String(options.port),
    EMULATOR_LATENCY_MS: String(options.latencyMs),
    EMULATOR_ACCOUNTS: JSON.stringify(options.accounts.map((a) => ({ ...a, https: true }))),
    LOG_LEVEL: 'warn',
  });
  const line = await child.waitForLine(
    'the emulator to listen',
    (l) => l.includes('emulator listening on http://'),
    30_000,
  );
  const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(line)?.[1];
  if (!url) throw new Error(`emulator: cannot read its address from "${line}"`);

  async function send<T>(method: string, path: string, timeoutMs = 30_000): Promise<T> {
    let response: Response;
    try {
      response = await fetchWithTimeout(url + path, { method }, timeoutMs);
    } catch (error) {
      if (!child.running()) throw new Error(`the emulator exited\n${child.output().slice(-3000)}`);
      // A kept-alive connection the server closed just as it was reused: one fresh attempt.
      const cause = (error as { cause?: { message?: string } }).cause?.message;
      if (method !== 'GET')
        throw new Error(`emulator ${method} ${path}: ${String(error)} (${cause ?? 'no cause'})`);
      response = await fetchWithTimeout(url + path, { method }, timeoutMs);
    }
    const text = await response.text();
    if (!response.ok)
      throw new Error(`emulator ${method} ${path} → ${response.status}: ${text.slice(0, 200)}`);
    return JSON.parse(text) as T;
  }

  return {
    child,
    url,
    baseUrl: `${url}/v1`,
    reset: async () => {
      await send('POST', '/_emulator/reset');
    },
    balances: async () => {
      const { accounts } = await send<{ accounts: Array<{ appName: string; balance: number }> }>(
        'GET',
        '/_emulator/accounts',
        5_000,
      );
      return new Map(accounts.map((a) => [a.appName, a.balance]));
    },
    createCalls: async () =>
      (await send<{ calls: CreateCall[] }>('GET', '/_emulator/calls?operation=create', 60_000)).calls,
    trackers: async (appName) =>
      (
        await send<{ trackers: Array<{ tracking_number: string; tracking_provider: string }> }>(
          'GET',
          `/_emulator/trackers?appName=${encodeURIComponent(appName)}`,
          60_000,
        )
      ).trackers,
  };
}
