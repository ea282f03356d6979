/**
 * The tokenizer's merge cache stays bounded however many distinct pre-tokens the gateway counts
 * (o200k-tokenizer.ts). Reads the library's private LRU map (gpt-tokenizer 3.x:
 * `bytePairEncodingCoreProcessor.mergeCache`), the only place its size is visible.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { countTextTokens } from '../../../gateway/tokenize/estimate-tokens.ts';

/** o200k-tokenizer.ts's bound, repeated: the test must not import that module itself, only the counting path. */
const MERGE_CACHE_ENTRIES = 4096;

/** The instance the gateway counts with: o200k-tokenizer.ts loads the package's CommonJS build through `require`. */
const o200k = (createRequire(import.meta.url)('gpt-tokenizer/encoding/o200k_base') as { default: unknown }).default;

function mergeCacheSize(): number {
  const internals = o200k as { bytePairEncodingCoreProcessor?: { mergeCache?: Map<string, unknown> } };
  const cache = internals.bytePairEncodingCoreProcessor?.mergeCache;
  if (!cache) throw new Error('gpt-tokenizer internals changed: no merge cache found');
  return cache.size;
}

/** A deterministic lowercase word of `length` letters that is not in the vocabulary (mulberry32 draws). */
function madeUpWord(seed: number, length: number): string {
  let state = seed >>> 0;
  let word = '';
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    word += String.fromCharCode(97 + (((t ^ (t >>> 14)) >>> 0) % 26));
  }
  return word;
}

describe('tokenizer merge cache', () => {
  it(`keeps at most ${MERGE_CACHE_ENTRIES} entries after counting 3 × that many distinct made-up words`, async () => {
    const words = MERGE_CACHE_ENTRIES * 3;
    for (let batch = 0; batch < words; batch += 200) {
      const text = Array.from({ length: 200 }, (_, i) => madeUpWord(batch + i + 1, 20)).join(' ');
      expect(countTextTokens(text)).toBeGreaterThan(200);
    }
    expect(mergeCacheSize()).toBeGreaterThan(MERGE_CACHE_ENTRIES / 2);
    expect(mergeCacheSize()).toBeLessThanOrEqual(MERGE_CACHE_ENTRIES);
    expect((await import('../../../gateway/tokenize/o200k-tokenizer.ts')).MERGE_CACHE_ENTRIES).toBe(
      MERGE_CACHE_ENTRIES,
    );
  }, 60_000);
});
