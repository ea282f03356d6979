import { describe, expect, it } from 'vitest';
import {
  buildPriceBook,
  cacheSavingsNanoUsd,
  costNanoUsd,
  priceEntrySchema,
} from '../../../schemas/billing/price-book.ts';

const counts = (over: Partial<Parameters<typeof costNanoUsd>[0]> = {}) => ({
  inputTokens: 0,
  cachedInputTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  ...over,
});

// Claude Sonnet 4.5 as Anthropic lists it: input 3, 5-minute write 3.75, 1-hour write 6, read 0.30,
// output 15 USD per million tokens.
const [claude] = buildPriceBook([
  priceEntrySchema.parse({
    model: 'claude-sonnet-4-5',
    inputPerMTok: 3,
    outputPerMTok: 15,
    cacheReadPerMTok: 0.3,
    cacheWritePerMTok: 3.75,
    cacheWrite1hPerMTok: 6,
  }),
]);
if (!claude) throw new Error('no price');

describe('cache writes priced by lifetime', () => {
  it('prices 5-minute writes at the cache-write price and 1-hour writes at the 1-hour price, to the nano-USD', () => {
    // 21 uncached × 3 + 1134 × 3.75 + 4096 × 6 + 15 × 15 USD/MTok
    // = (63 + 4252.5 + 24576 + 225) µUSD = 29 116.5 µUSD = 29 116 500 nano-USD
    expect(
      costNanoUsd(
        counts({ inputTokens: 5251, cacheWriteTokens: 5230, cacheWrite1hTokens: 4096, outputTokens: 15 }),
        claude,
      ),
    ).toBe(29_116_500n);
    // the same writes all 5-minute: 5230 × 3.75 = 19 612.5 µUSD
    expect(costNanoUsd(counts({ inputTokens: 5251, cacheWriteTokens: 5230, outputTokens: 15 }), claude)).toBe(
      19_900_500n,
    );
  });

  it('rounds once, half up, over the sum of the parts', () => {
    // one 5-minute token at 3.75 + one 1-hour token at 6 USD/MTok = 9.75e-6 USD = 9 750 nano-USD
    expect(costNanoUsd(counts({ inputTokens: 2, cacheWriteTokens: 2, cacheWrite1hTokens: 1 }), claude)).toBe(9_750n);
    const [tiny] = buildPriceBook([
      { model: 'm', inputPerMTok: 0, outputPerMTok: 0, cacheWrite1hPerMTok: 0.0005, effectiveFrom: '1970-01-01' },
    ]);
    if (!tiny) throw new Error('no price');
    expect(costNanoUsd(counts({ inputTokens: 1, cacheWriteTokens: 1, cacheWrite1hTokens: 1 }), tiny)).toBe(1n); // 0.5 nano-USD rounds up
  });

  it('prices 1-hour writes at the cache-write price when the entry names no 1-hour price, and that at the input price', () => {
    const [withWrite, bare] = buildPriceBook([
      { model: 'a', inputPerMTok: 3, outputPerMTok: 15, cacheWritePerMTok: 3.75, effectiveFrom: '1970-01-01' },
      { model: 'b', inputPerMTok: 3, outputPerMTok: 15, effectiveFrom: '1970-01-01' },
    ]);
    expect(withWrite?.cacheWrite1hNanoPerMTok).toBe(3_750_000_000n);
    expect(bare?.cacheWrite1hNanoPerMTok).toBe(3_000_000_000n);
  });

  it('counts no more 1-hour writes than writes', () => {
    expect(costNanoUsd(counts({ inputTokens: 10, cacheWriteTokens: 10, cacheWrite1hTokens: 99 }), claude)).toBe(
      costNanoUsd(counts({ inputTokens: 10, cacheWriteTokens: 10, cacheWrite1hTokens: 10 }), claude),
    );
  });

  it('refuses a 1-hour price the other prices would refuse', () => {
    const entry = { model: 'm', inputPerMTok: 1, outputPerMTok: 1 };
    expect(priceEntrySchema.safeParse({ ...entry, cacheWrite1hPerMTok: -1 }).success).toBe(false);
    expect(priceEntrySchema.safeParse({ ...entry, cacheWrite1hPerMTok: 1e-10 }).success).toBe(false);
    expect(priceEntrySchema.safeParse({ ...entry, cacheWrite1hPerMTok: '6' }).success).toBe(false);
  });
});

describe('cache savings', () => {
  it('is the cached reads times the input price minus the cache-read price, rounded half up', () => {
    // 2048 × (3 − 0.30) USD/MTok = 5529.6 µUSD = 5 529 600 nano-USD
    expect(cacheSavingsNanoUsd({ cachedInputTokens: 2048 }, claude)).toBe(5_529_600n);
    // 1 × 2.7 µUSD = 2 700 nano-USD; a 0.0000005 USD/MTok discount on 1 token rounds 0.0005 nano → 0
    expect(cacheSavingsNanoUsd({ cachedInputTokens: 1 }, claude)).toBe(2_700n);
  });

  it('is never negative: 0 when reads cost as much as or more than input, or nothing was read', () => {
    const [same, dearer] = buildPriceBook([
      { model: 'same', inputPerMTok: 1, outputPerMTok: 1, effectiveFrom: '1970-01-01' },
      { model: 'dearer', inputPerMTok: 1, outputPerMTok: 1, cacheReadPerMTok: 2, effectiveFrom: '1970-01-01' },
    ]);
    if (!same || !dearer) throw new Error('no price');
    expect(cacheSavingsNanoUsd({ cachedInputTokens: 1000 }, same)).toBe(0n);
    expect(cacheSavingsNanoUsd({ cachedInputTokens: 1000 }, dearer)).toBe(0n);
    expect(cacheSavingsNanoUsd({ cachedInputTokens: 0 }, claude)).toBe(0n);
    expect(cacheSavingsNanoUsd({ cachedInputTokens: -5 }, claude)).toBe(0n);
  });
});
