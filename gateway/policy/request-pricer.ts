/**
 * Prices for budget admission and settlement, from the control plane's price book (the same
 * entries and the same `findPrice` rule billing uses, schemas/billing/price-book.ts).
 *
 * - Worst case, at admission: the request may be served by any channel of its model, each with its
 *   own upstream model (`modelMap`) and channel-specific price, so the hold takes the highest input
 *   price and the highest output price among them.
 * - Real cost, at settlement: the served channel's upstream model, as billing will price it.
 * A model without any price costs 0 (billing bills it at 0 too, with a warning).
 */
import { buildPriceBook, costNanoUsd, findPrice, type Price } from '../../schemas/billing/price-book.ts';
import type { TokenCounts } from '../../schemas/events/traffic-events.ts';
import type { PriceRecord } from '../../schemas/control-plane/control-plane-records.ts';
import { upstreamModelFor, type Channel } from '../routing/channel.ts';

/** Highest prices of a model over its channels, nano-USD per million tokens (0 when unpriced). */
export interface WorstCasePrice {
  readonly inputNanoPerMTok: bigint;
  readonly outputNanoPerMTok: bigint;
}

/** What the pricer reads: the price entries, a version that changes with them, and the channels of a model. */
export interface RequestPricerSources {
  /** Latest entry per priceId (ControlPlaneView.prices). */
  prices(): ReadonlyArray<PriceRecord>;
  /** Increases whenever the price entries may have changed (ControlPlaneView.version). */
  version(): number;
  /** Enabled channels serving a client model (ChannelRouter.candidatesFor, any order). */
  channelsServing(model: string): ReadonlyArray<Channel>;
}

/** Prices requests for budgets (see the module doc). */
export interface RequestPricer {
  /** The highest input and output prices of `model` over its channels at `atMs`. */
  worstCasePrice(model: string, atMs: number): WorstCasePrice;
  /** nano-USD of `inputTokens` + `outputTokens` at `price`, rounded half up as billing rounds. */
  worstCaseCost(price: WorstCasePrice, inputTokens: number, outputTokens: number): bigint;
  /** nano-USD of `usage` served by `upstreamModel` on `channelId` at `atMs`, as billing prices it (0 when unpriced). */
  costOf(usage: TokenCounts, upstreamModel: string, channelId: string, atMs: number): bigint;
  /**
   * USD of `inputTokens` uncached input and `outputTokens` output on `channel` serving the client
   * model `model` at `atMs` (the `cost` routing strategy); undefined when that upstream model has no price.
   */
  expectedCostUsd(
    channel: Channel,
    model: string,
    inputTokens: number,
    outputTokens: number,
    atMs: number,
  ): number | undefined;
  /** The price billing would apply to `upstreamModel` on `channelId` at `atMs` (findPrice), or undefined when none. */
  priceOf(upstreamModel: string, channelId: string, atMs: number): Price | undefined;
}

const UNPRICED: WorstCasePrice = { inputNanoPerMTok: 0n, outputNanoPerMTok: 0n };

/** Creates the pricer; its price book is rebuilt when `version()` changes. */
export function createRequestPricer(sources: RequestPricerSources): RequestPricer {
  let builtAt = -1;
  let book: Price[] = [];
  const currentBook = (): Price[] => {
    const version = sources.version();
    if (version !== builtAt) {
      book = buildPriceBook(sources.prices());
      builtAt = version;
    }
    return book;
  };
  return {
    worstCasePrice(model, atMs) {
      const prices = currentBook();
      if (prices.length === 0) return UNPRICED;
      let input = 0n;
      let output = 0n;
      for (const channel of sources.channelsServing(model)) {
        const price = findPrice(prices, upstreamModelFor(channel, model), channel.id, atMs);
        if (!price) continue;
        const highestInput = [
          price.inputNanoPerMTok,
          price.cacheWriteNanoPerMTok,
          price.cacheWrite1hNanoPerMTok,
          price.cacheReadNanoPerMTok,
        ].reduce((a, b) => (b > a ? b : a));
        if (highestInput > input) input = highestInput;
        if (price.outputNanoPerMTok > output) output = price.outputNanoPerMTok;
      }
      return input === 0n && output === 0n ? UNPRICED : { inputNanoPerMTok: input, outputNanoPerMTok: output };
    },
    worstCaseCost(price, inputTokens, outputTokens) {
      const numerator =
        BigInt(Math.max(0, Math.ceil(inputTokens))) * price.inputNanoPerMTok +
        BigInt(Math.max(0, Math.ceil(outputTokens))) * price.outputNanoPerMTok;
      return (numerator + 500_000n) / 1_000_000n;
    },
    costOf(usage, upstreamModel, channelId, atMs) {
      const price = findPrice(currentBook(), upstreamModel, channelId, atMs);
      return price ? costNanoUsd(usage, price) : 0n;
    },
    expectedCostUsd(channel, model, inputTokens, outputTokens, atMs) {
      const price = findPrice(currentBook(), upstreamModelFor(channel, model), channel.id, atMs);
      if (!price) return undefined;
      const nano =
        Math.max(0, inputTokens) * Number(price.inputNanoPerMTok) +
        Math.max(0, outputTokens) * Number(price.outputNanoPerMTok);
      return nano / 1e15;
    },
    priceOf(upstreamModel, channelId, atMs) {
      return findPrice(currentBook(), upstreamModel, channelId, atMs);
    },
  };
}
