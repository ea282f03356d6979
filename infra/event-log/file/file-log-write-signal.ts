/**
 * Wakes the embedded file log's subscriptions in another thread of this process when records were
 * written: the all-in-one server writes on its request thread and consumes on a worker thread,
 * each with its own FileEventLog over the same data directory. Without this, a subscription in
 * the other thread would notice new records only at its next poll (up to a second when idle).
 *
 * The signal is one Int32 in a SharedArrayBuffer, handed to both threads' logs (a worker gets it
 * through `workerData`, which shares the memory rather than copying it). The writing side bumps it
 * after each write (`Atomics.add`) and wakes waiters (`Atomics.notify`) at most once per
 * NOTIFY_INTERVAL_MS, with a trailing wake so the last write is never missed; the reading side
 * waits on it with `Atomics.waitAsync` (https://tc39.es/ecma262/#sec-atomics.waitasync) and wakes
 * its subscriptions. No message is posted and nothing is allocated per write. Another process
 * never sees it: such consumers keep polling.
 */

/** The shared write counter: an Int32Array of length 1 over a SharedArrayBuffer. */
export type FileLogWriteSignal = Int32Array;

/** Which side of the signal a log is on: the writer announces its writes, a reader is woken by them. */
export interface FileLogWriteSignalSide {
  readonly signal: FileLogWriteSignal;
  readonly side: 'writer' | 'reader';
}

/** `Atomics.waitAsync` (ES2024; in Node since 16), typed here because the project's lib is ES2022. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync: (
      array: Int32Array,
      index: number,
      value: number,
      timeoutMs: number,
    ) => { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> };
  }
).waitAsync;

/** Most often the writer wakes the reader, ms: a reader sees a write within about this. */
const NOTIFY_INTERVAL_MS = 5;
/** Longest one wait lasts before the reader re-arms, ms: bounds how long a closed reader lingers. */
const WAIT_SLICE_MS = 1000;

/** A new signal for the logs of one data directory. */
export function createFileLogWriteSignal(): FileLogWriteSignal {
  return new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT));
}

/** The writing side: call after each write. */
export function announceWrites(signal: FileLogWriteSignal): { written(): void; close(): void } {
  let lastNotifyAt = Number.NEGATIVE_INFINITY;
  let trailing: NodeJS.Timeout | undefined;
  const notify = (): void => {
    trailing = undefined;
    lastNotifyAt = performance.now();
    Atomics.notify(signal, 0);
  };
  return {
    written() {
      Atomics.add(signal, 0, 1);
      if (trailing) return;
      const since = performance.now() - lastNotifyAt;
      if (since >= NOTIFY_INTERVAL_MS) notify();
      else trailing = setTimeout(notify, NOTIFY_INTERVAL_MS - since).unref();
    },
    close() {
      if (trailing) notify();
    },
  };
}

/**
 * The reading side: calls each listener when the writer announced writes. Waiting starts with
 * the first listener and ends (within WAIT_SLICE_MS) after close() or when none is left.
 */
export function watchWrites(signal: FileLogWriteSignal): {
  onWritten(listener: () => void): () => void;
  close(): void;
} {
  const listeners = new Set<() => void>();
  let seen = Atomics.load(signal, 0);
  let watching = false;
  let closed = false;

  const report = (): void => {
    const now = Atomics.load(signal, 0);
    if (now === seen) return;
    seen = now;
    for (const listener of listeners) listener();
  };
  const watch = (): void => {
    if (closed || listeners.size === 0) {
      watching = false;
      return;
    }
    watching = true;
    const wait = waitAsync(signal, 0, seen, WAIT_SLICE_MS);
    if (!wait.async) {
      report();
      setImmediate(watch);
      return;
    }
    void wait.value.then(() => {
      report();
      watch();
    });
  };

  return {
    onWritten(listener) {
      listeners.add(listener);
      if (!watching) watch();
      return () => listeners.delete(listener);
    },
    close() {
      closed = true;
      listeners.clear();
    },
  };
}
