/**
 * The app under test as a real process: `node --import tsx src/app/main.ts --role <role>`, configured only by
 * its environment (as test/helpers/child-app.ts does). It applies pending migrations itself on start; the
 * bench migrates first anyway, so several processes on one database never race to do it.
 */
import { type Child, freePort, spawnTsx } from './processes.js';
import { fetchWithTimeout, waitUntil } from './wait.js';

export type AppRole = 'web' | 'worker' | 'all';

export interface AppSettings {
  databaseUrl: string;
  trackingApiBaseUrl: string;
  /** SHOPIFY_API_SECRET: signs the webhooks. */
  secret: string;
  encryptionKey: string;
  /** WORKER_CONCURRENCY; absent: the app's default. */
  workerConcurrency?: number;
  /**
   * The bench's fake store (tools/dev/fake-store-admin.ts, its baseUrl): the process is started with
   * tools/dev/fake-store-preload.ts and FAKE_STORE_URL, so its store Admin API calls (the worker confirms
   * first-seen fulfilments with the store) go there. Absent: the real platform (a web-only process needs none).
   */
  fakeStoreUrl?: string;
}

export interface AppProcess {
  child: Child;
  role: AppRole;
  /** http://127.0.0.1:PORT for web and all; null for a worker. */
  url: string | null;
}

const startTimeoutMs = 60_000;

/** Routes the process's store Admin API requests to FAKE_STORE_URL (development and tests only). */
export const fakeStorePreload = './tools/dev/fake-store-preload.ts';

/**
 * Starts the app and waits until it is ready: for `web`, until `GET /readyz` answers 200 (LOG_LEVEL=warn,
 * nothing is logged per request); for `worker` and `all`, until the worker logs `worker started`
 * (LOG_LEVEL=info: the worker's hot path logs nothing at info, only failures, which a healthy drain has none of).
 */
export async function startApp(name: string, role: AppRole, settings: AppSettings): Promise<AppProcess> {
  const port = role === 'worker' ? 0 : await freePort();
  const env: Record<string, string> = {
    SHOPIFY_API_KEY: 'bench-api-key',
    SHOPIFY_API_SECRET: settings.secret,
    SHOPIFY_APP_URL: `http://127.0.0.1:${port === 0 ? 3000 : port}`,
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: settings.databaseUrl,
    TRACKING_API_BASE_URL: settings.trackingApiBaseUrl,
    ENCRYPTION_KEY: settings.encryptionKey,
    LOG_LEVEL: role === 'web' ? 'warn' : 'info',
  };
  if (settings.workerConcurrency !== undefined) env.WORKER_CONCURRENCY = String(settings.workerConcurrency);
  if (settings.fakeStoreUrl !== undefined) env.FAKE_STORE_URL = settings.fakeStoreUrl;
  const child = spawnTsx(
    name,
    'src/app/main.ts',
    ['--role', role],
    env,
    settings.fakeStoreUrl !== undefined ? [fakeStorePreload] : [],
  );
  const url = role === 'worker' ? null : `http://127.0.0.1:${port}`;
  if (role === 'web') {
    await waitUntil(
      `${name} to be ready (GET /readyz)`,
      async () => (await fetchWithTimeout(`${url}/readyz`, {}, 2_000)).status === 200,
      { timeoutMs: startTimeoutMs, intervalMs: 100, failIf: () => (child.running() ? null : 'it exited') },
    ).catch((error: unknown) => {
      throw new Error(
        `${error instanceof Error ? error.message : String(error)}\n${child.output().slice(-3000)}`,
      );
    });
  } else {
    await child.waitForLine(
      'worker started',
      (line) => line.includes('"msg":"worker started"'),
      startTimeoutMs,
    );
  }
  return { child, role, url };
}
