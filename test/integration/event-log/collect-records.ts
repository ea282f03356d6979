/**
 * Helpers of the Kafka event-log tests: a subscription that records every batch it accepted (and
 * every call, accepted or not), and a poll-until helper.
 */
import type { DeliveredRecord, EventLog, Subscription } from '../../../schemas/event-log/event-log.ts';

/** A subscription and what it saw. */
export interface Collector {
  readonly subscription: Subscription;
  /** Records of the batches the handler accepted, in delivery order. */
  readonly accepted: DeliveredRecord[];
  /** First offsets (`partition:offset`) of every handler call, accepted or rejected. */
  readonly calls: Array<{ first: string; size: number; rejected: boolean }>;
}

/**
 * Subscribes `groupId` to `topics`; `reject(callNumber)` (1-based) makes that call fail.
 */
export async function collect(
  log: EventLog,
  groupId: string,
  topics: string[],
  options: { maxBatchSize?: number; maxBatchWaitMs?: number; reject?: (call: number) => boolean } = {},
): Promise<Collector> {
  const accepted: DeliveredRecord[] = [];
  const calls: Collector['calls'] = [];
  const subscription = await log.subscribe({
    groupId,
    topics,
    ...(options.maxBatchSize ? { maxBatchSize: options.maxBatchSize } : {}),
    ...(options.maxBatchWaitMs ? { maxBatchWaitMs: options.maxBatchWaitMs } : {}),
    handleBatch: async (batch) => {
      const rejected = options.reject?.(calls.length + 1) ?? false;
      calls.push({ first: `${batch[0]?.partition}:${batch[0]?.offset}`, size: batch.length, rejected });
      if (rejected) throw new Error('sink unavailable (test)');
      accepted.push(...batch);
    },
  });
  return { subscription, accepted, calls };
}

/** Polls `predicate` every 20 ms. @throws Error naming `what` after `timeoutMs`. */
export async function waitUntil(what: string, predicate: () => boolean, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** Unique suffix for topic and group names of one test run. */
export const RUN_ID = `${Date.now().toString(36)}-${process.pid}`;
