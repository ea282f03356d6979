/**
 * "The log as it was when the command started": the end offsets of some topics taken once
 * (EventLog.endOffsets), and a record of how far a reader got on each of their partitions. A
 * partition with end E is read to its end once a record with offset >= E - 1 was seen (the
 * port's rule, the same for Kafka's dense offsets and the file log's byte positions); a partition
 * with E = 0 (empty) and a topic without partitions are read at once.
 */
import type { EventLog } from '../../schemas/event-log/event-log.ts';

/** How far one partition has been read. */
export interface PartitionProgress {
  readonly topic: string;
  readonly partition: number;
  /** The end offset taken at the start (decimal). */
  readonly end: string;
  /** Highest offset seen so far (decimal); undefined before the first record. */
  readonly seen: string | undefined;
}

/** End offsets of a set of topics, and the reading progress against them. */
export interface EndOffsetSnapshot {
  /** Topics that had at least one record when the snapshot was taken. */
  readonly nonEmptyTopics: ReadonlyArray<string>;
  /** Whether a record lies before the end of its partition (false for partitions the snapshot does not know). */
  isBeforeEnd(topic: string, partition: number, offset: string): boolean;
  /** Notes that a reader was handed this record. */
  markSeen(topic: string, partition: number, offset: string): void;
  /** Whether every partition has been read to its end. */
  isCaughtUp(): boolean;
  /** Resolves once every partition has been read to its end (at once when nothing was to read). */
  readonly caughtUp: Promise<void>;
  /** Every partition with its end and progress, for progress lines. */
  progress(): PartitionProgress[];
}

interface PartitionState {
  readonly end: bigint;
  seen: bigint | undefined;
}

/**
 * Takes the end offsets of `topics` now.
 * @throws the event log's Error (e.g. Kafka unreachable, an illegal topic name for the file log).
 */
export async function takeEndOffsetSnapshot(
  eventLog: EventLog,
  topics: ReadonlyArray<string>,
): Promise<EndOffsetSnapshot> {
  const partitions = new Map<string, PartitionState>();
  const nonEmptyTopics: string[] = [];
  for (const topic of new Set(topics)) {
    const ends = await eventLog.endOffsets(topic);
    for (const { partition, offset } of ends)
      partitions.set(`${topic}\u0000${partition}`, { end: BigInt(offset), seen: undefined });
    if (ends.some(({ offset }) => BigInt(offset) > 0n)) nonEmptyTopics.push(topic);
  }
  const isDone = (state: PartitionState): boolean =>
    state.end === 0n || (state.seen !== undefined && state.seen >= state.end - 1n);
  const isCaughtUp = (): boolean => [...partitions.values()].every(isDone);
  let resolve: () => void = () => {};
  const caughtUp = new Promise<void>((done) => (resolve = done));
  if (isCaughtUp()) resolve();
  return {
    nonEmptyTopics,
    isBeforeEnd: (topic, partition, offset) => {
      const state = partitions.get(`${topic}\u0000${partition}`);
      return state !== undefined && BigInt(offset) < state.end;
    },
    markSeen(topic, partition, offset) {
      const state = partitions.get(`${topic}\u0000${partition}`);
      if (!state) return;
      const at = BigInt(offset);
      if (state.seen === undefined || at > state.seen) state.seen = at;
      if (isDone(state) && isCaughtUp()) resolve();
    },
    isCaughtUp,
    caughtUp,
    progress: () =>
      [...partitions.entries()].map(([key, state]) => {
        const [topic = '', partition = '0'] = key.split('\u0000');
        return { topic, partition: Number(partition), end: state.end.toString(), seen: state.seen?.toString() };
      }),
  };
}
