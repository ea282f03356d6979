/**
 * The writing half of the embedded file log: one append-only file per topic,
 * `<eventsDir>/<topic>.log`, holding record frames (record-frame-codec.ts).
 *
 * Batching and durability: `append()` only queues the frame; once per event-loop turn
 * (setImmediate) everything queued is written with ONE write(2) per topic, in order. That write is
 * synchronous: a few kilobytes into the page cache take microseconds, less than handing the write
 * to libuv's thread pool and waking the loop again for its completion
 * (https://nodejs.org/api/fs.html#synchronous-api). Written data
 * is in the OS page cache, so a crash of the gateway process loses nothing written; `fdatasync`
 * runs every `syncIntervalMs` (default 1000 ms) when something was written and on `flush()`, so a
 * power loss or kernel crash loses at most that interval — unless the caller awaited `flush()`.
 * Syncing every record would cost a disk round-trip per request; this keeps throughput at one
 * write per loop turn.
 *
 * Crash recovery: a torn last frame (the process died mid-write) is cut off when the topic file is
 * opened. A clean `close()` leaves `<topic>.log.clean` holding the file size, which lets the next
 * start skip the scan of the whole file.
 */
import { writeSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EventLogLogger } from '../../../schemas/event-log/event-log-logger.ts';
import { findFramesEnd } from '../read-file-frames.ts';

/** Options of the appender. */
export interface FileAppenderOptions {
  /** Directory of the topic files (created when missing). */
  readonly eventsDir: string;
  /** Max time written data may stay un-synced, ms. */
  readonly syncIntervalMs: number;
  readonly logger: EventLogLogger;
}

/** Appends frames to topic files in batches. */
export interface FileAppender {
  /** Queues one encoded frame for `topic` (a validated topic name); never throws. */
  append(topic: string, frame: Buffer): void;
  /** Resolves once every frame queued so far is written and fdatasync'ed. @throws the I/O error. */
  flush(): Promise<void>;
  /** Frames queued but not yet written. */
  pendingCount(): number;
  /** Calls `listener` with the topics written after each write that added frames; returns the unsubscribe function. */
  onWritten(listener: (topics: ReadonlySet<string>) => void): () => void;
  /** Flushes, marks the files clean and closes them. */
  close(): Promise<void>;
}

/** An open topic file and its size in bytes (= the position of the next frame). */
interface TopicFile {
  readonly handle: FileHandle;
  readonly path: string;
  size: number;
}

/** Delay before a failed write is retried, ms. */
const WRITE_RETRY_MS = 1000;

/** Creates the appender; files are opened lazily on the first frame of each topic. */
export function createFileAppender(options: FileAppenderOptions): FileAppender {
  let queues = new Map<string, Buffer[]>();
  let queued = 0;
  let scheduled = false;
  let chain: Promise<void> = Promise.resolve();
  const files = new Map<string, Promise<TopicFile>>();
  const dirty = new Set<TopicFile>();
  const listeners = new Set<(topics: ReadonlySet<string>) => void>();

  const enqueue = (step: () => Promise<void>): Promise<void> => {
    const run = chain.then(step);
    chain = run.catch(() => {});
    return run;
  };
  const onWriteError = (error: unknown): void => {
    options.logger('error', 'event log: write failed, retrying', { error: (error as Error).message, pending: queued });
    setTimeout(scheduleWrite, WRITE_RETRY_MS).unref();
  };
  function scheduleWrite(): void {
    if (scheduled) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      enqueue(writeQueued).catch(onWriteError);
    });
  }

  async function openTopic(topic: string): Promise<TopicFile> {
    let file = files.get(topic);
    if (!file) {
      file = openTopicFile(join(options.eventsDir, `${topic}.log`), options.logger);
      files.set(topic, file);
      file.catch(() => files.delete(topic));
    }
    return file;
  }

  async function writeQueued(): Promise<void> {
    if (queued === 0) return;
    const batch = queues;
    queues = new Map();
    const written = new Set<string>();
    try {
      for (const [topic, frames] of batch) {
        const file = await openTopic(topic);
        await appendFrames(file, frames);
        dirty.add(file);
        batch.delete(topic);
        queued -= frames.length;
        written.add(topic);
      }
    } finally {
      for (const [topic, frames] of batch) queues.set(topic, frames.concat(queues.get(topic) ?? []));
      if (written.size > 0) for (const listener of listeners) listener(written);
    }
  }

  async function syncDirty(): Promise<void> {
    const toSync = [...dirty];
    dirty.clear();
    for (const [index, file] of toSync.entries()) {
      try {
        await file.handle.datasync();
      } catch (error) {
        for (const left of toSync.slice(index)) dirty.add(left);
        throw error;
      }
    }
  }

  const syncTimer = setInterval(() => {
    if (dirty.size > 0) enqueue(syncDirty).catch(onWriteError);
  }, options.syncIntervalMs);
  syncTimer.unref();

  const flush = (): Promise<void> =>
    enqueue(async () => {
      await writeQueued();
      await syncDirty();
    });

  return {
    append(topic, frame) {
      const queue = queues.get(topic);
      if (queue) queue.push(frame);
      else queues.set(topic, [frame]);
      queued += 1;
      scheduleWrite();
    },
    flush,
    pendingCount: () => queued,
    onWritten(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      clearInterval(syncTimer);
      await flush();
      for (const file of files.values()) {
        const opened = await file.catch(() => undefined);
        if (!opened) continue;
        await writeFile(`${opened.path}.clean`, String(opened.size));
        await opened.handle.close();
      }
      files.clear();
    },
  };
}

/**
 * Writes the frames with one synchronous write(2) (looping only on a short write) at the file's end;
 * cuts a partial write off. @throws the write's error (the frames stay queued for the retry).
 */
async function appendFrames(file: TopicFile, frames: Buffer[]): Promise<void> {
  const data = frames.length === 1 && frames[0] ? frames[0] : Buffer.concat(frames);
  try {
    let done = 0;
    while (done < data.length) done += writeSync(file.handle.fd, data, done, data.length - done);
  } catch (error) {
    await file.handle.truncate(file.size).catch(() => {});
    throw error;
  }
  file.size += data.length;
}

/** Opens (creating) a topic file for appending and finds its end, cutting off a torn last frame. */
async function openTopicFile(path: string, logger: EventLogLogger): Promise<TopicFile> {
  await mkdir(join(path, '..'), { recursive: true });
  const handle = await open(path, 'a+');
  try {
    const { size } = await handle.stat();
    const cleanSize = await readFile(`${path}.clean`, 'utf8').then(Number, () => -1);
    await rm(`${path}.clean`, { force: true });
    const end = cleanSize === size ? size : await findFramesEnd(handle);
    if (end < size) {
      logger('warn', 'event log: cut off a partially written last record', { path, bytes: size - end });
      await handle.truncate(end);
    }
    return { handle, path, size: end };
  } catch (error) {
    await handle.close();
    throw error;
  }
}
