/**
 * Graceful exit of a process on SIGINT/SIGTERM (https://nodejs.org/api/process.html#signal-events):
 * the first signal runs the shutdown steps in order and exits 0 (1 when a step throws); a second
 * signal exits at once, for an operator who does not want to wait for the drain.
 */
import { constants } from 'node:os';

/** Log sink of the process (its pino logger through levelLogOf). */
export type ShutdownLog = (level: 'info' | 'warn' | 'error', message: string, extra?: Record<string, unknown>) => void;

/**
 * On the first SIGINT/SIGTERM runs `steps` one after the other (e.g. drain and stop the gateway
 * node, then the consumers, then close the engines) and exits 0, or 1 when a step throws; a
 * second signal exits at once with 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).
 * Log lines: `shutdown: signal received`, `shutdown: complete`, `shutdown: closing failed`,
 * `shutdown: second signal; exiting at once without finishing the drain`.
 */
export function exitOnSignals(log: ShutdownLog, steps: ReadonlyArray<() => Promise<unknown> | undefined>): void {
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
    if (stopping) {
      log('warn', 'shutdown: second signal; exiting at once without finishing the drain', { signal });
      process.exit(128 + constants.signals[signal]);
    }
    stopping = true;
    log('info', 'shutdown: signal received', { signal });
    try {
      for (const step of steps) await step();
    } catch (error) {
      log('error', 'shutdown: closing failed', { reason: (error as Error).message });
      process.exit(1);
    }
    log('info', 'shutdown: complete');
    process.exit(0);
  };
  process.on('SIGINT', (signal) => void shutdown(signal));
  process.on('SIGTERM', (signal) => void shutdown(signal));
}
