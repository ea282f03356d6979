/**
 * Wakes the embedded file log's subscriptions in other threads of this process when this thread
 * wrote records: the all-in-one server writes on its request thread and consumes on a worker
 * thread, each with its own FileEventLog over the same data directory. Without this, a
 * subscription in another thread would notice new records only at its next poll (up to a second
 * when idle). Carried by a BroadcastChannel named after the data directory
 * (https://nodejs.org/api/worker_threads.html#class-broadcastchannel-extends-eventtarget), which
 * reaches every thread of the process and never another process: those still poll.
 *
 * A writer posts at most one wake-up per WAKEUP_INTERVAL_MS, plus one at the end of a busy
 * interval so the last write is never missed; a subscriber therefore sees a write within about
 * that interval.
 */
import { resolve } from 'node:path';
import { BroadcastChannel } from 'node:worker_threads';

/** Longest a write waits before other threads are told about it, ms. */
const WAKEUP_INTERVAL_MS = 10;

/** This thread's end of the data directory's wake-up channel. */
export interface CrossThreadWakeups {
  /** Tells the other threads that records were written (throttled, see the module doc). */
  written(): void;
  /** Calls `listener` when another thread wrote; returns the unsubscribe function. */
  onWrittenElsewhere(listener: () => void): () => void;
  close(): void;
}

/** Opens the wake-up channel of `dataDir` (resolved to an absolute path); it never keeps the process alive. */
export function openCrossThreadWakeups(dataDir: string): CrossThreadWakeups {
  const channel = new BroadcastChannel(`tollgate-file-event-log:${resolve(dataDir)}`);
  const listeners = new Set<() => void>();
  channel.onmessage = () => {
    for (const listener of listeners) listener();
  };
  channel.unref();
  let lastPostAt = 0;
  let trailing: NodeJS.Timeout | undefined;
  let closed = false;
  const post = (): void => {
    trailing = undefined;
    if (closed) return;
    lastPostAt = performance.now();
    channel.postMessage(0);
  };
  return {
    written() {
      if (closed || trailing) return;
      const sinceLast = performance.now() - lastPostAt;
      if (sinceLast >= WAKEUP_INTERVAL_MS) post();
      else trailing = setTimeout(post, WAKEUP_INTERVAL_MS - sinceLast).unref();
    },
    onWrittenElsewhere(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    close() {
      closed = true;
      if (trailing) clearTimeout(trailing);
      listeners.clear();
      channel.close();
    },
  };
}
