/** Scripted answers: canned responses that replace the whole handling of the next matching call. */
import { z } from 'zod';
import { type Operation, operationSchema } from './faults.js';

export const scriptedResponseSchema = z.strictObject({
  operation: operationSchema,
  status: z.number().int().min(200).max(599).default(200),
  /** Any JSON value (sent as JSON), or a string (sent verbatim, as text). Absent = empty body. */
  body: z.unknown().optional(),
  headers: z.record(z.string(), z.string()).default({}),
});

export const scriptRequestSchema = z.strictObject({
  responses: z.array(scriptedResponseSchema).min(1),
});

export type ScriptedResponse = z.output<typeof scriptedResponseSchema>;

export class ScriptQueue {
  private queue: ScriptedResponse[] = [];

  /** Validates and appends; throws a ZodError on bad input. */
  push(input: unknown): number {
    const { responses } = scriptRequestSchema.parse(input);
    this.queue.push(...responses);
    return this.queue.length;
  }

  /** Removes and returns the first queued answer for this operation, if any. */
  take(op: Operation): ScriptedResponse | undefined {
    if (this.queue.length === 0) return undefined;
    const index = this.queue.findIndex((r) => r.operation === op);
    if (index < 0) return undefined;
    return this.queue.splice(index, 1)[0];
  }

  pending(): ScriptedResponse[] {
    return this.queue.slice();
  }

  clear(): void {
    this.queue = [];
  }
}
