/**
 * The virtual clock that drives tracker lifecycles:
 * now = start time + real elapsed time × speed + manually advanced offset.
 * It never goes backwards (speed is positive and advances are non-negative).
 */
/** 9999-12-31T23:59:59.999Z: later times have no four-digit year. */
const latestMs = 253_402_300_799_999;

export interface VirtualClockOptions {
  /** Virtual time at start, in epoch ms (default: the real time at construction). */
  startMs?: number;
  /** Virtual seconds per real second (default 1). */
  speed?: number;
  /** Real monotonic time source in ms (default performance.now); injectable for tests. */
  realNow?: () => number;
}

export class VirtualClock {
  readonly startMs: number;
  readonly speed: number;
  private readonly realNow: () => number;
  private readonly realStart: number;
  private offsetMs = 0;

  constructor(options: VirtualClockOptions = {}) {
    const speed = options.speed ?? 1;
    if (!Number.isFinite(speed) || speed <= 0) throw new RangeError('clock speed must be a positive number');
    this.speed = speed;
    this.startMs = options.startMs ?? Date.now();
    this.realNow = options.realNow ?? (() => performance.now());
    this.realStart = this.realNow();
  }

  /** Current virtual time in epoch ms. */
  nowMs(): number {
    return this.startMs + (this.realNow() - this.realStart) * this.speed + this.offsetMs;
  }

  /** Current virtual time. */
  now(): Date {
    return new Date(this.nowMs());
  }

  /** Moves the clock forward by this many (virtual) seconds. */
  advance(seconds: number): void {
    if (!Number.isFinite(seconds) || seconds < 0)
      throw new RangeError('seconds must be a finite number >= 0');
    if (this.nowMs() + seconds * 1000 > latestMs) throw new RangeError('the clock cannot pass the year 9999');
    this.offsetMs += seconds * 1000;
  }

  /** Total manually advanced time, in ms. */
  advancedMs(): number {
    return this.offsetMs;
  }
}
