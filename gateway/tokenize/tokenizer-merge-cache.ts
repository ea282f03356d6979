/**
 * Bounds the memory of the o200k_base tokenizer's merge cache (npm `gpt-tokenizer`), imported for
 * this effect by bounded-token-counter.ts, through which every count passes.
 *
 * The library keeps the BPE result of every pre-token it had to merge (a word not in the
 * vocabulary) in a process-wide LRU map of 100,000 entries by default
 * (https://github.com/niieani/gpt-tokenizer#readme, "setMergeCacheSize"), bounded by count, not
 * by bytes. Ordinary prose barely uses it (common words are vocabulary entries), but text a
 * client or a hostile upstream makes up — random letters, base64, fuzzed strings — fills it with
 * one entry per distinct pre-token: up to 512 code units (MAX_PIECE_LENGTH) of text plus its token
 * array, measured at ≈ 3.5 KB per entry for 512 random lowercase letters. 100,000 such entries
 * hold ≈ 340 MB that are never given back while the process lives.
 *
 * MERGE_CACHE_ENTRIES keeps the cache to ≈ 14 MB in that worst case and still holds the recurring
 * identifiers and names of real traffic; a miss costs one BPE merge of that pre-token
 * (≤ 1.7 ms per KiB, the bound stated in bounded-token-counter.ts, which does not rely on hits).
 */
import { setMergeCacheSize } from 'gpt-tokenizer/encoding/o200k_base';

/** Most pre-tokens whose BPE result the tokenizer keeps (entries; ≈ 3.5 KB each at worst). */
export const MERGE_CACHE_ENTRIES = 4096;

setMergeCacheSize(MERGE_CACHE_ENTRIES);
