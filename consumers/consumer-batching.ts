/**
 * How the consumers batch: at most `maxBatchSize` events per batch, and (for consumers whose sink
 * is ClickHouse) a partial batch held until its oldest event has waited `maxBatchWaitMs`, so that at
 * low load the analytics store gets about one insert per table per period instead of one per
 * request. ClickHouse asks for inserts in batches, at most about one per second
 * (https://clickhouse.com/docs/best-practices/selecting-an-insert-strategy, "Batch inserts if
 * synchronous"): every insert creates a part per table (and per materialized view) that background
 * merges must fold away again.
 */
import { parseWholeNumberVariable } from '../infra/parse-whole-number-variable.ts';

/** Consumer batching, as read from the environment. */
export interface ConsumerBatching {
  /** Max events per batch (TOLLGATE_CONSUMER_BATCH_SIZE, default 500). */
  readonly maxBatchSize: number;
  /** Longest a partial batch for ClickHouse waits for more events, ms (TOLLGATE_CONSUMER_BATCH_WAIT_MS, default 1000; 0 hands batches over at once). */
  readonly maxBatchWaitMs: number;
}

/** Defaults of ConsumerBatching. */
export const DEFAULT_CONSUMER_BATCHING: ConsumerBatching = { maxBatchSize: 500, maxBatchWaitMs: 1000 };

/**
 * Reads TOLLGATE_CONSUMER_BATCH_SIZE and TOLLGATE_CONSUMER_BATCH_WAIT_MS.
 * @throws Error naming the variable when it is not a whole number in range (size 1..100000, wait 0..60000 ms)
 */
export function consumerBatchingFromEnv(env: NodeJS.ProcessEnv = process.env): ConsumerBatching {
  const wholeNumber = (name: string, fallback: number, min: number, max: number): number => {
    const text = env[name];
    return text === undefined || text.trim() === '' ? fallback : parseWholeNumberVariable(name, text, { min, max });
  };
  return {
    maxBatchSize: wholeNumber('TOLLGATE_CONSUMER_BATCH_SIZE', DEFAULT_CONSUMER_BATCHING.maxBatchSize, 1, 100_000),
    maxBatchWaitMs: wholeNumber('TOLLGATE_CONSUMER_BATCH_WAIT_MS', DEFAULT_CONSUMER_BATCHING.maxBatchWaitMs, 0, 60_000),
  };
}
