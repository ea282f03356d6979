/**
 * Rebuilds the embedded state store from the embedded file log (infra/event-log/file/): reads the
 * config topic whole into the consumers' control-plane fold (the price book as of every revision),
 * then the traffic topics from the given byte positions (0, or where a snapshot's coverage ends) to
 * their last whole record, and folds them with consumers/state-rebuild/fold-traffic-into-state.ts —
 * the billing and health consumers' own code. Each topic's spend or health watermark then stands
 * on its last record read, so the consumer thread's later writes for records folded here change
 * nothing. Records that do not decode are skipped with one warning per topic, as the consumers do.
 */
import type { FileHandle } from 'node:fs/promises';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { ConsumerControlPlane } from '../../consumers/control-plane/consumer-control-plane.ts';
import {
  createTrafficStateFold,
  type TrafficStateFold,
} from '../../consumers/state-rebuild/fold-traffic-into-state.ts';
import type { ConsumedTrafficEvent } from '../../consumers/traffic-consumer.ts';
import { decodeControlEvent, isControlEventValue } from '../../schemas/control-plane/control-event-codec.ts';
import { type ControlEvent } from '../../schemas/control-plane/control-plane-events.ts';
import { decodeTrafficEvent } from '../../schemas/events/traffic-event-codec.ts';
import type { WatermarkKind } from '../../schemas/state-store/applied-watermark.ts';
import { TOPICS, CONFIG_TOPIC } from '../../schemas/topics.ts';
import { readFileFrames } from '../event-log/read-file-frames.ts';
import type { PositionedFrame } from '../event-log/record-frame-codec.ts';
import type { MemoryStateStore } from '../state-store/memory/memory-state-store.ts';

/** The traffic topics the state store is a projection of, and the watermark each one moves. */
export const FOLDED_TOPICS: ReadonlyArray<{ readonly topic: string; readonly kind: WatermarkKind }> = [
  { topic: TOPICS.usage, kind: 'spend' },
  { topic: TOPICS.requests, kind: 'health' },
  { topic: TOPICS.failovers, kind: 'health' },
];

/** Records read per batch. */
const BATCH_RECORDS = 2000;
/** Bytes read per file read (4 MiB). */
const CHUNK_BYTES = 4 * 1024 * 1024;

/** What a rebuild reads. */
export interface RebuildMemoryStateOptions {
  /** The data directory holding `events/<prefix><topic>.log`. */
  readonly dataDir: string;
  /** TOLLGATE_TOPIC_PREFIX of the file names ('' when none); positions name the topic without it. */
  readonly topicPrefix: string;
  /** The store to fold into (empty, or created from a snapshot). */
  readonly store: MemoryStateStore;
  /** topic → byte position to start at (a record's position or a file end); 0 when absent. */
  readonly from: Readonly<Record<string, number>>;
  readonly onWarning: (message: string) => void;
}

/** What a rebuild did. */
export interface MemoryStateRebuild {
  /** Traffic records folded (config records excluded). */
  readonly records: number;
  /** Bytes of traffic log read. */
  readonly bytes: number;
  /** topic → byte position after its last whole record: where a later fold resumes. */
  readonly ends: Record<string, number>;
}

/**
 * Folds the log into `store` (see the module doc).
 * @throws the I/O Error of a topic file (other than a missing one, which holds nothing), or the
 *   store's RangeError when a spend counter would overflow
 */
export async function rebuildMemoryState(options: RebuildMemoryStateOptions): Promise<MemoryStateRebuild> {
  const prices = new ConsumerControlPlane();
  await readTopic(join(options.dataDir, 'events', `${options.topicPrefix}${CONFIG_TOPIC}.log`), 0, (frames) => {
    prices.applyBatch(decodeControlFrames(frames, options.onWarning));
  });
  const fold = createTrafficStateFold({
    state: options.store,
    budgets: options.store.budgets,
    prices: { bookFor: (revision, at) => prices.bookFor(revision, at), priceRevision: () => prices.fold.priceRevision },
    onWarning: options.onWarning,
  });
  let records = 0;
  let bytes = 0;
  const ends: Record<string, number> = {};
  for (const { topic, kind } of FOLDED_TOPICS) {
    const start = options.from[topic] ?? 0;
    const read = await foldTopic(options, topic, kind, start, fold);
    records += read.records;
    bytes += read.end - start;
    ends[topic] = read.end;
  }
  return { records, bytes, ends };
}

/** Folds one traffic topic from `start`; returns the records folded and where its whole records end. */
async function foldTopic(
  options: RebuildMemoryStateOptions,
  topic: string,
  kind: WatermarkKind,
  start: number,
  fold: TrafficStateFold,
): Promise<{ records: number; end: number }> {
  let records = 0;
  let undecodable = 0;
  let last: number | undefined;
  const end = await readTopic(
    join(options.dataDir, 'events', `${options.topicPrefix}${topic}.log`),
    start,
    async (frames) => {
      const events: ConsumedTrafficEvent[] = [];
      for (const { position, record } of frames) {
        try {
          events.push({
            ...decodeTrafficEvent(record.value),
            position: { topic, partition: 0, offset: String(position) },
          });
        } catch {
          undecodable += 1;
        }
      }
      await fold(events);
      records += frames.length;
      last = frames[frames.length - 1]?.position ?? last;
    },
  );
  if (undecodable > 0) options.onWarning(`state rebuild: ${undecodable} undecodable record(s) of ${topic} skipped`);
  if (last !== undefined) options.store.markFolded(kind, { topic, partition: 0, offset: String(last) });
  return { records, end };
}

/**
 * Hands the whole frames of a topic file from `start` to `onFrames`, BATCH_RECORDS at a time, in
 * order; returns the position after the last whole frame (`start` for a missing file).
 */
async function readTopic(
  path: string,
  start: number,
  onFrames: (frames: PositionedFrame[]) => unknown,
): Promise<number> {
  let handle: FileHandle;
  try {
    handle = await open(path, 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return start;
    throw error;
  }
  try {
    let position = start;
    for (;;) {
      const chunk = await readFileFrames(handle, position, BATCH_RECORDS, CHUNK_BYTES);
      if (chunk.frames.length === 0) return position;
      await onFrames(chunk.frames);
      position = chunk.nextPosition;
    }
  } finally {
    await handle.close();
  }
}

/** The config records' events (sync markers, empty values, are not events; undecodable ones are reported). */
function decodeControlFrames(
  frames: ReadonlyArray<PositionedFrame>,
  onWarning: (message: string) => void,
): ControlEvent[] {
  const events: ControlEvent[] = [];
  for (const { position, record } of frames) {
    if (!isControlEventValue(record.value)) continue;
    try {
      events.push(decodeControlEvent(record.value));
    } catch (error) {
      onWarning(`state rebuild: undecodable config record at ${position} skipped: ${(error as Error).message}`);
    }
  }
  return events;
}
