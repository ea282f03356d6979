/**
 * The admin-client round trip that EventLog.endOffsets and EventLog.committedOffsets share: open a
 * kafkajs admin client (https://kafka.js.org/docs/admin), answer nothing for a topic the brokers
 * do not know, read one offset per partition, close the client.
 */
import type { Admin, Kafka } from 'kafkajs';

/** One partition's offset, as the decimal string kafkajs uses for 64-bit offsets. */
export interface PartitionOffset {
  partition: number;
  offset: string;
}

/**
 * Connects an admin client, returns `[]` when `topic` is not in the cluster's topic list, else
 * the offsets `read` returns, sorted by partition; the client is disconnected either way.
 * @throws the kafkajs error when the brokers are unreachable, or whatever `read` rejects with
 */
export async function readPartitionOffsets(
  kafka: Kafka,
  topic: string,
  read: (admin: Admin) => Promise<PartitionOffset[]>,
): Promise<PartitionOffset[]> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    if (!(await admin.listTopics()).includes(topic)) return [];
    return (await read(admin)).sort((a, b) => a.partition - b.partition);
  } finally {
    await admin.disconnect();
  }
}
