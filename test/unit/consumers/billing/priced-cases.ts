/**
 * One price book and a table of requests with their cost worked out by hand (nano-USD), shared
 * by the ledger and billing tests on both engines. Expected values are written out, not computed
 * with the price book's own arithmetic, so a wrong formula fails the tests.
 */
import { buildPriceBook, priceBookSchema, type Price } from '../../../../schemas/billing/price-book.ts';
import type { TokenUsage } from '../../../../schemas/events/traffic-events.ts';
import { usage } from './traffic-event-builders.ts';

/** The switch time of `switch-model`'s second price (ms). */
export const SWITCH_AT = Date.UTC(2025, 5, 1, 0, 0, 0, 0);

/** USD per million tokens, as in a config file. */
export const PRICES: Price[] = buildPriceBook(
  priceBookSchema.parse([
    { model: 'priced-model', inputPerMTok: 3, outputPerMTok: 15 },
    { model: 'priced-model', channel: 'ch-b', inputPerMTok: 2.7, outputPerMTok: 13.5 },
    { model: 'switch-model', inputPerMTok: 1, outputPerMTok: 2 },
    { model: 'switch-model', inputPerMTok: 0.5, outputPerMTok: 1.5, effectiveFrom: '2025-06-01T00:00:00Z' },
    { model: 'cache-model', inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 },
    { model: 'tiny-model', inputPerMTok: 0.000001, outputPerMTok: 0.000001 },
    { model: 'big-model', inputPerMTok: 15, outputPerMTok: 75 },
  ]),
);

/** One priced request: where and when, its usage, and its cost and price by hand. */
export interface PricedCase {
  readonly name: string;
  readonly upstreamModel: string;
  readonly channelId: string;
  readonly occurredAt: number;
  readonly usage: TokenUsage;
  /** nano-USD */
  readonly costNano: bigint;
  /** The price entry expected: its channel ('' = general), effectiveFrom (ms), input/output nano-USD per MTok; null = unpriced. */
  readonly price: {
    channel: string;
    effectiveFromMs: number;
    inputNano: bigint;
    outputNano: bigint;
    cacheReadNano: bigint;
    cacheWriteNano: bigint;
  } | null;
}

const JUNE_15 = Date.UTC(2025, 5, 15, 12, 0, 0, 0);
const general = (input: bigint, output: bigint, effectiveFromMs = 0) => ({
  channel: '',
  effectiveFromMs,
  inputNano: input,
  outputNano: output,
  cacheReadNano: input,
  cacheWriteNano: input,
});

export const PRICED_CASES: ReadonlyArray<PricedCase> = [
  // 1000 × 3 + 500 × 15 = 10 500 USD·tok/MTok → 0.0105 USD
  {
    name: 'general price',
    upstreamModel: 'priced-model',
    channelId: 'ch-a',
    occurredAt: JUNE_15,
    usage: usage({ inputTokens: 1000, outputTokens: 500 }),
    costNano: 10_500_000n,
    price: general(3_000_000_000n, 15_000_000_000n),
  },
  // channel override: 1000 × 2.7 + 500 × 13.5 = 9 450 → 0.00945 USD
  {
    name: 'channel override',
    upstreamModel: 'priced-model',
    channelId: 'ch-b',
    occurredAt: JUNE_15,
    usage: usage({ inputTokens: 1000, outputTokens: 500 }),
    costNano: 9_450_000n,
    price: {
      channel: 'ch-b',
      effectiveFromMs: 0,
      inputNano: 2_700_000_000n,
      outputNano: 13_500_000_000n,
      cacheReadNano: 2_700_000_000n,
      cacheWriteNano: 2_700_000_000n,
    },
  },
  // 1 ms before the switch: 1234 × 1 + 567 × 2 = 2 368 → 0.002368 USD
  {
    name: 'before effectiveFrom',
    upstreamModel: 'switch-model',
    channelId: 'ch-a',
    occurredAt: SWITCH_AT - 1,
    usage: usage({ inputTokens: 1234, outputTokens: 567 }),
    costNano: 2_368_000n,
    price: general(1_000_000_000n, 2_000_000_000n),
  },
  // at the switch: 1234 × 0.5 + 567 × 1.5 = 1 467.5 → 0.0014675 USD
  {
    name: 'at effectiveFrom',
    upstreamModel: 'switch-model',
    channelId: 'ch-a',
    occurredAt: SWITCH_AT,
    usage: usage({ inputTokens: 1234, outputTokens: 567 }),
    costNano: 1_467_500n,
    price: general(500_000_000n, 1_500_000_000n, SWITCH_AT),
  },
  // 10 000 input of which 6 000 cache reads and 2 000 cache writes; 300 output (100 reasoning):
  // 2 000 × 3 + 6 000 × 0.3 + 2 000 × 3.75 + 300 × 15 = 19 800 → 0.0198 USD
  {
    name: 'cache read and write prices',
    upstreamModel: 'cache-model',
    channelId: 'ch-a',
    occurredAt: JUNE_15,
    usage: usage({
      inputTokens: 10_000,
      cachedInputTokens: 6_000,
      cacheWriteTokens: 2_000,
      outputTokens: 300,
      reasoningTokens: 100,
    }),
    costNano: 19_800_000n,
    price: {
      channel: '',
      effectiveFromMs: 0,
      inputNano: 3_000_000_000n,
      outputNano: 15_000_000_000n,
      cacheReadNano: 300_000_000n,
      cacheWriteNano: 3_750_000_000n,
    },
  },
  // 1 500 × 0.000001 USD/MTok = 1.5 nano-USD → rounds half up to 2
  {
    name: 'half a nano-dollar rounds up',
    upstreamModel: 'tiny-model',
    channelId: 'ch-a',
    occurredAt: JUNE_15,
    usage: usage({ inputTokens: 1_500, outputTokens: 0 }),
    costNano: 2n,
    price: general(1_000n, 1_000n),
  },
  // 2 499 × 0.000001 = 2.499 nano-USD → 2
  {
    name: 'below half rounds down',
    upstreamModel: 'tiny-model',
    channelId: 'ch-a',
    occurredAt: JUNE_15,
    usage: usage({ inputTokens: 2_499, outputTokens: 0 }),
    costNano: 2n,
    price: general(1_000n, 1_000n),
  },
  // 200 000 000 × 15 + 10 000 000 × 75 = 3 750 000 000 → 3 750 USD (large but exact)
  {
    name: 'large cost',
    upstreamModel: 'big-model',
    channelId: 'ch-a',
    occurredAt: JUNE_15,
    usage: usage({ inputTokens: 200_000_000, outputTokens: 10_000_000 }),
    costNano: 3_750_000_000_000n,
    price: general(15_000_000_000n, 75_000_000_000n),
  },
  {
    name: 'no price',
    upstreamModel: 'unpriced-model',
    channelId: 'ch-a',
    occurredAt: JUNE_15,
    usage: usage({ inputTokens: 1000, outputTokens: 500 }),
    costNano: 0n,
    price: null,
  },
];

/** The warning the consumers give for PRICED_CASES' one unpriced request. */
export const UNPRICED_WARNING = 'no price for model "unpriced-model" on channel "ch-a": 1 request(s) costed at 0';

/** Sum of PRICED_CASES' costs in nano-USD: 3 750.043 585 504 USD. */
export const PRICED_CASES_TOTAL_NANO = PRICED_CASES.reduce((sum, c) => sum + c.costNano, 0n);
