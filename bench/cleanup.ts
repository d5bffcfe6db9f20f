/**
 * What the bench must undo whatever happens: scratch databases, temp folders, child processes. Steps run
 * newest first, each bounded in time; the same list runs at the end, on error and on SIGINT / SIGTERM.
 */
import { killAllChildrenNow, stopAllChildren } from './processes.js';
import { withTimeout } from './wait.js';

interface Step {
  name: string;
  run: () => Promise<void>;
}

export class Cleanup {
  private steps: Step[] = [];
  private running: Promise<void> | null = null;
  /** Set once SIGINT / SIGTERM arrived: what fails afterwards is a consequence, not news. */
  interrupted = false;

  /** Registers an undo step; returns a function that runs it now (once) and forgets it. */
  add(name: string, run: () => Promise<void>): () => Promise<void> {
    let done: Promise<void> | null = null;
    const step: Step = {
      name,
      run: () => {
        done ??= run();
        return done;
      },
    };
    this.steps.push(step);
    return async () => {
      // Forgotten only once done: a cleanup that starts meanwhile waits for it instead of exiting under it.
      try {
        await step.run();
      } finally {
        this.steps = this.steps.filter((s) => s !== step);
      }
    };
  }

  /** Stops every child, then runs every step (newest first). Errors are reported, not thrown. */
  runAll(log: (line: string) => void): Promise<void> {
    this.running ??= (async () => {
      await stopAllChildren().catch(() => {});
      // Steps registered while cleaning up (a database being created right now) get a second pass.
      const done = new Set<Step>();
      for (let pass = 0; pass < 3; pass++) {
        const steps = [...this.steps].reverse().filter((s) => !done.has(s));
        if (steps.length === 0) break;
        for (const step of steps) {
          done.add(step);
          try {
            await withTimeout(`cleanup: ${step.name}`, 20_000, step.run());
          } catch (error) {
            log(`cleanup: ${step.name} failed: ${error instanceof Error ? error.message : String(error)}`);
          }
        }
      }
    })();
    return this.running;
  }

  /** SIGINT / SIGTERM: clean up, then exit 130 / 143. A second signal kills the children and exits at once. */
  installSignalHandlers(log: (line: string) => void): void {
    let signalled = false;
    const onSignal = (signal: NodeJS.Signals) => {
      if (signalled) {
        killAllChildrenNow();
        process.exit(1);
      }
      signalled = true;
      this.interrupted = true;
      log(`\n${signal}: stopping children and removing scratch databases…`);
      void this.runAll(log).finally(() => process.exit(signal === 'SIGINT' ? 130 : 143));
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
    process.on('exit', killAllChildrenNow);
  }
}
