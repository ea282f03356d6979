/**
 * What one billed UsageRecorded adds to the budget windows its gateway node reserved in (the
 * event's `budgetCounters`, schemas/state-store/budget-ledger.ts): its cost and tokens (input +
 * output) to each budget or TPD counter, one request to each RPD counter (`rpd:` ids count
 * requests in their tokens). The billing consumer and the embedded state rebuild both apply these,
 * so a rebuilt ledger equals the one the consumers built.
 */
import type { UsageRecorded } from '../../schemas/events/traffic-events.ts';
import { REQUEST_COUNTER_PREFIX, type BudgetSpendIncrement } from '../../schemas/state-store/budget-ledger.ts';
import type { LogPosition } from '../../schemas/state-store/state-store.ts';

/**
 * The budget increments of one event at `position`, costed `costNanoUsd` (nano-USD, as billed);
 * [] when the event names no counter (older events, or no budget applied).
 */
export function budgetSpendIncrements(
  event: Pick<UsageRecorded, 'requestId' | 'budgetCounters' | 'inputTokens' | 'outputTokens'>,
  position: LogPosition,
  costNanoUsd: bigint,
): BudgetSpendIncrement[] {
  if (event.budgetCounters.length === 0) return [];
  const tokens = event.inputTokens + event.outputTokens;
  return event.budgetCounters.map((counter) => {
    const countsRequests = counter.budgetId.startsWith(REQUEST_COUNTER_PREFIX);
    return {
      position,
      requestId: event.requestId,
      counter: { budgetId: counter.budgetId, windowStartMs: counter.windowStartMs, windowEndMs: counter.windowEndMs },
      costNanoUsd: countsRequests ? 0n : costNanoUsd,
      tokens: countsRequests ? 1 : tokens,
    };
  });
}
