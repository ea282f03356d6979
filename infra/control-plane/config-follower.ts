/**
 * One process's follower of the config topic (`tollgate.config`, one partition, kept forever),
 * run by every gateway node and by the consumers: it reads the topic from its first record
 * without a consumer group (EventLog.read: nothing committed, no Kafka group or offsets folder
 * left behind; every start replays the topic), decodes each batch and folds it into the
 * projection (schemas/control-plane/control-plane-fold.ts). Records that do not decode are
 * logged and skipped. Its interface, ConfigFollower, is in schemas/control-plane/config-follower.ts.
 *
 * Sync markers give "caught up" and read-your-writes without a second channel: the node publishes
 * a record keyed `sync:<nodeId>:<n>` with an EMPTY value after what it wants to see applied, and
 * waits until its own subscription delivers that marker. The topic has one partition, so
 * everything published before the marker has been applied by then. Other nodes' markers are
 * skipped. `ready()` waits for the marker published at start (the topic's history is applied);
 * `append()` publishes events, then a marker, and resolves once they are applied locally.
 *
 * An event log without `read` (a test double) is followed with a consumer group
 * `tollgate.config.<nodeId>` instead.
 */
import { randomBytes } from 'node:crypto';
import type { DeliveredRecord, Subscription } from '../../schemas/event-log/event-log.ts';
import type { EventLogLogger } from '../../schemas/event-log/event-log-logger.ts';
import {
  syncMarkerKey,
  type ConfigFollower,
  type ConfigFollowerOptions,
  type ControlEventSink,
} from '../../schemas/control-plane/config-follower.ts';
import {
  controlEventKey,
  decodeControlEvent,
  encodeControlEvent,
  isControlEventValue,
} from '../../schemas/control-plane/control-event-codec.ts';
import type { ControlEvent } from '../../schemas/control-plane/control-plane-events.ts';
import { CONFIG_TOPIC } from '../../schemas/topics.ts';

/**
 * Subscribes to the config topic and publishes the start-up sync marker (see the module doc).
 * @throws Error on an illegal nodeId; the event log's error when subscribing fails (Kafka unreachable)
 */
export async function startConfigFollower(options: ConfigFollowerOptions): Promise<ConfigFollower> {
  const nodeId = options.nodeId ?? randomBytes(6).toString('hex');
  if (!/^[A-Za-z0-9_-]+$/.test(nodeId))
    throw new Error(`illegal control-plane node id ${JSON.stringify(nodeId)}: use letters, digits, "_" and "-"`);
  const { eventLog } = options;
  const groupId = `${CONFIG_TOPIC}.${nodeId}`;
  const markers = new MarkerWaiters();
  let nextMarker = 0;
  let stopped = false;
  const sync = async (timeoutMs: number, what: string): Promise<void> => {
    if (stopped) throw new Error('control-plane node stopped');
    const n = (nextMarker += 1);
    const seen = markers.wait(n, timeoutMs, what);
    eventLog.publish({ topic: CONFIG_TOPIC, key: syncMarkerKey(nodeId, n), value: Buffer.alloc(0) });
    await eventLog.flush();
    await seen;
  };

  const handleBatch = configBatchHandler(options.projection, options.log, syncMarkerKey(nodeId, 0).slice(0, -1), (n) =>
    markers.seen(n),
  );
  const subscription: Subscription = eventLog.read
    ? await eventLog.read({ name: groupId, topics: [CONFIG_TOPIC], handleBatch })
    : await eventLog.subscribe({ groupId, topics: [CONFIG_TOPIC], handleBatch });
  const ready = sync(options.readyTimeoutMs ?? 60_000, 'start-up catch-up');
  ready.catch(() => {}); // observed by ready(); never an unhandled rejection
  options.log('info', 'control plane: following the config topic', { nodeId, reader: groupId });

  return {
    nodeId,
    groupId,
    ready: () => ready,
    async append(events) {
      if (stopped) throw new Error('control-plane node stopped');
      const records = events.map((event) => ({
        topic: CONFIG_TOPIC,
        key: controlEventKey(event),
        value: encodeControlEvent(event),
      }));
      for (const record of records) eventLog.publish(record);
      await sync(options.syncTimeoutMs ?? 10_000, `append of ${records.length} event(s)`);
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      markers.rejectAll(new Error('control-plane node stopped'));
      await subscription.stop();
    },
  };
}

/**
 * The subscription handler: decodes events (undecodable ones are logged and skipped), applies
 * them as one batch, then reports the highest of this node's markers (`markerPrefix<n>`) seen.
 */
function configBatchHandler(
  projection: ControlEventSink,
  log: EventLogLogger,
  markerPrefix: string,
  onMarker: (n: number) => void,
): (records: ReadonlyArray<DeliveredRecord>) => Promise<void> {
  let warnedPartition = false;
  return async (records) => {
    const events: ControlEvent[] = [];
    let highest = 0;
    for (const record of records) {
      if (record.partition !== 0 && !warnedPartition) {
        warnedPartition = true;
        log(
          'error',
          'control plane: the config topic has more than one partition, so control events have no global order; recreate it with one',
          { topic: record.topic, partition: record.partition },
        );
      }
      if (!isControlEventValue(record.value)) {
        if (record.key.startsWith(markerPrefix))
          highest = Math.max(highest, Number(record.key.slice(markerPrefix.length)) || 0);
        continue;
      }
      try {
        events.push(decodeControlEvent(record.value));
      } catch (error) {
        log('error', 'control plane: undecodable config event skipped', {
          topic: record.topic,
          partition: record.partition,
          offset: record.offset,
          key: record.key,
          error: (error as Error).message,
        });
      }
    }
    if (events.length > 0) projection.applyBatch(events);
    if (highest > 0) onMarker(highest);
  };
}

/** Pending waits for this node's sync markers; markers arrive in order (one partition). */
class MarkerWaiters {
  private readonly waiters = new Set<{
    readonly n: number;
    readonly resolve: () => void;
    readonly reject: (error: Error) => void;
    readonly timer: NodeJS.Timeout;
  }>();
  private highestSeen = 0;

  /** Resolves once marker `n` (or a later one) was seen. @throws Error after `timeoutMs` */
  wait(n: number, timeoutMs: number, what: string): Promise<void> {
    if (n <= this.highestSeen) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(
          new Error(
            `control plane: ${what} not confirmed within ${timeoutMs} ms — the config topic did not deliver this node's sync marker (event log unreachable or slow); events handed to the log are kept and apply when it catches up`,
          ),
        );
      }, timeoutMs);
      const waiter = { n, resolve, reject, timer };
      this.waiters.add(waiter);
    });
  }

  /** Marker `n` was consumed (everything published before it is applied). */
  seen(n: number): void {
    this.highestSeen = Math.max(this.highestSeen, n);
    for (const waiter of this.waiters) {
      if (waiter.n > this.highestSeen) continue;
      clearTimeout(waiter.timer);
      this.waiters.delete(waiter);
      waiter.resolve();
    }
  }

  /** Rejects every pending wait with `error`. */
  rejectAll(error: Error): void {
    for (const waiter of this.waiters) {
      clearTimeout(waiter.timer);
      waiter.reject(error);
    }
    this.waiters.clear();
  }
}
