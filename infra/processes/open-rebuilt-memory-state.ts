/**
 * The embedded server's state store (no REDIS_URL, no KAFKA_BROKERS): the memory store rebuilt
 * from the file log before the node admits a request, then snapshotted, so spend quotas and
 * channel health survive a restart, a crash and `kill -9`.
 *
 * Start: the newest snapshot (memory-state-snapshot.ts) when it is readable and the log still
 * holds what it covers, else nothing (with a warning for an unusable one); then the log after it
 * is folded (rebuild-memory-state.ts). A snapshot is written right after a rebuild that read
 * anything, then whenever the consumers have moved past `snapshotEveryBytes` of traffic log since
 * the last one or, when anything moved, every `snapshotEveryMs`, and at close (after the consumers
 * stopped). So a restart folds at most about `snapshotEveryBytes` of log plus the consumers' lag.
 *
 * What a snapshot covers, per topic: everything before the consumer group's committed position
 * (the consumers commit only after the store applied their batch) and before its watermark; the
 * committed positions are read before the content is copied, so the copy holds at least that.
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { TOPICS } from '../../schemas/topics.ts';
import { fileCommittedOffsets } from '../event-log/file/file-committed-offsets.ts';
import { createMemoryStateStore, type MemoryStateStore } from '../state-store/memory/memory-state-store.ts';
import {
  memoryStateSnapshotPath,
  readMemoryStateSnapshot,
  writeMemoryStateSnapshot,
  type MemoryStateSnapshot,
} from '../state-store/memory/memory-state-snapshot.ts';
import { FOLDED_TOPICS, rebuildMemoryState } from './rebuild-memory-state.ts';

/** Traffic log bytes after which a snapshot is due (64 MiB ≈ 135 000 requests at ~490 bytes of events each, test/bench/measure-state-rebuild.ts). */
export const DEFAULT_SNAPSHOT_EVERY_BYTES = 64 * 1024 * 1024;
/** Longest time between snapshots while the log moves, ms. */
export const DEFAULT_SNAPSHOT_EVERY_MS = 60_000;
/** How often the snapshot condition is checked, ms. */
const CHECK_EVERY_MS = 1000;

/** The consumer group that folds each topic into the store (consumers/start-consumer-pipeline.ts, prefix `tollgate.`). */
const GROUP_OF_TOPIC: Readonly<Record<string, string>> = {
  [TOPICS.usage]: 'tollgate.billing',
  [TOPICS.requests]: 'tollgate.health',
  [TOPICS.failovers]: 'tollgate.health',
};

type Log = (level: 'debug' | 'info' | 'warn' | 'error', message: string, extra?: Record<string, unknown>) => void;

/** Where the store is rebuilt from and how often it is snapshotted. */
export interface RebuiltMemoryStateOptions {
  readonly dataDir: string;
  /** TOLLGATE_TOPIC_PREFIX ('' or absent when none). */
  readonly topicPrefix?: string;
  readonly log: Log;
  /** Default DEFAULT_SNAPSHOT_EVERY_BYTES. */
  readonly snapshotEveryBytes?: number;
  /** ms; default DEFAULT_SNAPSHOT_EVERY_MS. */
  readonly snapshotEveryMs?: number;
}

/**
 * Rebuilds the store (see the module doc) and starts snapshotting it; `close()` writes the last
 * snapshot. A snapshot that cannot be written is logged and tried again at the next check.
 * @throws the log's I/O Error or the store's RangeError when the log cannot be folded
 */
export async function openRebuiltMemoryState(options: RebuiltMemoryStateOptions): Promise<MemoryStateStore> {
  const prefix = options.topicPrefix ?? '';
  const path = memoryStateSnapshotPath(options.dataDir);
  const started = performance.now();
  const snapshot = await usableSnapshot(options, prefix, path);
  const store = createMemoryStateStore(snapshot?.state);
  const rebuild = await rebuildMemoryState({
    dataDir: options.dataDir,
    topicPrefix: prefix,
    store,
    from: snapshot?.covers ?? {},
    onWarning: (message) => options.log('warn', message),
  });
  const ms = Math.round(performance.now() - started);
  options.log('info', 'state store: rebuilt from the event log', {
    fromSnapshot: snapshot !== undefined,
    records: rebuild.records,
    bytes: rebuild.bytes,
    ms,
  });
  let written: MemoryStateSnapshot | undefined = snapshot;
  let writtenChanges = store.changeCount();
  // The store is as good as a snapshot taken now: the time between snapshots counts from here.
  let writtenAt = Date.now();
  const write = async (covers: Readonly<Record<string, number>>): Promise<void> => {
    const changes = store.changeCount();
    const next: MemoryStateSnapshot = { writtenAt: Date.now(), covers, state: store.exportContent() };
    await writeMemoryStateSnapshot(path, next);
    options.log('debug', 'state store: snapshot written', { path, covers });
    written = next;
    writtenChanges = changes;
    writtenAt = next.writtenAt;
  };
  if (rebuild.bytes > 0) await write(rebuild.ends);
  const everyBytes = options.snapshotEveryBytes ?? DEFAULT_SNAPSHOT_EVERY_BYTES;
  const everyMs = options.snapshotEveryMs ?? DEFAULT_SNAPSHOT_EVERY_MS;
  let busy: Promise<void> | undefined;
  const check = async (force: boolean): Promise<void> => {
    const covers = await coveredPositions(options.dataDir, prefix, store);
    const moved = FOLDED_TOPICS.reduce(
      (sum, { topic }) => sum + Math.max(0, (covers[topic] ?? 0) - (written?.covers[topic] ?? 0)),
      0,
    );
    const changed = moved > 0 || store.changeCount() !== writtenChanges;
    const age = Date.now() - writtenAt;
    if (changed && (force || moved >= everyBytes || age >= everyMs)) await write(covers);
  };
  const run = (force: boolean): Promise<void> =>
    (busy ??= check(force)
      .catch((error: unknown) =>
        options.log('error', 'state store: snapshot not written', { path, error: (error as Error).message }),
      )
      .finally(() => (busy = undefined)));
  const timer = setInterval(() => void run(false), CHECK_EVERY_MS);
  timer.unref();
  return {
    ...store,
    async close() {
      clearInterval(timer);
      await busy;
      await run(true);
      await store.close();
    },
  };
}

/** The snapshot to start from, or undefined (none, unusable, or covering more log than is there: warned). */
async function usableSnapshot(
  options: RebuiltMemoryStateOptions,
  prefix: string,
  path: string,
): Promise<MemoryStateSnapshot | undefined> {
  const read = await readMemoryStateSnapshot(path);
  if (read.kind === 'none') return undefined;
  if (read.kind === 'unusable') {
    options.log('warn', 'state store: snapshot unusable, rebuilding from the start of the event log', {
      path,
      reason: read.reason,
    });
    return undefined;
  }
  for (const [topic, position] of Object.entries(read.snapshot.covers)) {
    const size = await stat(join(options.dataDir, 'events', `${prefix}${topic}.log`)).then(
      (s) => s.size,
      () => 0,
    );
    if (size < position) {
      options.log(
        'warn',
        'state store: snapshot covers more of the event log than it holds (removed or replaced?), rebuilding from the start',
        { path, topic, covers: position, size },
      );
      return undefined;
    }
  }
  return read.snapshot;
}

/**
 * Per folded topic, the byte position the store's content covers the log up to: the later of the
 * consumer group's committed position and the topic's watermark (a record position; that record
 * is then skipped by the watermark when folded again).
 */
async function coveredPositions(
  dataDir: string,
  prefix: string,
  store: MemoryStateStore,
): Promise<Record<string, number>> {
  const covers: Record<string, number> = {};
  for (const { topic } of FOLDED_TOPICS) {
    const committed = await fileCommittedOffsets(dataDir, `${prefix}${GROUP_OF_TOPIC[topic]}`, `${prefix}${topic}`);
    covers[topic] = Number(committed[0]?.offset ?? 0);
  }
  // Read after the committed positions: the copy taken next holds at least what they cover.
  for (const { topic, kind } of FOLDED_TOPICS)
    covers[topic] = Math.max(covers[topic] ?? 0, store.watermarkOf(kind, topic, 0) ?? 0);
  return covers;
}
