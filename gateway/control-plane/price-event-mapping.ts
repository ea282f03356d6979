/**
 * The fields of a PriceSet event for a price-book entry (schemas/billing/price-book.ts), shared by
 * the admin command and the config-file bootstrap. USD per million tokens; `effectiveFrom` as ms.
 */
import type { PriceEntryConfig } from '../../schemas/billing/price-book.ts';
import type { PriceSet } from '../../schemas/control-plane/control-plane-events.ts';

/** PriceSet without its event header. */
export type PriceSetFields = Omit<PriceSet, 'eventId' | 'occurredAt' | 'actor'>;

/** Maps `entry` (a validated `prices` entry) to PriceSet fields under `priceId`. */
export function priceSetFields(
  entry: Pick<
    PriceEntryConfig,
    | 'model'
    | 'channel'
    | 'inputPerMTok'
    | 'outputPerMTok'
    | 'cacheReadPerMTok'
    | 'cacheWritePerMTok'
    | 'cacheWrite1hPerMTok'
    | 'effectiveFrom'
  >,
  priceId: string,
): PriceSetFields {
  return {
    priceId,
    model: entry.model,
    channel: entry.channel ?? null,
    inputPerMTok: entry.inputPerMTok,
    outputPerMTok: entry.outputPerMTok,
    cacheReadPerMTok: entry.cacheReadPerMTok ?? null,
    cacheWritePerMTok: entry.cacheWritePerMTok ?? null,
    cacheWrite1hPerMTok: entry.cacheWrite1hPerMTok ?? null,
    effectiveFrom: Date.parse(entry.effectiveFrom),
  };
}
