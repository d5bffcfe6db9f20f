import type { DatabaseProvider } from './provider.js';

/**
 * Which database a client (or a transaction's client) talks to. createDatabase registers every client it
 * makes; a transaction's client carries the provider Prisma generated it for. Anything else is SQLite.
 */

const providers = new WeakMap<object, DatabaseProvider>();

/** Called by createDatabase: which provider a client talks to. */
export function registerProvider(prisma: object, provider: DatabaseProvider): void {
  providers.set(prisma, provider);
}

export function providerOf(prisma: object): DatabaseProvider {
  const registered = providers.get(prisma);
  if (registered) return registered;
  const active = (prisma as { _activeProvider?: unknown })._activeProvider;
  return active === 'postgresql' ? 'postgresql' : 'sqlite';
}
