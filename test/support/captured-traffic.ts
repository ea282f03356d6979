/**
 * The traffic events a test gateway publishes, taken off its event-log port: every record is kept
 * and decoded with the production codec (schemas/events/traffic-event-codec.ts), and, for routing
 * tests, handed to the real health consumer (consumers/health/health-consumer.ts), which folds it
 * into an in-memory state store that the gateway's channel health view reads — the production path
 * of latency and error rate (gateway → event log → health consumer → state store → view), without
 * a log engine in between.
 */
import { createHealthConsumer } from '../../consumers/health/health-consumer.ts';
import type { ConsumedTrafficEvent, TrafficEventOfType } from '../../consumers/traffic-consumer.ts';
import { createMemoryStateStore } from '../../infra/state-store/memory/memory-state-store.ts';
import type { EventLog, LogRecord } from '../../schemas/event-log/event-log.ts';
import { decodeTrafficEvent } from '../../schemas/events/traffic-event-codec.ts';
import type { TrafficEvent } from '../../schemas/events/traffic-events.ts';
import type { StateStore } from '../../schemas/state-store/state-store.ts';

/** The published traffic, decoded, with the log records as published. */
export interface CapturedTraffic {
  /** Give it to the gateway as AppDeps.eventLog. */
  readonly eventLog: EventLog;
  readonly records: LogRecord[];
  /** Every event, decoded, in publishing order. */
  readonly events: TrafficEvent[];
}

/** The events of `type` among `events`, in order. */
export function eventsOfType<T extends TrafficEvent['type']>(
  events: ReadonlyArray<TrafficEvent>,
  type: T,
): Array<TrafficEventOfType<T>> {
  const found: Array<TrafficEventOfType<T>> = [];
  for (const item of events) {
    const event: TrafficEvent['event'] = item.event;
    if (item.type === type) found.push(event as TrafficEventOfType<T>);
  }
  return found;
}

/**
 * An event log that keeps what is published (`onRecord` is told of each record too); subscriptions
 * and reads are refused (no consumer reads this log).
 */
export function captureTraffic(onRecord?: (record: LogRecord, event: TrafficEvent) => void): CapturedTraffic {
  const records: LogRecord[] = [];
  const events: TrafficEvent[] = [];
  const eventLog: EventLog = {
    publish(record) {
      records.push(record);
      const event = decodeTrafficEvent(record.value);
      events.push(event);
      onRecord?.(record, event);
    },
    flush: async () => {},
    subscribe: () => Promise.reject(new Error('captured traffic: nothing subscribes to this log')),
    status: () => ({ pending: 0, spooled: 0, connected: true }),
    endOffsets: async () => [],
    close: async () => {},
  };
  return { eventLog, records, events };
}

/** Captured traffic fed to the health consumer, and the state store the gateway reads health from. */
export interface HealthFeed extends CapturedTraffic {
  /** Give it to the gateway as AppDeps.stateStore. */
  readonly stateStore: StateStore;
  /**
   * Resolves once every event published so far is folded into the store AND the gateway's health
   * view has read the store twice since (the first of those reads then finished after the fold).
   * @throws Error when the view does not read within `timeoutMs` (is healthRefreshMs set?)
   */
  caughtUp(timeoutMs?: number): Promise<void>;
}

/** Captured traffic whose every event the health consumer folds into a fresh memory state store. */
export function healthFeed(): HealthFeed {
  const store = createMemoryStateStore();
  const consumer = createHealthConsumer({ state: store });
  let reads = 0;
  const stateStore = new Proxy(store, {
    get(target, property, receiver) {
      if (property === 'getChannelHealth') reads++;
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  const offsets = new Map<string, number>();
  let folding: Promise<void> = Promise.resolve();
  const traffic = captureTraffic((record, event) => {
    const offset = (offsets.get(record.topic) ?? 0) + 1;
    offsets.set(record.topic, offset);
    const consumed = { ...event, position: { topic: record.topic, partition: 0, offset: String(offset) } };
    folding = folding.then(() => consumer.handleBatch([consumed as ConsumedTrafficEvent]));
  });
  return {
    ...traffic,
    stateStore,
    async caughtUp(timeoutMs = 5_000) {
      await folding;
      const target = reads + 2;
      const deadline = Date.now() + timeoutMs;
      while (reads < target) {
        if (Date.now() > deadline) throw new Error('healthFeed: the health view did not read the store');
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
}
