/**
 * The o200k_base tokenizer (npm `gpt-tokenizer`), loaded on first use and with a bounded merge
 * cache. Every BPE count passes through bounded-token-counter.ts, which asks for it here.
 *
 * Loaded on first use: evaluating the library builds its 200k-entry vocabulary, ≈ 100 ms of CPU,
 * ≈ 15 MB of heap on this project's 2-core machine, and 30–60 MB of RSS under glibc's default
 * malloc settings (parsing its rank tables frees large blocks the heap then keeps; the processes
 * start with the setting of infra/processes/allocator-environment.ts: 13–30 MB less, measured in
 * a bare process). Admission estimates from character classes (character-class-estimate.ts), so
 * a gateway whose upstreams report usage and whose clients read their streams to the end never
 * pays either; the first count_tokens without an upstream endpoint, or the first response billed
 * without reported usage (a stream the client left included), pays the 100 ms once. It is loaded
 * through `require` (the package ships CommonJS beside ESM) because every count is synchronous.
 *
 * The merge cache: the library keeps the BPE result of every pre-token it had to merge (a word not
 * in the vocabulary) in a process-wide LRU map of 100,000 entries by default
 * (https://github.com/niieani/gpt-tokenizer#readme, "setMergeCacheSize"), bounded by count, not
 * by bytes. Ordinary prose barely uses it (common words are vocabulary entries), but text a
 * client or a hostile upstream makes up — random letters, base64, fuzzed strings — fills it with
 * one entry per distinct pre-token: up to 512 code units (MAX_PIECE_LENGTH) of text plus its token
 * array, measured at ≈ 3.5 KB per entry for 512 random lowercase letters. 100,000 such entries
 * hold ≈ 340 MB that are never given back while the process lives. MERGE_CACHE_ENTRIES keeps the
 * cache to ≈ 14 MB in that worst case and still holds the recurring identifiers and names of real
 * traffic; a miss costs one BPE merge of that pre-token (≤ 1.7 ms per KiB, the bound stated in
 * bounded-token-counter.ts, which does not rely on hits).
 */
import { createRequire } from 'node:module';

/** Most pre-tokens whose BPE result the tokenizer keeps (entries; ≈ 3.5 KB each at worst). */
export const MERGE_CACHE_ENTRIES = 4096;

/** The parts of the library the counter uses (gpt-tokenizer 3.x, `encoding/o200k_base` and `encodingParams/constants`). */
export interface O200kTokenizer {
  /** The library's module object: counts are read through it on each call (`library.countTokens(text, options)`). */
  readonly library: typeof import('gpt-tokenizer/encoding/o200k_base');
  /** The library's own o200k split pattern (the same object its encoder uses). */
  readonly splitPattern: RegExp;
}

let loaded: O200kTokenizer | undefined;

/** The tokenizer, loading it on the first call (≈ 100 ms, once per process). Throws only if the package is missing. */
export function o200kTokenizer(): O200kTokenizer {
  if (loaded) return loaded;
  const require = createRequire(import.meta.url);
  const library = require('gpt-tokenizer/encoding/o200k_base') as O200kTokenizer['library'];
  const constants = require('gpt-tokenizer/encodingParams/constants') as { O200K_TOKEN_SPLIT_REGEX: RegExp };
  library.setMergeCacheSize(MERGE_CACHE_ENTRIES);
  loaded = { library, splitPattern: constants.O200K_TOKEN_SPLIT_REGEX };
  return loaded;
}

/** True once the tokenizer was loaded in this process (for tests and diagnostics). */
export function isO200kTokenizerLoaded(): boolean {
  return loaded !== undefined;
}
