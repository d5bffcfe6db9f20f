/** The bench's parameters: the full run (about 7 minutes) and `--quick` (about 2 minutes). */

export interface BenchParams {
  mode: 'full' | 'quick';
  intake: {
    /** Closed-loop connections of the load generator (max-rate and half-load runs). */
    connections: number;
    /** Discarded run before each measured max-rate run. */
    warmupSec: number;
    durationSec: number;
    halfLoadSec: number;
  };
  drain: {
    fulfillments: number;
    shops: number;
    seed: number;
    /** EMULATOR_LATENCY_MS */
    latencyMs: number;
    /** A drain that has not finished by then is reported as incomplete. */
    timeoutSec: number;
    progressEverySec: number;
  };
  /**
   * Start the drains' app processes (idle: their worker polls an empty queue twice a second) while the intake
   * servers start, instead of after the intake: saves their start-up time, at the cost of a little idle
   * polling during the intake measurements. Quick mode only.
   */
  prepareDrainsEarly: boolean;
  /** Status pushes (bench/pushes.ts): a burst at the app, and reads per delivered parcel with and without. */
  pushes: {
    count: number;
    perTracker: number;
    senders: number;
    timeoutSec: number;
    /** Parcels per shop of the pushes-versus-polling run, and its emulator clock speed. */
    parcels: number;
    clockSpeed: number;
    lifecycleTimeoutSec: number;
  };
  /** The problem sweep (bench/problems.ts): shipments due an evaluation, on each database. */
  problems: { trackers: number };
  /** Watchdog for the whole run: past it, everything is stopped and the bench fails. */
  totalTimeoutSec: number;
}

export function benchParams(quick: boolean): BenchParams {
  return quick
    ? {
        mode: 'quick',
        intake: { connections: 32, warmupSec: 0.5, durationSec: 2.5, halfLoadSec: 1.5 },
        drain: {
          fulfillments: 250,
          shops: 10,
          seed: 20261118,
          latencyMs: 20,
          timeoutSec: 8,
          progressEverySec: 2,
        },
        prepareDrainsEarly: true,
        pushes: {
          count: 10_000,
          perTracker: 5,
          senders: 32,
          timeoutSec: 60,
          parcels: 8,
          clockSpeed: 3600,
          lifecycleTimeoutSec: 90,
        },
        problems: { trackers: 5_000 },
        totalTimeoutSec: 330,
      }
    : {
        mode: 'full',
        intake: { connections: 32, warmupSec: 3, durationSec: 10, halfLoadSec: 10 },
        drain: {
          fulfillments: 10_000,
          shops: 10,
          seed: 20261118,
          latencyMs: 20,
          timeoutSec: 240,
          progressEverySec: 5,
        },
        prepareDrainsEarly: false,
        pushes: {
          count: 10_000,
          perTracker: 5,
          senders: 32,
          timeoutSec: 120,
          parcels: 30,
          clockSpeed: 3600,
          lifecycleTimeoutSec: 120,
        },
        problems: { trackers: 20_000 },
        totalTimeoutSec: 1500,
      };
}
