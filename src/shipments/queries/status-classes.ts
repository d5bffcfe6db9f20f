import type { DatabaseClient } from '../../db/client.js';

/**
 * The StatusClass table's read (src/shipments/status-classes.ts compares it with the status table to
 * write a forward migration). The rows are written only by migrations, never through a client.
 */

/** One StatusClass row as stored. */
export interface StoredStatusClass {
  code: string;
  detail: string;
  parcelGroup: string;
  final: boolean;
  trouble: boolean;
}

/**
 * Every StatusClass row, by code then detail; null when the table does not exist yet (a database before the
 * migration that adds it: Prisma's P2021).
 */
export async function statusClassTable(prisma: DatabaseClient): Promise<StoredStatusClass[] | null> {
  try {
    return await prisma.statusClass.findMany({ orderBy: [{ code: 'asc' }, { detail: 'asc' }] });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'P2021') return null; // the table does not exist yet
    throw error;
  }
}
