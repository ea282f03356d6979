/**
 * A consumer group's lag, read from the event-log port at the time of asking: for each partition
 * of each topic, the end offset minus the group's committed offset (EventLog.endOffsets,
 * EventLog.committedOffsets). Units are the log's offsets: records on Kafka, bytes on the file log.
 */
import type { EventLog } from './event-log.ts';

/** The lag of one partition of one topic. */
export interface PartitionLag {
  readonly topic: string;
  readonly partition: number;
  /** end − committed, at least 0 (a group that never committed counts from offset 0). */
  readonly lag: number;
}

/**
 * Lag of `groupId` on every partition of `topics` (topics that do not exist yet are left out).
 * Without `committedOffsets` on the log (a test double) it returns [].
 * @throws the event log's Error when it is unreachable or cannot be read.
 */
export async function measureConsumerLag(
  eventLog: EventLog,
  groupId: string,
  topics: ReadonlyArray<string>,
): Promise<PartitionLag[]> {
  const committedOf = eventLog.committedOffsets?.bind(eventLog);
  if (!committedOf) return [];
  const perTopic = await Promise.all(
    topics.map(async (topic) => {
      const [ends, committed] = await Promise.all([eventLog.endOffsets(topic), committedOf(groupId, topic)]);
      return ends.map(({ partition, offset }) => {
        const position = committed.find((c) => c.partition === partition)?.offset ?? '0';
        const lag = BigInt(offset) - BigInt(position);
        return { topic, partition, lag: lag > 0n ? Number(lag) : 0 };
      });
    }),
  );
  return perTopic.flat();
}
