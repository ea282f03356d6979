/**
 * Spend counters are signed 64-bit integers of nano-USD in both adapters (Redis INCRBY's range):
 * at most 2^63 − 1 nano-USD ≈ 9.22e9 USD per key or user. Both adapters refuse what Redis would.
 */
import { offsetOf } from './applied-watermark.ts';
import type { LogPosition, SpendIncrement } from './state-store.ts';

/** Largest spend counter value, nano-USD (2^63 − 1). */
export const MAX_SPEND_NANO_USD = 2n ** 63n - 1n;

/**
 * Checks one spend increment and the ids it applies to.
 * @throws RangeError when `costNanoUsd` is not in 0..2^63 − 1, the key id is empty or the log
 *   position is malformed.
 */
export function assertSpendIncrement(position: LogPosition, keyId: string, costNanoUsd: bigint): void {
  offsetOf(position);
  if (!keyId) throw new RangeError('addSpend needs a keyId');
  if (typeof costNanoUsd !== 'bigint' || costNanoUsd > MAX_SPEND_NANO_USD || costNanoUsd < 0n) {
    throw new RangeError(`spend increment must be an integer of nano-USD in 0..2^63-1, got ${String(costNanoUsd)}`);
  }
}

/**
 * Checks a batch for addSpendBatch: every increment well formed, all of one partition, offsets
 * strictly increasing.
 * @throws RangeError naming the first problem
 */
export function assertSpendBatch(increments: ReadonlyArray<SpendIncrement>): void {
  let previous: SpendIncrement | undefined;
  for (const increment of increments) {
    assertSpendIncrement(increment.position, increment.keyId, increment.costNanoUsd);
    if (previous) {
      if (
        previous.position.topic !== increment.position.topic ||
        previous.position.partition !== increment.position.partition
      )
        throw new RangeError('addSpendBatch takes the increments of one partition');
      if (offsetOf(increment.position) <= offsetOf(previous.position))
        throw new RangeError('addSpendBatch takes increments in increasing offset order');
    }
    previous = increment;
  }
}

/**
 * Adds two counter values the way Redis INCRBY does.
 * @throws RangeError on signed 64-bit overflow (Redis: "increment or decrement would overflow").
 */
export function addSpendChecked(total: bigint, costNanoUsd: bigint): bigint {
  const sum = total + costNanoUsd;
  if (sum > MAX_SPEND_NANO_USD) throw new RangeError('spend counter would overflow 64 bits');
  return sum;
}
