/**
 * Graceful exit of a process on SIGINT/SIGTERM (https://nodejs.org/api/process.html#signal-events):
 * the first signal runs the shutdown steps in order and exits 0 (1 when a step throws); a second
 * signal exits at once, for an operator who does not want to wait for the drain.
 *
 * One stop can reach the process twice. `npm start` / `npm run consumers` exec node in place of
 * npm's shell (package.json), so npm's child is this process, and npm forwards SIGINT and SIGTERM
 * to its child (https://docs.npmjs.com/cli/v11/commands/npm-run-script; @npmcli/run-script's
 * signal manager). A signal sent to the process group — Ctrl-C in a terminal, `kill -TERM -PGID`,
 * most supervisors — therefore arrives once from the sender and once more from npm, a few
 * milliseconds apart. So one repeat of the first signal within REPEAT_WINDOW_MS is taken as the
 * same delivery; any later, further or different signal is a second signal.
 */
import { constants } from 'node:os';

/** Log sink of the process (its pino logger through levelLogOf). */
export type ShutdownLog = (level: 'info' | 'warn' | 'error', message: string, extra?: Record<string, unknown>) => void;

/**
 * How long after the first signal one repeat of the same signal still counts as the same delivery,
 * ms: the group's signal and npm's forward of it arrive well inside this; a person pressing
 * Ctrl-C again to skip the drain takes longer (and a third press always counts).
 */
export const REPEAT_WINDOW_MS = 500;

/**
 * On the first SIGINT/SIGTERM runs `steps` one after the other (e.g. drain and stop the gateway
 * node, then the consumers, then close the engines) and exits 0, or 1 when a step throws; a
 * second signal exits at once with 128 + the signal's number (130 for SIGINT, 143 for SIGTERM).
 * One repeat of the first signal arriving within REPEAT_WINDOW_MS of it is not a second signal
 * (the same stop delivered to the process group and forwarded by npm).
 * Log lines: `shutdown: signal received`, `shutdown: the same signal again, taken as the same
 * delivery`, `shutdown: complete`, `shutdown: closing failed`,
 * `shutdown: second signal; exiting at once without finishing the drain`.
 */
export function exitOnSignals(log: ShutdownLog, steps: ReadonlyArray<() => Promise<unknown> | undefined>): void {
  let first: { signal: NodeJS.Signals; at: number } | undefined;
  let repeatTaken = false;
  const shutdown = async (signal: NodeJS.Signals): Promise<void> => {
    if (first) {
      const sinceFirstMs = performance.now() - first.at;
      if (!repeatTaken && signal === first.signal && sinceFirstMs <= REPEAT_WINDOW_MS) {
        repeatTaken = true;
        log('info', 'shutdown: the same signal again, taken as the same delivery', {
          signal,
          sinceFirstMs: Math.round(sinceFirstMs),
        });
        return;
      }
      log('warn', 'shutdown: second signal; exiting at once without finishing the drain', { signal });
      process.exit(128 + constants.signals[signal]);
    }
    first = { signal, at: performance.now() };
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

/**
 * Until the returned function is called, SIGINT/SIGTERM end the process at once with 128 + the
 * signal's number (130/143), logging `shutdown: signal during start-up; exiting at once`. For the
 * start-up of a process that admits nothing yet (rebuilding state, opening engines): as PID 1 in a
 * container node ignores a signal it has no handler for
 * (https://nodejs.org/api/process.html#signal-events), so without this `docker stop` would wait for
 * its timeout. Call the returned function just before exitOnSignals takes over.
 */
export function exitAtOnceOnSignalsDuringStartUp(log: ShutdownLog): () => void {
  const exitAtOnce = (signal: NodeJS.Signals): void => {
    log('warn', 'shutdown: signal during start-up; exiting at once', { signal });
    process.exit(128 + constants.signals[signal]);
  };
  process.on('SIGINT', exitAtOnce);
  process.on('SIGTERM', exitAtOnce);
  return () => {
    process.off('SIGINT', exitAtOnce);
    process.off('SIGTERM', exitAtOnce);
  };
}
