import { z } from 'zod';

/** One problem with the request, named by the field it concerns ('' for the body as a whole). */
export interface InputIssue {
  field: string;
  message: string;
}

export type Parsed<T> = { ok: true; value: T } | { ok: false; issues: InputIssue[] };

/**
 * Parses request input with a zod schema (either build: `zod`, or `zod/mini` for a schema the page shares,
 * src/settings); on failure, field-level issues for the 400 answer.
 */
export function parseInput<S extends z.core.$ZodType>(schema: S, input: unknown): Parsed<z.output<S>> {
  const result = z.safeParse(schema, input);
  if (result.success) return { ok: true, value: result.data };
  return {
    ok: false,
    issues: result.error.issues.map((issue) => ({
      field: issue.path.map(String).join('.'),
      message: issue.message,
    })),
  };
}
