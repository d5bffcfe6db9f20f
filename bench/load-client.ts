/** The bench's side of the load generator: one long-lived child process, one load run at a time. */
import type { FromChild, LoadRequest, LoadResult, ToChild } from './load-protocol.js';
import { type Child, forkTsx } from './processes.js';
import { withTimeout } from './wait.js';

export interface LoadGenerator {
  child: Child;
  run(request: Omit<LoadRequest, 'id'>): Promise<LoadResult>;
  close(): Promise<void>;
}

export async function startLoadGenerator(): Promise<LoadGenerator> {
  const child = forkTsx('load-generator', 'bench/load-generator.ts');
  const pending = new Map<number, { resolve: (r: LoadResult) => void; reject: (e: Error) => void }>();
  let ready!: () => void;
  const readyPromise = new Promise<void>((resolve) => (ready = resolve));
  child.process.on('message', (message: FromChild) => {
    if (message.type === 'ready') ready();
    else if (message.type === 'result') pending.get(message.id)?.resolve(message.result);
    else pending.get(message.id)?.reject(new Error(`load generator: ${message.message}`));
  });
  void child.exited.then(({ code, signal }) => {
    for (const p of pending.values()) p.reject(new Error(`load generator exited (${code ?? signal})`));
  });
  await withTimeout('the load generator to start', 30_000, readyPromise);

  let nextId = 0;
  return {
    child,
    async run(request) {
      const id = ++nextId;
      const result = new Promise<LoadResult>((resolve, reject) => pending.set(id, { resolve, reject }));
      child.process.send({ type: 'run', request: { ...request, id } } satisfies ToChild);
      try {
        // autocannon's own timeout is 10 s per request; the run itself ends after its duration.
        return await withTimeout(`load run ${id}`, (request.durationSec + 40) * 1000, result);
      } finally {
        pending.delete(id);
      }
    },
    async close() {
      await child.stop(5_000);
    },
  };
}
