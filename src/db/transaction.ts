import type { DatabaseClient, Tx } from './client.js';

/**
 * A use case's unit of work: `work` in one interactive ORM transaction. The use case decides where a
 * transaction begins and ends; every query it runs inside is a named query of its domain taking `tx`.
 */
export function inTransaction<T>(db: DatabaseClient, work: (tx: Tx) => Promise<T>): Promise<T> {
  return db.$transaction(work);
}
