/**
 * One consumer-group subscription of the Kafka adapter: a kafkajs consumer with
 * `autoCommit: false` and `eachBatchAutoResolve: false`. Each fetched partition batch is handed
 * to `handleBatch` in chunks of ≤ maxBatchSize; after a chunk's handler resolved, its last offset
 * is resolved and committed (offset + 1) at once. A new group starts at the earliest offset.
 *
 * Redelivery (verified with kafkajs 2.2.4): when the handler rejects, nothing is resolved or
 * committed and eachBatch returns after a back-off (200 ms doubling to 5 s per partition).
 * kafkajs fetches each partition from its last *resolved* offset (consumerGroup.fetch →
 * offsetManager.nextOffset), so the same records come again in the next batch; a consumer that
 * stops instead leaves the committed offset where it was, and the next one sees the batch again.
 * Throwing from eachBatch is avoided: kafkajs would retry the whole fetch loop and, once its
 * retries are spent, crash and restart the consumer (a rejoin, seconds of pause).
 */
import type { Consumer, EachBatchPayload, Kafka, KafkaMessage } from 'kafkajs';
import { backOffMs, sleepUnlessAborted } from '../back-off.ts';
import type { DeliveredRecord, SubscribeOptions, Subscription } from '../../../schemas/event-log/event-log.ts';
import type { EventLogLogger } from '../../../schemas/event-log/event-log-logger.ts';

const RETRY_INITIAL_MS = 200;
const RETRY_MAX_MS = 5000;

/**
 * Group session timeout, ms. After Kafka restarts, a consumer that rejoined under a new member id
 * waits until the old member's session expires (kafkajs' 30 s default stalled consumers for 30 s
 * after an outage); heartbeats run every second, also while a handler or a back-off is running, so
 * a slow sink does not lose the membership.
 */
const SESSION_TIMEOUT_MS = 10_000;
const HEARTBEAT_MS = 1000;
/**
 * kafkajs retries of the consumer's fetch loop. Connection failures go through the client's short
 * retries instead: with Kafka down the consumer crashes and kafkajs restarts it about every 0.5 s
 * (retriable), so it is back within a second or so of Kafka's return.
 */
const CONSUMER_RETRY = { retries: 5, initialRetryTime: 300, maxRetryTime: 5000 } as const;

/**
 * Connects a consumer, subscribes from the earliest offset and starts it. `ensureTopics` creates
 * missing topics first (with the gateway's partition count, rather than the broker default).
 * kafkajs restarts a consumer itself after retriable errors (e.g. Kafka down); after a crash it
 * does not restart, a new consumer is started here after a back-off (1 s doubling to 30 s).
 * @throws the kafkajs error when Kafka is unreachable at the first start.
 */
export async function startKafkaSubscription(
  kafka: Kafka,
  options: SubscribeOptions,
  ensureTopics: (topics: ReadonlyArray<string>) => Promise<void>,
  logger: EventLogLogger,
): Promise<Subscription> {
  return runKafkaConsumer(kafka, { delivery: options, ensureTopics, logger, afterChunk: commitChunk });
}

/** How runKafkaConsumer runs one consumer (a subscription's, or a group-less read's throwaway group). */
export interface KafkaConsumerSpec {
  /** The group (`groupId`), the topics, the handler and the batching. */
  readonly delivery: SubscribeOptions;
  readonly ensureTopics: (topics: ReadonlyArray<string>) => Promise<void>;
  readonly logger: EventLogLogger;
  /** After a chunk's handler resolved and its last offset was resolved: commit it, or note it in memory. */
  readonly afterChunk: (payload: EachBatchPayload, lastOffset: string) => Promise<void>;
  /** Called with every consumer made (the first and each restart's), before it connects. */
  readonly onConsumer?: (consumer: Consumer) => void;
}

/**
 * Runs a kafkajs consumer for `spec` with the restart rules of startKafkaSubscription.
 * @throws the kafkajs error when Kafka is unreachable at the first start.
 */
export async function runKafkaConsumer(kafka: Kafka, spec: KafkaConsumerSpec): Promise<Subscription> {
  const options = spec.delivery;
  const { logger } = spec;
  await spec.ensureTopics(options.topics);
  const stopSignal = new AbortController();
  const failures = new Map<string, number>();
  let current: Consumer | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let restarts = 0;

  const launch = async (): Promise<void> => {
    const consumer = kafka.consumer({
      groupId: options.groupId,
      allowAutoTopicCreation: false,
      ...fetchWaitOf(options),
      sessionTimeout: SESSION_TIMEOUT_MS,
      heartbeatInterval: HEARTBEAT_MS,
      retry: CONSUMER_RETRY,
    });
    consumer.on(consumer.events.CRASH, ({ payload }) => {
      if (!payload.restart && !stopSignal.signal.aborted) scheduleRestart(payload.error);
    });
    spec.onConsumer?.(consumer);
    try {
      await consumer.connect();
      await consumer.subscribe({ topics: [...options.topics], fromBeginning: true });
      await consumer.run({
        autoCommit: false,
        eachBatchAutoResolve: false,
        eachBatch: (payload) => deliverBatch(payload, spec, failures, stopSignal.signal),
      });
    } catch (error) {
      await consumer.disconnect().catch(() => {});
      throw error;
    }
    current = consumer;
    if (stopSignal.signal.aborted) await stopConsumer(consumer);
  };
  const scheduleRestart = (error: Error): void => {
    const delayMs = backOffMs(restarts++, 1000, 30_000);
    logger('error', 'kafka consumer: stopped by an error kafkajs does not retry, restarting', {
      groupId: options.groupId,
      delayMs,
      error: error.message,
    });
    restartTimer = setTimeout(() => {
      if (stopSignal.signal.aborted) return;
      launch().then(() => void (restarts = 0), scheduleRestart);
    }, delayMs);
  };

  await launch();
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopSignal.abort();
      clearTimeout(restartTimer);
      stopped ??= current ? stopConsumer(current) : Promise.resolve();
      return stopped;
    },
  };
}

/** A subscription's afterChunk: commits offset + 1 of the chunk's last record. */
async function commitChunk(payload: EachBatchPayload, lastOffset: string): Promise<void> {
  const { batch } = payload;
  await payload.commitOffsetsIfNecessary({
    topics: [
      {
        topic: batch.topic,
        partitions: [{ partition: batch.partition, offset: (BigInt(lastOffset) + 1n).toString() }],
      },
    ],
  });
}

/** Bytes a fetch waits for when the subscription batches by time (SubscribeOptions.maxBatchWaitMs). */
const BATCHING_MIN_BYTES = 64 * 1024;

/**
 * The fetch's wait: by default the broker answers as soon as it has a record (`minBytes` 1) and
 * holds an empty fetch 500 ms; batching by time holds it for 64 KiB or `maxBatchWaitMs`.
 */
function fetchWaitOf(options: SubscribeOptions): { maxWaitTimeInMs: number; minBytes?: number } {
  const waitMs = options.maxBatchWaitMs ?? 0;
  return waitMs > 0 ? { maxWaitTimeInMs: waitMs, minBytes: BATCHING_MIN_BYTES } : { maxWaitTimeInMs: 500 };
}

async function stopConsumer(consumer: Consumer): Promise<void> {
  await consumer.stop();
  await consumer.disconnect();
}

/** Hands one partition batch to the handler chunk by chunk, calling afterChunk (commit) after each acknowledged chunk. */
async function deliverBatch(
  payload: EachBatchPayload,
  spec: KafkaConsumerSpec,
  failures: Map<string, number>,
  signal: AbortSignal,
): Promise<void> {
  const { delivery: options, logger } = spec;
  const { batch } = payload;
  const heartbeat = () => payload.heartbeat();
  const partitionKey = `${batch.topic}/${batch.partition}`;
  const records = batch.messages.map((message) => toDelivered(batch.topic, batch.partition, message));
  const size = options.maxBatchSize ?? 500;
  for (let start = 0; start < records.length; start += size) {
    if (!payload.isRunning() || payload.isStale() || signal.aborted) return;
    const chunk = records.slice(start, start + size);
    try {
      await withHeartbeats(options.handleBatch(chunk), heartbeat);
    } catch (error) {
      const attempt = failures.get(partitionKey) ?? 0;
      failures.set(partitionKey, attempt + 1);
      const delayMs = backOffMs(attempt, RETRY_INITIAL_MS, RETRY_MAX_MS);
      logger('warn', 'kafka consumer: batch handler failed, redelivering after a back-off', {
        groupId: options.groupId,
        topic: batch.topic,
        partition: batch.partition,
        records: chunk.length,
        delayMs,
        error: (error as Error).message,
      });
      await withHeartbeats(sleepUnlessAborted(delayMs, signal), heartbeat);
      return;
    }
    failures.delete(partitionKey);
    const last = chunk[chunk.length - 1]?.offset ?? batch.firstOffset() ?? '0';
    payload.resolveOffset(last);
    await spec.afterChunk(payload, last);
    await heartbeat();
  }
}

/** Keeps the group membership alive (heartbeat every second) while `work` runs. */
async function withHeartbeats<T>(work: Promise<T>, heartbeat: () => Promise<void>): Promise<T> {
  const timer = setInterval(() => void heartbeat().catch(() => {}), HEARTBEAT_MS);
  try {
    return await work;
  } finally {
    clearInterval(timer);
  }
}

function toDelivered(topic: string, partition: number, message: KafkaMessage): DeliveredRecord {
  return {
    topic,
    partition,
    offset: message.offset,
    key: message.key?.toString('utf8') ?? '',
    value: message.value ?? Buffer.alloc(0),
    timestamp: Number(message.timestamp),
  };
}
