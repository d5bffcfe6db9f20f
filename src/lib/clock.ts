/** The time by a work context's clock (a test's or a bench's), or the real time when it has none. */
export function nowOf(work: { now?: (() => Date) | undefined }): Date {
  return work.now ? work.now() : new Date();
}
