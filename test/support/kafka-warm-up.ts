/**
 * Readies a freshly started Kafka for consumer groups. A new broker creates `__consumer_offsets`
 * on the first FindCoordinator request and loads its partitions after that; until then group
 * calls fail with GROUP_COORDINATOR_NOT_AVAILABLE or COORDINATOR_LOAD_IN_PROGRESS, which kafkajs
 * logs as consumer crashes (https://kafka.apache.org/protocol#protocol_error_codes). Describing one
 * group per offsets partition waits until every partition has a loaded coordinator.
 */
import { Kafka, logLevel } from 'kafkajs';

/** Partitions of `__consumer_offsets` (offsets.topic.num.partitions in infra/kafka/server.properties.template). */
const OFFSETS_PARTITIONS = 3;

/** Java's String.hashCode, which Kafka uses to map a group id to its offsets partition. */
function javaStringHash(text: string): number {
  let hash = 0;
  for (let i = 0; i < text.length; i += 1) hash = (Math.imul(31, hash) + text.charCodeAt(i)) | 0;
  return hash;
}

/** Group ids that land on every offsets partition: Kafka's `abs(hashCode) % partitions`. */
function groupPerPartition(): string[] {
  const byPartition = new Map<number, string>();
  for (let n = 0; byPartition.size < OFFSETS_PARTITIONS; n += 1) {
    const groupId = `tollgate-warm-up-${n}`;
    const partition = Math.abs(javaStringHash(groupId)) % OFFSETS_PARTITIONS;
    if (!byPartition.has(partition)) byPartition.set(partition, groupId);
  }
  return [...byPartition.values()];
}

/**
 * Waits until every `__consumer_offsets` partition of the broker at `brokers` answers group calls.
 * @param brokers KAFKA_BROKERS split on commas
 * @param timeoutMs how long to keep trying, ms
 * @throws the last kafkajs error when the coordinators are not ready within timeoutMs
 */
export async function warmUpGroupCoordinators(brokers: string[], timeoutMs = 60_000): Promise<void> {
  const admin = new Kafka({ clientId: 'tollgate-test-warm-up', brokers, logLevel: logLevel.NOTHING }).admin();
  const deadline = Date.now() + timeoutMs;
  await admin.connect();
  try {
    for (;;) {
      try {
        await admin.describeGroups(groupPerPartition());
        return;
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  } finally {
    await admin.disconnect();
  }
}
