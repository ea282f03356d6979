/**
 * One connection of the Kafka adapter's publisher: an idempotent kafkajs producer (acks = all,
 * one request in flight so order holds, the Java-compatible default partitioner: a key always
 * lands in the same partition) and an admin client that creates topics before their first record
 * (topicCreationSpec: TOPIC_PARTITIONS partitions, or the topic's override — the config topic has
 * one partition and infinite retention; an existing topic is left as it is).
 *
 * Retries are short (3 tries, 100 ms → 1 s) so an outage shows within a few seconds; after any
 * failure the publisher throws the session away and opens a new one (a new producer id), so the
 * idempotent producer's sequence state never outlives an error. kafkajs warns that limited retries
 * weaken its exactly-once guarantee: here a failed send is re-sent from the spool, so a record
 * may reach Kafka twice (at-least-once) and consumers de-duplicate by event id.
 */
import type { Admin, Kafka, Message, TopicMessages } from 'kafkajs';
import { engineClientLibrary } from '../../engine-client-libraries.ts';
import { topicCreationSpec } from '../../../schemas/topics.ts';
import type { FramedRecord } from '../record-frame-codec.ts';

/** An open producer and admin client. */
export interface ProducerSession {
  /** Sends the records in order and waits for every replica's acknowledgement. @throws on any failure or after `sendTimeoutMs`. */
  send(records: ReadonlyArray<FramedRecord>): Promise<void>;
  /** Disconnects both clients (errors ignored; gives up after the send timeout). */
  close(): Promise<void>;
}

/** kafkajs retry settings of the publisher: an outage is detected within about 2 s. */
export const PUBLISH_RETRY = { retries: 2, initialRetryTime: 100, maxRetryTime: 1000 } as const;

/**
 * Connects a producer and an admin client. `ensuredTopics` (shared across sessions) remembers
 * topics already created or found. `sendTimeoutMs` bounds one send, including topic creation.
 * @throws the kafkajs connection error.
 */
export async function openProducerSession(
  kafka: Kafka,
  ensuredTopics: Set<string>,
  sendTimeoutMs: number,
): Promise<ProducerSession> {
  const producer = kafka.producer({
    idempotent: true,
    maxInFlightRequests: 1,
    createPartitioner: engineClientLibrary('kafkajs').Partitioners.DefaultPartitioner,
    retry: PUBLISH_RETRY,
  });
  const admin = kafka.admin({ retry: PUBLISH_RETRY });
  const close = async (): Promise<void> => {
    await withTimeout(Promise.allSettled([producer.disconnect(), admin.disconnect()]), sendTimeoutMs).catch(() => {});
  };
  try {
    await producer.connect();
    await admin.connect();
  } catch (error) {
    await close();
    throw error;
  }
  return {
    async send(records) {
      const work = async (): Promise<void> => {
        await ensureTopics(admin, records, ensuredTopics);
        await producer.sendBatch({ acks: -1, topicMessages: groupByTopic(records) });
      };
      await withTimeout(work(), sendTimeoutMs);
    },
    close,
  };
}

/** Creates the topics of `records` not yet known to exist, one by one. */
async function ensureTopics(
  admin: Admin,
  records: ReadonlyArray<FramedRecord>,
  ensuredTopics: Set<string>,
): Promise<void> {
  for (const record of records) {
    if (ensuredTopics.has(record.topic)) continue;
    await admin.createTopics({ topics: [topicCreationSpec(record.topic)], waitForLeaders: true });
    ensuredTopics.add(record.topic);
  }
}

/** Groups records by topic keeping their order (per partition, order is what Kafka keeps). */
function groupByTopic(records: ReadonlyArray<FramedRecord>): TopicMessages[] {
  const byTopic = new Map<string, Message[]>();
  for (const record of records) {
    const message: Message = { key: record.key, value: record.value, timestamp: String(record.timestamp) };
    const messages = byTopic.get(record.topic);
    if (messages) messages.push(message);
    else byTopic.set(record.topic, [message]);
  }
  return [...byTopic].map(([topic, messages]) => ({ topic, messages }));
}

/** Rejects with a timeout error when `promise` has not settled within `ms`. */
function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`kafka: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
