/**
 * EventLog.endOffsets for Kafka: the high watermark of each partition (the offset the next record
 * will get), from kafkajs `admin.fetchTopicOffsets` (ListOffsets with timestamp -1 / -2, see
 * https://kafka.apache.org/protocol.html#The_Messages_ListOffsets and
 * https://kafka.js.org/docs/admin, "Fetch topic offsets"). A partition whose records were all
 * removed by retention (low = high) reports '0', so a reader does not wait for records it can
 * never get. The admin client is made with auto topic creation off (kafkajs'
 * default for admins), and a topic missing from the metadata yields an empty list.
 */
import type { Kafka } from 'kafkajs';
import { readPartitionOffsets, type PartitionOffset } from './read-partition-offsets.ts';

/**
 * End offsets of `topic`, sorted by partition.
 * @throws the kafkajs error when the brokers are unreachable.
 */
export async function fetchKafkaEndOffsets(kafka: Kafka, topic: string): Promise<PartitionOffset[]> {
  return readPartitionOffsets(kafka, topic, async (admin) =>
    (await admin.fetchTopicOffsets(topic)).map(({ partition, high, low }) => ({
      partition,
      offset: BigInt(low) >= BigInt(high) ? '0' : high,
    })),
  );
}
