/**
 * Before a batch is priced, the consumers' control-plane fold must have applied every PriceSet the
 * batch's gateway nodes had: the highest `priceRevision` in the batch. Otherwise the order in
 * which the config topic and the traffic topics reach this process could change a bill.
 */
import type { PriceSource } from '../control-plane/consumer-control-plane.ts';

/** Default longest wait for the config topic, ms. */
export const DEFAULT_PRICE_WAIT_MS = 10_000;

/**
 * Resolves once `prices` has applied the highest `priceRevision` among `events` (null revisions
 * need nothing).
 * @throws Error after `timeoutMs` (default 10 000 ms): the caller's batch is rejected and redelivered
 */
export async function awaitPriceRevisions(
  prices: PriceSource,
  events: ReadonlyArray<{ readonly priceRevision: number | null }>,
  timeoutMs = DEFAULT_PRICE_WAIT_MS,
): Promise<void> {
  let highest = 0;
  for (const event of events)
    if (event.priceRevision !== null && event.priceRevision > highest) highest = event.priceRevision;
  if (highest > 0) await prices.awaitRevision(highest, timeoutMs);
}
