/**
 * The reliability suite's sizes: the one place that reads RELIABILITY_SCALE (a positive float, default 1).
 * At 1 the suite runs the size (5 000 deliveries for the crash test); CI can run a bounded form
 * with e.g. RELIABILITY_SCALE=0.2. Every size has a floor so a tiny scale still tests something.
 */

function readScale(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return 1;
  const scale = Number(value);
  if (!Number.isFinite(scale) || scale <= 0) {
    throw new Error(`RELIABILITY_SCALE must be a positive number (a multiplier, default 1), got "${value}"`);
  }
  return scale;
}

export const RELIABILITY_SCALE = readScale(process.env.RELIABILITY_SCALE);

/** `base` deliveries at scale 1, times the scale, never fewer than `floor`. */
export function scaled(base: number, floor: number): number {
  return Math.max(floor, Math.round(base * RELIABILITY_SCALE));
}

export const sizes = {
  /** Distinct fulfilments/create deliveries in the kill -9 burst. */
  crashDeliveries: scaled(5_000, 40),
  /** Distinct deliveries of the duplicate storm (each sent 3× at once, then once more later). */
  duplicateDeliveries: scaled(800, 20),
  /** Distinct deliveries synced while the service misbehaves. */
  faultDeliveries: scaled(1_000, 20),
};

/** Requests in flight at once from the platform's side (the test process). */
export const burstConcurrency = 48;

/** The app children's LOG_LEVEL (warn: quiet, but their complaints show in failure messages). */
export const childLogLevel = process.env.RELIABILITY_CHILD_LOG_LEVEL ?? 'warn';
