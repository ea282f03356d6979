/**
 * The input checks and shared constants of both BudgetLedger adapters (memory and Redis), so that
 * they refuse exactly the same calls (schemas/state-store/budget-ledger.ts): amounts are integers
 * of nano-USD in 0..2^63 − 1 (Redis HINCRBY's signed 64-bit range), tokens non-negative safe
 * integers, ids non-empty, times safe integers of ms since epoch, counters well formed, and a
 * spend batch of one partition in offset order.
 */
import { offsetOf } from '../../schemas/state-store/applied-watermark.ts';
import type { BudgetClaim, BudgetCounter, BudgetSpendIncrement } from '../../schemas/state-store/budget-ledger.ts';

/** Largest amount a counter, a hold or a sum of holds may reach, nano-USD (2^63 − 1, Redis' integer range). */
export const MAX_BUDGET_NANO_USD = 2n ** 63n - 1n;

/** Largest token total a counter or a sum of holds may reach (2^53 − 1: read back exactly as a JavaScript number). */
export const MAX_BUDGET_TOKENS = Number.MAX_SAFE_INTEGER;

/** How long after its window's end a counter is kept, ms (35 days); counters without an end are kept for ever. */
export const BUDGET_COUNTER_RETENTION_MS = 35 * 24 * 60 * 60 * 1000;

/** The id of a counter, `<budgetId>@<windowStartMs>` (as budgetCounterId in schemas/control-plane/budget-periods.ts). */
export function budgetCounterKey(counter: BudgetCounter): string {
  return `${counter.budgetId}@${counter.windowStartMs}`;
}

/** When a counter may be forgotten (its window's end + 35 days), ms since epoch; null = never. */
export function budgetCounterExpiry(counter: BudgetCounter): number | null {
  return counter.windowEndMs === null ? null : counter.windowEndMs + BUDGET_COUNTER_RETENTION_MS;
}

/** @throws RangeError unless `value` is an integer of nano-USD in 0..2^63 − 1 */
export function assertNanoUsd(value: bigint, what: string): void {
  if (typeof value !== 'bigint' || value < 0n || value > MAX_BUDGET_NANO_USD)
    throw new RangeError(`${what} must be an integer of nano-USD in 0..2^63-1, got ${String(value)}`);
}

/** @throws RangeError unless `value` is a non-negative safe integer of tokens */
export function assertTokens(value: number, what: string): void {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new RangeError(`${what} must be a non-negative integer of tokens, got ${String(value)}`);
}

/** @throws RangeError unless `value` is a safe integer (ms since epoch) */
export function assertTime(value: number, what: string): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${what} must be an integer of ms, got ${String(value)}`);
}

/** @throws RangeError unless `id` is a non-empty string */
function assertId(id: string, what: string): void {
  if (typeof id !== 'string' || id.length === 0) throw new RangeError(`${what} must be a non-empty string`);
}

/**
 * Checks a counter: a non-empty budget id, an integer window start and an end that is null or
 * after the start.
 * @throws RangeError naming the problem
 */
export function assertBudgetCounter(counter: BudgetCounter): void {
  if (!counter || typeof counter !== 'object') throw new RangeError('a budget counter must be an object');
  assertId(counter.budgetId, 'budgetId');
  assertTime(counter.windowStartMs, 'windowStartMs');
  if (counter.windowEndMs !== null) {
    assertTime(counter.windowEndMs, 'windowEndMs');
    if (counter.windowEndMs <= counter.windowStartMs)
      throw new RangeError(`windowEndMs must be after windowStartMs in ${JSON.stringify(counter)}`);
  }
}

/**
 * Checks a reserve call: the request id, the times, every claim (counter, limits, amounts) and
 * that no counter is claimed twice.
 * @throws RangeError naming the first problem
 */
export function assertReserve(
  requestId: string,
  claims: ReadonlyArray<BudgetClaim>,
  holdUntilMs: number,
  nowMs: number,
): void {
  assertId(requestId, 'requestId');
  assertTime(holdUntilMs, 'holdUntilMs');
  assertTime(nowMs, 'nowMs');
  const seen = new Set<string>();
  claims.forEach((claim, i) => {
    assertBudgetCounter(claim.counter);
    if (claim.limitNanoUsd !== null) assertNanoUsd(claim.limitNanoUsd, `claims[${i}].limitNanoUsd`);
    if (claim.limitTokens !== null) assertTokens(claim.limitTokens, `claims[${i}].limitTokens`);
    assertNanoUsd(claim.reserveNanoUsd, `claims[${i}].reserveNanoUsd`);
    assertTokens(claim.reserveTokens, `claims[${i}].reserveTokens`);
    const id = budgetCounterKey(claim.counter);
    if (seen.has(id)) throw new RangeError(`counter ${id} is claimed twice`);
    seen.add(id);
  });
}

/**
 * Checks a settle call.
 * @throws RangeError naming the first problem
 */
export function assertSettle(
  requestId: string,
  counters: ReadonlyArray<BudgetCounter>,
  costNanoUsd: bigint,
  tokens: number,
  holdUntilMs: number,
  nowMs: number,
): void {
  assertId(requestId, 'requestId');
  counters.forEach(assertBudgetCounter);
  assertNanoUsd(costNanoUsd, 'costNanoUsd');
  assertTokens(tokens, 'tokens');
  assertTime(holdUntilMs, 'holdUntilMs');
  assertTime(nowMs, 'nowMs');
}

/**
 * Checks a spend batch: every increment well formed (position, request id, counter, cost in
 * 0..2^63 − 1, tokens), all of one partition, offsets non-decreasing, and no (position, counter)
 * pair twice (several counters may share a position, one counter takes a position once).
 * @throws RangeError naming the first problem
 */
export function assertBudgetSpendBatch(increments: ReadonlyArray<BudgetSpendIncrement>): void {
  let previous: BudgetSpendIncrement | undefined;
  let previousOffset = -1;
  let countersAtOffset = new Set<string>();
  increments.forEach((increment, i) => {
    const offset = offsetOf(increment.position);
    assertId(increment.requestId, `increments[${i}].requestId`);
    assertBudgetCounter(increment.counter);
    assertNanoUsd(increment.costNanoUsd, `increments[${i}].costNanoUsd`);
    assertTokens(increment.tokens, `increments[${i}].tokens`);
    if (previous) {
      if (
        previous.position.topic !== increment.position.topic ||
        previous.position.partition !== increment.position.partition
      )
        throw new RangeError('addBudgetSpendBatch takes the increments of one partition');
      if (offset < previousOffset)
        throw new RangeError('addBudgetSpendBatch takes increments in non-decreasing offset order');
    }
    if (offset !== previousOffset) countersAtOffset = new Set();
    const id = budgetCounterKey(increment.counter);
    if (countersAtOffset.has(id))
      throw new RangeError(`addBudgetSpendBatch: counter ${id} appears twice at offset ${offset}`);
    countersAtOffset.add(id);
    previous = increment;
    previousOffset = offset;
  });
}

/** @throws RangeError unless 0 < percent ≤ 100 (a finite number) */
export function assertPercent(percent: number): void {
  if (typeof percent !== 'number' || !Number.isFinite(percent) || percent <= 0 || percent > 100)
    throw new RangeError(`a threshold percent must be in (0, 100], got ${String(percent)}`);
}
