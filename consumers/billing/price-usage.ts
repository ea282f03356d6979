/**
 * Prices one request's usage with the price book — shared by the ledger (cost_usd of each
 * consumption_log row) and billing (billing lines, spend counters) so both agree to the nano-USD.
 */
import { costNanoUsd, findPrice, type Price, type PricedTokenCounts } from '../../schemas/billing/price-book.ts';

/** The price applied to a request and what it cost. */
export interface PricedUsage {
  /** The price-book entry in effect, or undefined when none applies (cost 0). */
  readonly price: Price | undefined;
  /** Cost in nano-USD (1e-9 USD), rounded half up once; 0n when unpriced. */
  readonly costNanoUsd: bigint;
  /** Why a request that used tokens could not be priced (same text for the same model and channel, so callers can aggregate), or null. */
  readonly warning: string | null;
}

/** Where and when the usage happened, for the price lookup. */
export interface PriceLookup {
  /** The model the upstream served (after modelMap); null when no channel served the request. */
  readonly upstreamModel: string | null;
  readonly channelId: string | null;
  /** ms since epoch: the price in effect at this time applies. */
  readonly at: number;
}

/**
 * Finds the price in effect and computes the cost (`costNanoUsd` of the price book). No price,
 * or no upstream model, means cost 0; a warning is returned only when the request used tokens
 * (a request refused before any channel costs nothing and is not worth a warning).
 */
export function priceUsage(prices: ReadonlyArray<Price>, usage: PricedTokenCounts, lookup: PriceLookup): PricedUsage {
  const price =
    lookup.upstreamModel === null ? undefined : findPrice(prices, lookup.upstreamModel, lookup.channelId, lookup.at);
  if (price) return { price, costNanoUsd: costNanoUsd(usage, price), warning: null };
  const usedTokens = usage.inputTokens > 0 || usage.outputTokens > 0;
  if (!usedTokens) return { price: undefined, costNanoUsd: 0n, warning: null };
  const warning =
    lookup.upstreamModel === null
      ? 'request used tokens but names no upstream model'
      : `no price for model ${JSON.stringify(lookup.upstreamModel)} on channel ${JSON.stringify(lookup.channelId ?? '')}`;
  return { price: undefined, costNanoUsd: 0n, warning };
}
