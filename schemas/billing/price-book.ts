/**
 * The price book: USD per million tokens per model (the model the upstream served, after
 * `modelMap`), optionally per channel, each with an `effectiveFrom` time. Prices are parsed into
 * integer nano-USD per million tokens so that cost arithmetic is exact; costs are rounded half up
 * to whole nano-USD once per request.
 */
import { z } from 'zod';
import type { TokenCounts } from '../events/traffic-events.ts';

/**
 * Highest price accepted, USD per million tokens: the billing tables hold prices as Decimal64(9)
 * (at most 9 223 372 036.854775807), so a larger one could never be written.
 */
export const MAX_USD_PER_MTOK = 1_000_000_000;

/**
 * USD per million tokens: a finite JSON number in 0..MAX_USD_PER_MTOK with at most 9 decimals
 * (`1e-7` included). Non-numbers keep the parser's own wording (`expected number, got string`);
 * NaN and ±Infinity (e.g. `1e309`) are named.
 */
const usdPerMTok = z
  .number({ error: (issue) => (typeof issue.input === 'number' ? 'must be a finite number' : undefined) })
  .min(0, 'must be ≥ 0')
  .max(MAX_USD_PER_MTOK, `must be at most ${MAX_USD_PER_MTOK} USD per million tokens`)
  .refine((v) => Number(v.toFixed(9)) === v, 'must have at most 9 decimal places');

/** One price entry as written in the config file (`prices:`). */
export const priceEntrySchema = z
  .object({
    model: z.string().min(1),
    channel: z.string().min(1).optional(),
    inputPerMTok: usdPerMTok,
    outputPerMTok: usdPerMTok,
    /** Defaults to inputPerMTok. */
    cacheReadPerMTok: usdPerMTok.optional(),
    /** Cache writes with the default 5-minute lifetime (and every provider's writes but Anthropic's 1-hour ones). Defaults to inputPerMTok. */
    cacheWritePerMTok: usdPerMTok.optional(),
    /**
     * Anthropic cache writes with a 1-hour lifetime. Defaults to cacheWritePerMTok (itself
     * defaulting to inputPerMTok): a price never invents a rate the operator did not set. Anthropic
     * lists 1-hour writes at 2 × the base input price and 5-minute writes at 1.25 ×
     * (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching "Pricing"), so set both
     * for Claude models.
     */
    cacheWrite1hPerMTok: usdPerMTok.optional(),
    /** ISO-8601 time from which the entry applies (default: the epoch). */
    effectiveFrom: z.iso.datetime({ offset: true }).or(z.iso.date()).default('1970-01-01T00:00:00Z'),
  })
  .strict();

export const priceBookSchema = z.array(priceEntrySchema).default([]);
export type PriceEntryConfig = z.infer<typeof priceEntrySchema>;

/** A resolved price, in nano-USD per million tokens. */
export interface Price {
  readonly model: string;
  readonly channel: string | null;
  /** ms since epoch */
  readonly effectiveFrom: number;
  readonly inputNanoPerMTok: bigint;
  readonly outputNanoPerMTok: bigint;
  readonly cacheReadNanoPerMTok: bigint;
  readonly cacheWriteNanoPerMTok: bigint;
  /** 1-hour cache writes (Anthropic); the 5-minute rate when the entry names none. */
  readonly cacheWrite1hNanoPerMTok: bigint;
}

/** USD (a number with ≤ 9 decimals, at most MAX_USD_PER_MTOK) → exact nano-USD. */
export function usdToNano(usd: number): bigint {
  const [whole = '0', fraction = ''] = usd.toFixed(9).split('.');
  return BigInt(whole) * 1_000_000_000n + BigInt(fraction.padEnd(9, '0').slice(0, 9));
}

/** Parses config entries into prices. */
export function buildPriceBook(entries: ReadonlyArray<PriceEntryConfig>): Price[] {
  return entries.map((e) => ({
    model: e.model,
    channel: e.channel ?? null,
    effectiveFrom: Date.parse(e.effectiveFrom),
    inputNanoPerMTok: usdToNano(e.inputPerMTok),
    outputNanoPerMTok: usdToNano(e.outputPerMTok),
    cacheReadNanoPerMTok: usdToNano(e.cacheReadPerMTok ?? e.inputPerMTok),
    cacheWriteNanoPerMTok: usdToNano(e.cacheWritePerMTok ?? e.inputPerMTok),
    cacheWrite1hNanoPerMTok: usdToNano(e.cacheWrite1hPerMTok ?? e.cacheWritePerMTok ?? e.inputPerMTok),
  }));
}

/**
 * The price in effect for `model` on `channelId` at `at` (ms): among entries whose
 * effectiveFrom ≤ at, a channel-specific entry beats a general one, then the latest
 * effectiveFrom wins, and among equal ones the entry later in `book` (the one set last).
 * Undefined when the model has no price (cost 0, and the caller warns).
 */
export function findPrice(
  book: ReadonlyArray<Price>,
  model: string,
  channelId: string | null,
  at: number,
): Price | undefined {
  let best: Price | undefined;
  for (const price of book) {
    if (price.model !== model || price.effectiveFrom > at) continue;
    if (price.channel !== null && price.channel !== channelId) continue;
    if (!best) best = price;
    else if ((price.channel !== null) !== (best.channel !== null)) best = price.channel !== null ? price : best;
    else if (price.effectiveFrom >= best.effectiveFrom) best = price;
  }
  return best;
}

/**
 * Token counts as billing prices them (tokens): the five counts plus, for Anthropic, the part of
 * `cacheWriteTokens` written with a 1-hour lifetime (absent = 0; UsageRecorded from version 5).
 */
export type PricedTokenCounts = TokenCounts & { readonly cacheWrite1hTokens?: number };

/**
 * Cost of `usage` at `price`, in nano-USD: uncached input at the input price, cache reads at the
 * cache-read price, 5-minute cache writes (`cacheWriteTokens − cacheWrite1hTokens`) at the
 * cache-write price and 1-hour writes at the 1-hour price, all output (reasoning included) at the
 * output price; the sum of tokens × nano-per-MTok is divided by 1e6 once and rounded half up.
 */
export function costNanoUsd(usage: PricedTokenCounts, price: Price): bigint {
  const cacheRead = BigInt(usage.cachedInputTokens);
  const cacheWrite1hTokens = Math.min(Math.max(0, usage.cacheWrite1hTokens ?? 0), usage.cacheWriteTokens);
  const cacheWrite1h = BigInt(cacheWrite1hTokens);
  const cacheWrite5m = BigInt(usage.cacheWriteTokens - cacheWrite1hTokens);
  const uncached = BigInt(Math.max(0, usage.inputTokens - usage.cachedInputTokens - usage.cacheWriteTokens));
  const numerator =
    uncached * price.inputNanoPerMTok +
    cacheRead * price.cacheReadNanoPerMTok +
    cacheWrite5m * price.cacheWriteNanoPerMTok +
    cacheWrite1h * price.cacheWrite1hNanoPerMTok +
    BigInt(usage.outputTokens) * price.outputNanoPerMTok;
  return (numerator + 500_000n) / 1_000_000n;
}

/**
 * What reading from the cache saved against paying the input price, in nano-USD:
 * `cachedInputTokens × (input price − cache-read price)`, divided by 1e6 and rounded half up like
 * a cost; 0 when the cache-read price is not below the input price (never negative). Cache writes
 * are not counted against it: the savings are what the reads avoided, the writes' surcharge is in
 * the cost.
 */
export function cacheSavingsNanoUsd(usage: Pick<TokenCounts, 'cachedInputTokens'>, price: Price): bigint {
  const discount = price.inputNanoPerMTok - price.cacheReadNanoPerMTok;
  if (discount <= 0n || usage.cachedInputTokens <= 0) return 0n;
  return (BigInt(usage.cachedInputTokens) * discount + 500_000n) / 1_000_000n;
}
