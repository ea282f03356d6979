/**
 * The event-log port: publish without blocking the request, consume with stored
 * offsets. Adapters: Kafka (kafkajs; used when KAFKA_BROKERS is set) and an embedded append-only
 * file log in the data directory. kafkajs is in maintenance mode upstream: this port keeps a
 * replacement to one adapter.
 */

/** One record to publish: `key` decides the partition (traffic: the request id). */
export interface LogRecord {
  readonly topic: string;
  readonly key: string;
  /** Avro single-object encoded event. */
  readonly value: Buffer;
}

/** A delivered record. `offset` is the adapter's position (Kafka offset, or byte position for files) as a decimal string. */
export interface DeliveredRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
  readonly key: string;
  readonly value: Buffer;
  /** When the log stored it, ms since epoch. */
  readonly timestamp: number;
}

/**
 * Handles one batch. Offsets are committed only after the returned promise resolves (the sink
 * acknowledged); a rejection means the batch is delivered again (after a back-off). Handlers
 * must therefore be idempotent.
 */
export type BatchHandler = (records: ReadonlyArray<DeliveredRecord>) => Promise<void>;

/** Options of one consumer group subscription. */
export interface SubscribeOptions {
  readonly groupId: string;
  readonly topics: ReadonlyArray<string>;
  readonly handleBatch: BatchHandler;
  /** Max records per batch (default 500). */
  readonly maxBatchSize?: number;
  /**
   * Batching by time as well as size, ms (default 0: hand over whatever is there). A batch smaller
   * than `maxBatchSize` is held until its oldest record has waited this long, so that at low load a
   * sink gets one insert per period instead of one per record; a full batch, and a backlog, go at
   * once. The bound on a record's extra delay is this value (plus the adapter's poll period).
   * Kafka: the fetch waits for 64 KiB or this long (`minBytes`/`maxWaitTimeInMs`,
   * https://kafka.js.org/docs/consuming#options).
   */
  readonly maxBatchWaitMs?: number;
}

/** A position to start a group-less read at: the offset of the first record to deliver. */
export interface ReadPosition {
  readonly topic: string;
  readonly partition: number;
  /** Decimal string, as in DeliveredRecord.offset. */
  readonly offset: string;
}

/**
 * Options of a group-less read (EventLog.read): no consumer group, nothing committed or stored.
 * Delivery is in order per partition; a rejected batch comes again after a back-off, like a
 * subscription's.
 */
export interface ReadOptions {
  readonly topics: ReadonlyArray<string>;
  readonly handleBatch: BatchHandler;
  /**
   * What the reader is, `[A-Za-z0-9._-]+` (e.g. `tollgate.config.<nodeId>`): the name in log lines,
   * the name `committedOffsets` answers for while the read runs in this instance, and on Kafka the
   * start of its throwaway group's id (see the adapter).
   */
  readonly name: string;
  /** Where to start on each partition; partitions not named start at their first record. */
  readonly from?: ReadonlyArray<ReadPosition>;
  /** As SubscribeOptions.maxBatchSize. */
  readonly maxBatchSize?: number;
  /** As SubscribeOptions.maxBatchWaitMs. */
  readonly maxBatchWaitMs?: number;
}

/** A running subscription. */
export interface Subscription {
  /** Stops consuming; resolves after the in-flight batch finished (its offsets committed or not). */
  stop(): Promise<void>;
}

/** Publisher health, for logs, /healthz and the /metrics gauges. */
export interface PublisherStatus {
  /** Records accepted but not yet acknowledged by the log or written to the spool. */
  readonly pending: number;
  /** Records waiting in the on-disk spool for the log to come back. */
  readonly spooled: number;
  readonly connected: boolean;
}

/** The event log. */
export interface EventLog {
  /**
   * Accepts a record for publishing and returns at once; never throws and never waits on the
   * network. Records with the same key keep their order. Nothing accepted is lost: while the log
   * is unreachable records go to a local spool on disk, drained in order when it returns.
   */
  publish(record: LogRecord): void;
  /** Resolves when every record accepted so far is acknowledged by the log or safely spooled. */
  flush(): Promise<void>;
  /**
   * Starts a consumer group subscription; a group new to the log starts at the earliest record.
   * Delivery is at-least-once (a batch can come again after a failure or a restart), in order per
   * partition. Rejects on an illegal group id or topic name (`[A-Za-z0-9._-]`) and, for Kafka,
   * when the broker is unreachable at start.
   */
  subscribe(options: SubscribeOptions): Promise<Subscription>;
  /**
   * Reads topics from their first record (or `from`) without a consumer group: no committed
   * offsets, no offsets folder, nothing left in the log when the read stops, however the process
   * ends (see each adapter for what a killed process leaves and for how long). For followers that
   * keep their position in memory: the config follower, `tollgate events`, `tollgate replay`.
   * Optional: test doubles may leave it out (callers then subscribe with a group of their own).
   * @throws like `subscribe` (illegal names, Kafka unreachable at start).
   */
  read?(options: ReadOptions): Promise<Subscription>;
  status(): PublisherStatus;
  /**
   * Where each partition of `topic` ends now: for every partition, an offset E (decimal string)
   * such that every record stored so far has an offset below E and every record stored later gets
   * an offset of at least E. So a reader holds the topic as it was when it asked once it was handed
   * a record with offset >= E - 1 on every partition whose E is above 0; E = '0' means nothing to
   * read. Kafka: the high watermark (the offset the next record will get), or '0' when retention
   * left the partition empty. File log (offsets are byte positions): the last whole record's
   * position + 1, or '0' for an empty file. Sorted by partition; an empty list when the topic does
   * not exist yet. Reads only: creates no topic.
   * @throws the adapter's Error when the log is unreachable (Kafka) or cannot be read, or (file
   *   log) on an illegal topic name.
   */
  endOffsets(topic: string): Promise<ReadonlyArray<{ partition: number; offset: string }>>;
  /**
   * Where consumer group `groupId` will resume reading `topic`: for every partition with a
   * committed position, the offset of the next record the group reads (decimal string). So
   * `end − committed` (clamped at 0) is the group's lag: records on Kafka (the committed offset,
   * https://kafka.js.org/docs/admin, "Fetch consumer group offsets"), bytes on the file log (its
   * offsets are byte positions). Partitions the group never committed are left out; an empty list
   * for an unknown group or topic. For a group-less read running in this instance
   * (ReadOptions.name = `groupId`), the position it has handled up to instead (nothing is
   * committed for it anywhere). Reads only. Optional: test doubles may leave it out.
   * @throws the adapter's Error when the log is unreachable (Kafka) or cannot be read, or (file
   *   log) on an illegal group or topic name.
   */
  committedOffsets?(groupId: string, topic: string): Promise<ReadonlyArray<{ partition: number; offset: string }>>;
  /** Flushes, then stops this instance's subscriptions and releases connections and files; later publishes are dropped. */
  close(): Promise<void>;
}
