/**
 * Wakes the embedded file log's subscriptions in another thread of this process when records were
 * written: the all-in-one server writes on its request thread and consumes on a worker thread,
 * each with its own FileEventLog over the same data directory. Without this, a subscription in
 * the other thread would notice new records only at its next poll (up to a second when idle).
 *
 * The signal is a few Int32s in a SharedArrayBuffer, handed to both threads' logs (a worker gets it
 * through `workerData`, which shares the memory rather than copying it): slot 0 counts every write,
 * and each of TOPIC_SLOTS further slots counts the writes to the topics whose name hashes to it.
 * The writing side bumps them after each write (`Atomics.add`) and wakes waiters (`Atomics.notify`)
 * at most once per NOTIFY_INTERVAL_MS, with a trailing wake so the last write is never missed; the
 * reading side waits on slot 0 with `Atomics.waitAsync` (https://tc39.es/ecma262/#sec-atomics.waitasync)
 * and wakes its subscriptions with the topic slots that moved, so a subscription to topics nobody
 * wrote (the config topic, alerts, failovers under ordinary traffic) is not woken to read its files
 * again at every wake. No message is posted and nothing is allocated per write. Another process
 * never sees it: such consumers keep polling.
 */

/** The shared write counters: an Int32Array of length 1 + TOPIC_SLOTS over a SharedArrayBuffer (slot 0: every write). */
export type FileLogWriteSignal = Int32Array;

/**
 * The topics a wake-up reports as written: `has(topic)` is true for every topic written since the
 * previous wake-up, and may be true for another topic that shares its slot (a spurious wake-up,
 * never a missed one).
 */
export interface TopicsWritten {
  has(topic: string): boolean;
}

/** Per-topic counters after the all-writes counter: topics are hashed into this many slots. */
export const TOPIC_SLOTS = 32;

/** The slot (1 … TOPIC_SLOTS) of `topic`: FNV-1a of its UTF-16 code units, modulo TOPIC_SLOTS. */
export function topicSlot(topic: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < topic.length; i += 1) hash = Math.imul(hash ^ topic.charCodeAt(i), 0x01000193);
  return 1 + ((hash >>> 0) % TOPIC_SLOTS);
}

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
  return new Int32Array(new SharedArrayBuffer((1 + TOPIC_SLOTS) * Int32Array.BYTES_PER_ELEMENT));
}

/** The writing side: call `written` after each write, with the topics it wrote to. */
export function announceWrites(signal: FileLogWriteSignal): {
  written(topics: Iterable<string>): void;
  close(): void;
} {
  let lastNotifyAt = Number.NEGATIVE_INFINITY;
  let trailing: NodeJS.Timeout | undefined;
  const notify = (): void => {
    trailing = undefined;
    lastNotifyAt = performance.now();
    Atomics.notify(signal, 0);
  };
  return {
    written(topics) {
      if (signal.length > TOPIC_SLOTS) for (const topic of topics) Atomics.add(signal, topicSlot(topic), 1);
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
 * The reading side: calls each listener when the writer announced writes, with the topics written
 * since the last call (TopicsWritten; undefined — any topic — for a signal without topic slots).
 * Waiting starts with the first listener and ends (within WAIT_SLICE_MS) after close() or when
 * none is left.
 */
export function watchWrites(signal: FileLogWriteSignal): {
  onWritten(listener: (topics: TopicsWritten | undefined) => void): () => void;
  close(): void;
} {
  const listeners = new Set<(topics: TopicsWritten | undefined) => void>();
  const hasTopicSlots = signal.length > TOPIC_SLOTS;
  let seen = Atomics.load(signal, 0);
  // Per-slot counts as of the last report; `moved[slot]` marks the slots that changed since.
  const seenSlots = new Int32Array(signal.length);
  const moved = new Uint8Array(signal.length);
  for (let slot = 1; slot < signal.length; slot += 1) seenSlots[slot] = Atomics.load(signal, slot);
  const written: TopicsWritten = { has: (topic) => moved[topicSlot(topic)] === 1 };
  let watching = false;
  let closed = false;

  const report = (): void => {
    const now = Atomics.load(signal, 0);
    if (now === seen) return;
    seen = now;
    if (!hasTopicSlots) {
      for (const listener of listeners) listener(undefined);
      return;
    }
    for (let slot = 1; slot < signal.length; slot += 1) {
      const count = Atomics.load(signal, slot);
      moved[slot] = count === seenSlots[slot] ? 0 : 1;
      seenSlots[slot] = count;
    }
    for (const listener of listeners) listener(written);
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
