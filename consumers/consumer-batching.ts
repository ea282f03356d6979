/**
 * How the consumers batch: at most `maxBatchSize` events per batch, and (for consumers whose sink
 * is ClickHouse) a partial batch held until its oldest event has waited `maxBatchWaitMs`, so that at
 * low load the analytics store gets about one insert per table per period instead of one per
 * request. ClickHouse asks for inserts in batches, at most about one per second
 * (https://clickhouse.com/docs/best-practices/selecting-an-insert-strategy, "Batch inserts if
 * synchronous"): every insert creates a part per table (and per materialized view) that background
 * merges must fold away again; and in batches of 10 000–100 000 rows
 * (https://clickhouse.com/docs/optimize/bulk-inserts): a batch of up to 10 000 events lets the
 * wait, not the size, set the insert rate up to 10 000 requests a second. The processes read it
 * from the environment (infra/processes/consumer-batching-from-env.ts).
 */

/** Consumer batching (the processes read it from TOLLGATE_CONSUMER_BATCH_SIZE and TOLLGATE_CONSUMER_BATCH_WAIT_MS). */
export interface ConsumerBatching {
  /** Max events per batch (TOLLGATE_CONSUMER_BATCH_SIZE, default 10 000). */
  readonly maxBatchSize: number;
  /** Longest a partial batch for ClickHouse waits for more events, ms (TOLLGATE_CONSUMER_BATCH_WAIT_MS, default 1000; 0 hands batches over at once). */
  readonly maxBatchWaitMs: number;
}

/** Defaults of ConsumerBatching. */
export const DEFAULT_CONSUMER_BATCHING: ConsumerBatching = { maxBatchSize: 10_000, maxBatchWaitMs: 1000 };
