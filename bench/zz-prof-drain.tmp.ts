import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Cleanup } from './cleanup.js';
import { benchShops, makeBurst } from './burst.js';
import { connectShops, insertBurst, scratchDatabase, withDatabase } from './database.js';
import { startEmulatorProcess } from './emulator.js';
import { sleep } from './wait.js';
const provider = (process.argv[2] ?? 'sqlite') as 'sqlite' | 'postgresql';
const n = Number(process.argv[3] ?? 1500);
const cleanup = new Cleanup();
try {
  const shops = benchShops(10);
  const burst = makeBurst({ fulfilments: n, shops, seed: 1 });
  const emulator = await startEmulatorProcess({ port: 4312, latencyMs: 20, accounts: shops.map((s) => ({ apiKey: s.apiKey, appName: s.appName, plan: 'Pro', balance: 1e9 })) });
  const db = await scratchDatabase(provider, cleanup);
  const key = `b:${randomBytes(32).toString('base64')}`;
  await connectShops(db.url, { trackingApiBaseUrl: emulator.baseUrl, encryptionKey: key, shops });
  const child = spawn(process.execPath, ['--cpu-prof', '--cpu-prof-dir=/tmp/prof-drain', '--import', 'tsx', 'src/app/main.ts', '--role', 'worker'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, SHOPIFY_API_KEY: 'k', SHOPIFY_API_SECRET: 's', SHOPIFY_APP_URL: 'http://127.0.0.1:3000', HOST: '127.0.0.1', PORT: '0', DATABASE_URL: db.url, TRACKING_API_BASE_URL: emulator.baseUrl, ENCRYPTION_KEY: key, LOG_LEVEL: 'warn' },
    stdio: 'inherit',
  });
  await sleep(4000);
  const before = await emulator.balances();
  await withDatabase(db.url, (c) => insertBurst(c, burst.deliveries));
  const t0 = performance.now();
  for (;;) {
    const now = await emulator.balances();
    let created = 0;
    for (const s of shops) created += before.get(s.appName)! - now.get(s.appName)!;
    if (created >= burst.trackers) break;
    await sleep(100);
  }
  console.log(provider, burst.trackers, 'trackers in', ((performance.now() - t0) / 1000).toFixed(2), 's');
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  await emulator.child.stop();
} finally { await cleanup.runAll(console.log); }
process.exit(0);
