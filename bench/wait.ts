/** Bounded waiting: every wait in the bench has a deadline. */

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export class TimeoutError extends Error {
  constructor(what: string, ms: number) {
    super(`timed out after ${(ms / 1000).toFixed(1)} s waiting for ${what}`);
    this.name = 'TimeoutError';
  }
}

/** Resolves with the promise's value, or rejects with a TimeoutError naming `what` after `ms`. */
export async function withTimeout<T>(what: string, ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new TimeoutError(what, ms)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Polls `check` every `intervalMs` until it returns true (an error counts as false); rejects after
 * `timeoutMs`, or as soon as `failIf` names a reason to give up.
 */
export async function waitUntil(
  what: string,
  check: () => Promise<boolean>,
  options: { timeoutMs: number; intervalMs?: number; failIf?: () => string | null },
): Promise<void> {
  const interval = options.intervalMs ?? 100;
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const reason = options.failIf?.() ?? null;
    if (reason !== null) throw new Error(`gave up waiting for ${what}: ${reason}`);
    if (await check().catch(() => false)) return;
    if (Date.now() >= deadline) throw new TimeoutError(what, options.timeoutMs);
    await sleep(interval);
  }
}

/** `fetch` with a per-request deadline. */
export async function fetchWithTimeout(url: string, init: RequestInit = {}, timeoutMs = 10_000) {
  return fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
}
