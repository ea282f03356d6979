/**
 * A consumer folds traffic events into one projection: a pure projection plus an
 * idempotent sink. The runner (consumers/run-consumers.ts) decodes records from the event log,
 * hands each consumer the events of its topics in log order, and commits offsets only after
 * `handleBatch` resolved — so `handleBatch` must be idempotent: the same batch delivered twice,
 * or a whole topic replayed, must change no total.
 */
import type { TrafficEvent } from '../schemas/events/traffic-events.ts';
import type { LogPosition } from '../schemas/state-store/state-store.ts';

/** A decoded traffic event with the log position of its record (topic, partition, offset). */
export type ConsumedTrafficEvent = TrafficEvent & { readonly position: LogPosition };

export interface TrafficConsumer {
  /** Stable name; the consumer group id is `tollgate.<name>`. */
  readonly name: string;
  /** Topics it reads (from schemas/topics.ts). */
  readonly topics: ReadonlyArray<string>;
  /**
   * Where its projection lives: `analytics` (ClickHouse, which wants few large inserts: its batches
   * are held up to the pipeline's maxBatchWaitMs) or `state` (the state store, read on the request
   * path, e.g. channel health for failover: batches go at once).
   */
  readonly sink: 'analytics' | 'state';
  /** Applies a batch; resolves only after the sink acknowledged. Rejects to have the batch redelivered. */
  handleBatch(events: ReadonlyArray<ConsumedTrafficEvent>): Promise<void>;
}

/** The event record (`event`) of the traffic events whose `type` is T. */
export type TrafficEventOfType<T extends TrafficEvent['type']> = Extract<TrafficEvent, { type: T }>['event'];

/** One event of a batch, narrowed to its type, with the log position of its record. */
export interface PositionedEvent<E> {
  readonly event: E;
  readonly position: LogPosition;
}

/** The events of `type` in `batch`, in batch order, each with its log position; the others are left out. */
function eventsOfType<T extends TrafficEvent['type']>(
  batch: ReadonlyArray<ConsumedTrafficEvent>,
  type: T,
): Array<PositionedEvent<TrafficEventOfType<T>>> {
  const found: Array<PositionedEvent<TrafficEventOfType<T>>> = [];
  for (const item of batch) {
    const event: TrafficEvent['event'] = item.event;
    if (item.type === type) found.push({ event: event as TrafficEventOfType<T>, position: item.position });
  }
  return found;
}

/**
 * A consumer of the ClickHouse sink (`analytics`) that reads one topic and handles only the
 * events of `type` in it: `handle` gets them with their log positions, in batch order, and is not
 * called for a batch without any. The batch is redelivered when `handle` rejects.
 */
export function analyticsConsumerOf<T extends TrafficEvent['type']>(
  name: string,
  topic: string,
  type: T,
  handle: (events: Array<PositionedEvent<TrafficEventOfType<T>>>) => Promise<unknown>,
): TrafficConsumer {
  return {
    sink: 'analytics',
    name,
    topics: [topic],
    async handleBatch(batch) {
      const events = eventsOfType(batch, type);
      if (events.length > 0) await handle(events);
    },
  };
}
