/**
 * EventLog.committedOffsets for Kafka: the offsets a consumer group committed (OffsetFetch, via
 * kafkajs `admin.fetchOffsets`, https://kafka.js.org/docs/admin, "Fetch consumer group offsets").
 * Kafka answers `-1` for a partition the group never committed: those partitions are left out.
 */
import type { Kafka } from 'kafkajs';

/**
 * Committed offsets of `groupId` on `topic` (the next offset the group reads), sorted by partition.
 * @throws the kafkajs error when the brokers are unreachable.
 */
export async function fetchKafkaCommittedOffsets(
  kafka: Kafka,
  groupId: string,
  topic: string,
): Promise<Array<{ partition: number; offset: string }>> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(topic)) return [];
    const [answer] = await admin.fetchOffsets({ groupId, topics: [topic] });
    return (answer?.partitions ?? [])
      .filter(({ offset }) => BigInt(offset) >= 0n)
      .map(({ partition, offset }) => ({ partition, offset }))
      .sort((a, b) => a.partition - b.partition);
  } finally {
    await admin.disconnect();
  }
}
