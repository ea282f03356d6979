/**
 * EventLog.committedOffsets for Kafka: the offsets a consumer group committed (OffsetFetch, via
 * kafkajs `admin.fetchOffsets`, https://kafka.js.org/docs/admin, "Fetch consumer group offsets").
 * Kafka answers `-1` for a partition the group never committed: those partitions are left out.
 */
import type { Kafka } from 'kafkajs';
import { readPartitionOffsets, type PartitionOffset } from './read-partition-offsets.ts';

/**
 * Committed offsets of `groupId` on `topic` (the next offset the group reads), sorted by partition.
 * @throws the kafkajs error when the brokers are unreachable.
 */
export async function fetchKafkaCommittedOffsets(
  kafka: Kafka,
  groupId: string,
  topic: string,
): Promise<PartitionOffset[]> {
  return readPartitionOffsets(kafka, topic, async (admin) => {
    const [answer] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return (answer?.partitions ?? [])
      .filter(({ offset }) => BigInt(offset) >= 0n)
      .map(({ partition, offset }) => ({ partition, offset }));
  });
}
