/**
 * The Kafka adapter of the event-log port (kafkajs 2.2.4, verified against Apache Kafka 4.4.0
 * in KRaft mode), used when KAFKA_BROKERS is set.
 *
 * Publishing (kafka-publisher.ts): enqueue only; idempotent producer with acks = all, batched
 * `sendBatch` every 10 ms or at 500 records; an fsync'ed disk spool at `<spoolDir>/spool.log`
 * while Kafka is unreachable, drained in order once it is back (also when a previous process left
 * one). Consuming (kafka-subscription.ts): one kafkajs consumer per subscribe(), offsets
 * committed after the handler resolved; group-less reads (kafka-read.ts): a throwaway group that
 * never commits and is deleted when the read stops. End offsets (high watermarks): kafka-end-offsets.ts.
 * Topics are created on first use with TOPIC_PARTITIONS partitions (or their override in
 * schemas/topics.ts: the config topic gets one, kept forever). kafkajs' own log lines go to
 * `logger` through kafkajs-log-creator.ts (quietly).
 */
import type { Kafka } from 'kafkajs';
import { engineClientLibrary } from '../../engine-client-libraries.ts';
import { topicCreationSpec } from '../../../schemas/topics.ts';
import type { EventLog, ReadOptions, SubscribeOptions, Subscription } from '../../../schemas/event-log/event-log.ts';
import { silentLogger, type EventLogLogger } from '../../../schemas/event-log/event-log-logger.ts';
import { createKafkajsLogCreator } from './kafkajs-log-creator.ts';
import { KafkaPublisher } from './kafka-publisher.ts';
import { PUBLISH_RETRY } from './kafka-producer-session.ts';
import { startKafkaSubscription } from './kafka-subscription.ts';
import { fetchKafkaEndOffsets } from './kafka-end-offsets.ts';
import { fetchKafkaCommittedOffsets } from './kafka-committed-offsets.ts';
import { startKafkaRead } from './kafka-read.ts';
import { ReaderPositions } from '../reader-positions.ts';

/** Options of the Kafka adapter. */
export interface KafkaEventLogOptions {
  /** `host:port` of the bootstrap brokers. */
  readonly brokers: string[];
  /** Client id sent to Kafka (default `tollgate`). */
  readonly clientId?: string;
  /** Directory of the spool (created when missing); one process per spool dir. */
  readonly spoolDir: string;
  readonly logger?: EventLogLogger;
  /** Max wait of a record before its batch is sent, ms (default 10). */
  readonly lingerMs?: number;
  /** Records waiting that trigger a send at once (default 500). */
  readonly batchTrigger?: number;
}

/**
 * Creates the Kafka event log. Returns at once: connecting, topic creation and opening the spool
 * happen in the background, so `publish` never waits. `subscribe` rejects when Kafka is unreachable.
 */
export function createKafkaEventLog(options: KafkaEventLogOptions): EventLog {
  const logger = options.logger ?? silentLogger;
  const { Kafka: KafkaClient, logLevel } = engineClientLibrary('kafkajs');
  const kafka = new KafkaClient({
    clientId: options.clientId ?? 'tollgate',
    brokers: options.brokers,
    connectionTimeout: 1000,
    requestTimeout: 5000,
    retry: PUBLISH_RETRY,
    logLevel: logLevel.WARN,
    logCreator: createKafkajsLogCreator(logger),
  });
  const publisher = new KafkaPublisher({
    kafka,
    spoolDir: options.spoolDir,
    logger,
    lingerMs: options.lingerMs ?? 10,
    batchTrigger: options.batchTrigger ?? 500,
    sendTimeoutMs: 10_000,
  });
  const subscriptions = new Set<Subscription>();
  const readers = new ReaderPositions();
  /** A running read or subscription that `close()` stops, and that leaves the set when stopped. */
  const tracked = (running: Subscription): Subscription => {
    const handle: Subscription = {
      async stop() {
        subscriptions.delete(handle);
        await running.stop();
      },
    };
    subscriptions.add(handle);
    return handle;
  };

  return {
    publish: (record) => publisher.publish(record),
    flush: () => publisher.flush(),
    status: () => publisher.status(),
    endOffsets: (topic) => fetchKafkaEndOffsets(kafka, topic),
    committedOffsets: async (groupId, topic) =>
      readers.positions(groupId, topic) ?? fetchKafkaCommittedOffsets(kafka, groupId, topic),
    read: async (read: ReadOptions) =>
      tracked(
        await startKafkaRead(
          { kafka, ensureTopics: (topics) => createTopics(kafka, topics), logger, positions: readers },
          read,
        ),
      ),
    subscribe: async (subscription: SubscribeOptions) =>
      tracked(await startKafkaSubscription(kafka, subscription, (topics) => createTopics(kafka, topics), logger)),
    async close() {
      await publisher.close();
      await Promise.all([...subscriptions].map((subscription) => subscription.stop()));
    },
  };
}

/** Creates each topic (topicCreationSpec: partitions and configs) unless it exists. @throws kafkajs errors. */
async function createTopics(kafka: Kafka, topics: ReadonlyArray<string>): Promise<void> {
  const admin = kafka.admin();
  await admin.connect();
  try {
    for (const topic of topics) await admin.createTopics({ topics: [topicCreationSpec(topic)], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
}
