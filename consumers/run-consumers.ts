/**
 * Runs consumers against the event log: one consumer group per consumer (`tollgate.<name>`),
 * records decoded from Avro single-object encoding, batches handed over in log order. Offsets
 * are committed by the event log only after `handleBatch` resolved (commit after ack).
 * A record that cannot be decoded (unknown schema fingerprint) is logged and skipped, so one
 * poisoned record never blocks a projection forever.
 */
import type { EventLog, Subscription } from '../schemas/event-log/event-log.ts';
import { decodeTrafficEvent } from '../schemas/events/traffic-event-codec.ts';
import type { TrafficEvent } from '../schemas/events/traffic-events.ts';
import type { TrafficConsumer } from './traffic-consumer.ts';

/** Log sink of the consumers process. */
export type ConsumerLog = (level: 'debug' | 'info' | 'warn' | 'error', message: string, extra?: Record<string, unknown>) => void;

/** Running consumers. */
export interface RunningConsumers {
  /** Stops every subscription (in-flight batches finish first). */
  stop(): Promise<void>;
}

/**
 * Subscribes every consumer; resolves once all subscriptions are running. `groupPrefix` names the
 * consumer groups (`tollgate.` → `tollgate.ledger`); a new prefix replays every topic from the
 * beginning, which is how operators re-run projections for audit.
 */
export async function runConsumers(eventLog: EventLog, consumers: ReadonlyArray<TrafficConsumer>, log: ConsumerLog, maxBatchSize = 500, groupPrefix = 'tollgate.'): Promise<RunningConsumers> {
  const subscriptions: Subscription[] = [];
  for (const consumer of consumers) {
    subscriptions.push(
      await eventLog.subscribe({
        groupId: `${groupPrefix}${consumer.name}`,
        topics: consumer.topics,
        maxBatchSize,
        handleBatch: async (records) => {
          const events: TrafficEvent[] = [];
          for (const record of records) {
            try {
              events.push(decodeTrafficEvent(record.value));
            } catch (error) {
              log('error', 'skipping an undecodable record', { consumer: consumer.name, topic: record.topic, partition: record.partition, offset: record.offset, reason: (error as Error).message });
            }
          }
          if (events.length > 0) await consumer.handleBatch(events);
        },
      }),
    );
  }
  return { stop: async () => void (await Promise.all(subscriptions.map((s) => s.stop()))) };
}
