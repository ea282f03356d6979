/**
 * Runs consumers against the event log: one consumer group per consumer (`tollgate.<name>`),
 * records decoded from Avro single-object encoding, batches handed over in log order with each
 * event's log position. Offsets are committed by the event log only after `handleBatch` resolved
 * (commit after ack). A record that cannot be decoded (unknown schema fingerprint) is logged and
 * skipped, so one poisoned record never blocks a projection forever.
 */
import { DEFAULT_CONSUMER_BATCHING } from './consumer-batching.ts';
import type { DeliveredRecord, EventLog, Subscription } from '../schemas/event-log/event-log.ts';
import { decodeTrafficEvent } from '../schemas/events/traffic-event-codec.ts';
import type { ConsumedTrafficEvent, TrafficConsumer } from './traffic-consumer.ts';

/** Log sink of the consumers process. */
export type ConsumerLog = (
  level: 'debug' | 'info' | 'warn' | 'error',
  message: string,
  extra?: Record<string, unknown>,
) => void;

/** Told after a consumer handled a batch (before its offsets are committed): which records it covered. */
export type BatchDoneListener = (
  consumer: string,
  records: ReadonlyArray<Pick<DeliveredRecord, 'topic' | 'partition' | 'offset'>>,
) => void;

/** Running consumers. */
export interface RunningConsumers {
  /** Stops every subscription (in-flight batches finish first). */
  stop(): Promise<void>;
}

/** Options of runConsumers. */
export interface RunConsumersOptions {
  /** Max records per batch (default DEFAULT_CONSUMER_BATCHING.maxBatchSize, 10 000). */
  readonly maxBatchSize?: number;
  /**
   * Names the consumer groups (`tollgate.` → `tollgate.ledger`); a new prefix replays every topic
   * from the beginning.
   */
  readonly groupPrefix?: string;
  /**
   * Longest a partial batch of an `analytics` consumer is held for more events, ms (default 0);
   * `state` consumers wait at most STATE_BATCH_WAIT_MS of it.
   */
  readonly maxBatchWaitMs?: number;
  readonly onBatchDone?: BatchDoneListener;
}

/**
 * Longest a partial batch of a `state` consumer (channel health) is held, ms: short next to what
 * health decides on (a window of a minute, cooldowns of seconds), and enough that under load a
 * batch, and the offset commit with its fdatasync, covers many requests instead of a handful.
 */
export const STATE_BATCH_WAIT_MS = 50;

/** Subscribes every consumer; resolves once all subscriptions are running. */
export async function runConsumers(
  eventLog: EventLog,
  consumers: ReadonlyArray<TrafficConsumer>,
  log: ConsumerLog,
  options: RunConsumersOptions = {},
): Promise<RunningConsumers> {
  const subscriptions: Subscription[] = [];
  for (const consumer of consumers) {
    subscriptions.push(
      await eventLog.subscribe({
        groupId: `${options.groupPrefix ?? 'tollgate.'}${consumer.name}`,
        topics: consumer.topics,
        maxBatchSize: options.maxBatchSize ?? DEFAULT_CONSUMER_BATCHING.maxBatchSize,
        ...(options.maxBatchWaitMs
          ? {
              maxBatchWaitMs:
                consumer.sink === 'analytics'
                  ? options.maxBatchWaitMs
                  : Math.min(options.maxBatchWaitMs, STATE_BATCH_WAIT_MS),
            }
          : {}),
        handleBatch: async (records) => {
          const events = decodeRecords(records, consumer.name, log);
          if (events.length > 0) await consumer.handleBatch(events);
          options.onBatchDone?.(consumer.name, records);
        },
      }),
    );
  }
  return { stop: async () => void (await Promise.all(subscriptions.map((s) => s.stop()))) };
}

/** Decodes a batch's records in order, each with its log position; undecodable records are logged and skipped. */
function decodeRecords(
  records: ReadonlyArray<DeliveredRecord>,
  consumer: string,
  log: ConsumerLog,
): ConsumedTrafficEvent[] {
  const events: ConsumedTrafficEvent[] = [];
  for (const record of records) {
    try {
      events.push({
        ...decodeTrafficEvent(record.value),
        position: { topic: record.topic, partition: record.partition, offset: record.offset },
      });
    } catch (error) {
      log('error', 'skipping an undecodable record', {
        consumer,
        topic: record.topic,
        partition: record.partition,
        offset: record.offset,
        reason: (error as Error).message,
      });
    }
  }
  return events;
}
