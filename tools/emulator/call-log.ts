/** The bounded log of calls to the five tracking operations. It never holds an api key. */
import type { FaultKind, Operation } from './faults.js';

export interface CallLogEntry {
  /** One of the five operations, or `push`: a tracking-webhook POST the emulator made (one per attempt). */
  operation: Operation | 'push';
  method: string;
  path: string;
  /** Parsed JSON body; the raw text when it is not JSON; null when the body was empty. */
  body: unknown;
  /** HTTP status answered; 0 when no answer was given (timeout or reset fault). */
  httpStatus: number;
  /** Real (wall-clock) time the call arrived, ISO 8601. */
  at: string;
  /** The `app-name` header, or null when absent. */
  appName: string | null;
  /** The injected fault, 'script' for a scripted answer, or null for a normal answer. */
  fault: FaultKind | 'script' | 'drop' | 'duplicate' | 'reorder' | null;
}

export interface CallFilter {
  operation?: string;
  appName?: string;
}

/** Default bound: the newest 200 000 calls are kept. */
export const defaultCallLogLimit = 200_000;

export class CallLog {
  private ring: CallLogEntry[] = [];
  private head = 0;

  constructor(readonly limit: number = defaultCallLogLimit) {
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError('call log limit must be a positive integer');
  }

  add(entry: CallLogEntry): void {
    if (this.ring.length < this.limit) {
      this.ring.push(entry);
      return;
    }
    this.ring[this.head] = entry;
    this.head = (this.head + 1) % this.limit;
  }

  /** Entries oldest first, optionally filtered. */
  list(filter: CallFilter = {}): CallLogEntry[] {
    const ordered =
      this.head === 0 ? this.ring.slice() : [...this.ring.slice(this.head), ...this.ring.slice(0, this.head)];
    return ordered.filter(
      (e) =>
        (filter.operation === undefined || e.operation === filter.operation) &&
        (filter.appName === undefined || e.appName === filter.appName),
    );
  }

  get size(): number {
    return this.ring.length;
  }

  clear(): void {
    this.ring = [];
    this.head = 0;
  }
}
