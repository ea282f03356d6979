/**
 * The consumers' batching (consumers/consumer-batching.ts) from TOLLGATE_CONSUMER_BATCH_SIZE and
 * TOLLGATE_CONSUMER_BATCH_WAIT_MS, for the composition roots that run consumers.
 */
import { DEFAULT_CONSUMER_BATCHING, type ConsumerBatching } from '../../consumers/consumer-batching.ts';
import { parseWholeNumberVariable } from '../parse-whole-number-variable.ts';

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
