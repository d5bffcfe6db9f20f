import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Lets the event loop run pending I/O (incoming webhooks, answers from the tracking service) before the
 * next unit of work. On SQLite every query completes synchronously, so a loop of database work would
 * otherwise run as one unbroken chain of microtasks and hold every request and response of the process
 * until the whole backlog is done.
 */
export function yieldToEventLoop(): Promise<void> {
  return nextTurn();
}
