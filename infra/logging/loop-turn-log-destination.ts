/**
 * A pino destination that writes the lines logged during one turn of the event loop with one
 * write(2) instead of one each. A loaded gateway ends several requests per turn (epoll hands it
 * every socket that became readable at once), and each ended request logs its `request completed`
 * line; one write per turn costs a system call where there were several. A line is written at the
 * latest once the current turn's I/O callbacks are done (`setImmediate`,
 * https://nodejs.org/en/learn/asynchronous-work/event-loop-timers-and-nexttick, "check" phase), so
 * a quiet process writes each line at once and start-up lines are never held; the lines still
 * pending when the process exits are written synchronously from its `exit` event, and any line
 * logged after that goes straight out. Only a process killed outright (SIGKILL, an abort) can lose
 * the lines of its last turn.
 *
 * The writing itself is SonicBoom's (https://github.com/pinojs/sonic-boom), synchronous, as
 * `pino.destination({ sync: true })` makes it: partial writes, EAGAIN on a non-blocking pipe and
 * EPIPE are handled there.
 */
import { pino, type DestinationStream } from 'pino';

/** A destination with a way to write what is pending now (pino's `logger.flush(done)` calls `flush`). */
export interface LoopTurnLogDestination extends DestinationStream {
  /** Writes the lines not yet written, synchronously, then calls `done` (pino's flush callback) when given. */
  flush(done?: (error?: Error) => void): void;
}

/** Destinations with lines pending, written from the process's `exit` event. */
const withPendingLines = new Set<() => void>();
let exiting = false;
let exitListenerAdded = false;

/** Writes every destination's pending lines when the process exits, once for all destinations. */
function flushAtExit(): void {
  if (exitListenerAdded) return;
  exitListenerAdded = true;
  process.once('exit', () => {
    exiting = true;
    for (const flush of [...withPendingLines]) flush();
  });
}

/**
 * A destination writing to file descriptor `fd` (default 1, stdout), one write per turn of the
 * event loop.
 */
export function loopTurnLogDestination(fd = 1): LoopTurnLogDestination {
  const output = pino.destination({ dest: fd, sync: true });
  let pending = '';
  let scheduled = false;
  const flush = (): void => {
    scheduled = false;
    withPendingLines.delete(flush);
    if (pending === '') return;
    const lines = pending;
    pending = '';
    output.write(lines);
  };
  flushAtExit();
  return {
    write(line: string): void {
      if (exiting) {
        output.write(line);
        return;
      }
      pending += line;
      if (scheduled) return;
      scheduled = true;
      withPendingLines.add(flush);
      setImmediate(flush);
    },
    flush(done) {
      flush();
      done?.();
    },
  };
}
