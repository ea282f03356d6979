/**
 * The config follower's interface (its implementation runs in each process:
 * infra/control-plane/config-follower.ts, handed to gateway and consumer code by the process's
 * composition root). A follower reads the config topic (CONFIG_TOPIC, schemas/topics.ts) from its
 * first record into a ControlEventSink, and gives "caught up" and read-your-writes through sync
 * markers: records keyed `sync:<nodeId>:<n>` with an EMPTY value, which a node publishes after what
 * it wants applied and waits to read back (the topic has one partition, so everything before the
 * marker is applied by then). Other nodes' markers are skipped.
 */
import type { EventLog } from '../event-log/event-log.ts';
import type { EventLogLogger } from '../event-log/event-log-logger.ts';
import type { ControlEvent } from './control-plane-events.ts';

/** Where decoded events go: ControlPlaneProjection satisfies it. */
export interface ControlEventSink {
  /** Applies events in order (idempotently by eventId). */
  applyBatch(events: ReadonlyArray<ControlEvent>): unknown;
}

/** Options of startConfigFollower. */
export interface ConfigFollowerOptions {
  /** The event log (Kafka or the embedded file log; may be wrapped by withTopicPrefix). */
  readonly eventLog: EventLog;
  readonly projection: ControlEventSink;
  readonly log: EventLogLogger;
  /** `[A-Za-z0-9_-]+`; default 12 random hex characters. */
  readonly nodeId?: string;
  /** How long `append` waits for its events to come back applied, ms (default 10 000). */
  readonly syncTimeoutMs?: number;
  /** How long `ready` waits for the start-up marker, ms (default 60 000). */
  readonly readyTimeoutMs?: number;
}

/** A running follower. */
export interface ConfigFollower {
  readonly nodeId: string;
  /**
   * `tollgate.config.<nodeId>`: the reader's name, for which EventLog.committedOffsets answers the
   * follower's position while it runs (its lag); no consumer group of that name is stored.
   */
  readonly groupId: string;
  /**
   * Resolves once the topic's content as of start-up is applied (the start marker was consumed).
   * @throws Error after `readyTimeoutMs`, or when the node is stopped first
   */
  ready(): Promise<void>;
  /**
   * Publishes the events in order, flushes, and resolves once this node has applied them
   * (read-your-writes). Encodes everything before publishing anything.
   * @throws Error when an event does not fit its schema (nothing published), when the node is
   *   stopped, or after `syncTimeoutMs` (the events were handed to the log and may still apply)
   */
  append(events: ReadonlyArray<ControlEvent>): Promise<void>;
  /** Stops consuming; pending `ready`/`append` calls reject. The event log stays open. */
  stop(): Promise<void>;
}

/** Key prefix of every sync marker: `sync:<nodeId>:<n>`. */
export const SYNC_MARKER_PREFIX = 'sync:';

/** The key of this node's n-th sync marker. */
export function syncMarkerKey(nodeId: string, n: number): string {
  return `${SYNC_MARKER_PREFIX}${nodeId}:${n}`;
}

/**
 * Starts a follower: subscribes to the config topic and publishes the start-up sync marker.
 * @throws Error on an illegal nodeId; the event log's error when subscribing fails (Kafka unreachable)
 */
export type StartConfigFollower = (options: ConfigFollowerOptions) => Promise<ConfigFollower>;
