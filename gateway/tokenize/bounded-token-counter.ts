/**
 * o200k_base token counting (npm `gpt-tokenizer`) whose cost per byte is bounded, for any text a
 * client can send.
 *
 * Why: BPE merges one pre-token (a regex match: a word, a run of punctuation or of spaces) in time
 * quadratic in its length, and the o200k pre-tokenizer regex overflows V8's backtracking stack on
 * a multi-megabyte match (e.g. a run of "e" + U+0301). A run of one character, or a long word of
 * random letters, is a single pre-token: 64 KiB of "a" took 1.1–1.5 s, 4 MiB more than 14 minutes.
 *
 * How (the library's pre-tokenizer and BPE; only what is fed to them at once is bounded):
 * - a text whose stretches of letters and of punctuation/whitespace are all shorter than
 *   MAX_PIECE_LENGTH cannot hold a longer pre-token: it is counted by the library in one call;
 * - otherwise the pre-tokenizer regex runs over windows of WINDOW_LENGTH code units; the pre-tokens
 *   a window holds completely (ending at least WINDOW_SLACK units before its cut, so a cut-off
 *   contraction suffix or look-ahead cannot change them) are counted by the library, and the next
 *   window starts where they end. The o200k pattern has no look-behind, so this gives the library's
 *   own count for every pre-token up to MAX_PIECE_LENGTH;
 * - a pre-token longer than MAX_PIECE_LENGTH (a run without any boundary: "aaaa…", "=====…", a
 *   space-less script run longer than a page) is cut into pieces of MAX_PIECE_LENGTH, each counted
 *   on its own: a token more or fewer per cut;
 * - once a counter has counted `exactBudget` UTF-8 bytes exactly (EXACT_BUDGET by default), the
 *   rest is estimated from its UTF-8 size at the tokens-per-byte ratio of what it counted exactly
 *   (4 bytes per token when it counted nothing).
 *
 * Cost (CPU, Node 20 on the project's 2-core machine; `npx tsx test/bench/measure-token-counting.ts`):
 * exact counting costs 90–220 µs per KiB on prose, code and base64, the same as the library alone;
 * the worst case is high-entropy text that misses the library's merge cache (random letters, Thai,
 * Han), ≤ 1.6 ms per KiB (the library alone: 22–28 ms per KiB on 16–48 KiB words, growing with
 * length); a run of one character 12 µs per KiB (library: 9.6 ms per KiB at 16 KiB, 45 ms per KiB at
 * 64 KiB). The estimate beyond the budget costs ≈ 1 µs per KiB. So one counter spends at most
 * ≈ EXACT_BUDGET × 1.6 ms per KiB ≈ 105 ms on exact counting, plus ≈ 1 µs per KiB of the rest:
 * measured 105–111 ms for 4 MiB of random letters, Thai or Han, 10 ms for 4 MiB of
 * prose, 3.5 ms for 4 MiB of "a".
 *
 * Special-token text (e.g. "<|endoftext|>") is counted as ordinary text, as tiktoken's
 * `encode_ordinary` does (https://github.com/openai/tiktoken/blob/main/tiktoken/core.py,
 * `Encoding.encode_ordinary`): a client's prompt is text, never control tokens.
 */
// Loaded on first count, with its process-wide merge cache bounded (o200k-tokenizer.ts).
import { o200kTokenizer } from './o200k-tokenizer.ts';

/** Longest pre-token given to BPE in one piece (UTF-16 code units); longer runs are cut. */
export const MAX_PIECE_LENGTH = 512;
/** Text the pre-tokenizer regex sees at once (UTF-16 code units). */
const WINDOW_LENGTH = 8192;
/** Pre-tokens ending this close to a window's cut are left to the next window (code units). */
const WINDOW_SLACK = 8;
/** Text counted exactly per counter by default (UTF-8 bytes; 64 KiB ≈ 16k tokens of English prose). */
export const EXACT_BUDGET = 64 * 1024;
/** Bytes per token assumed for estimates when nothing was counted exactly. */
const BYTES_PER_TOKEN_FALLBACK = 4;

/** No special token is allowed: their text is counted as ordinary text. */
const ORDINARY_TEXT = Object.freeze({ disallowedSpecial: new Set<string>() });

/** The library's count of `text` as ordinary text (tokens). */
function countTokens(text: string): number {
  return o200kTokenizer().library.countTokens(text, ORDINARY_TEXT);
}

/** `index`, or `index - 1` where cutting at `index` would split a UTF-16 surrogate pair. */
function cutAt(text: string, index: number): number {
  if (index <= 0 || index >= text.length) return index;
  const before = text.charCodeAt(index - 1);
  return before >= 0xd800 && before <= 0xdbff ? index - 1 : index;
}

/** Tokens of one over-long pre-token (or its visible part), counted in pieces of MAX_PIECE_LENGTH. */
function countInPieces(text: string, from: number, to: number): number {
  let tokens = 0;
  let start = from;
  while (start < to) {
    let end = cutAt(text, Math.min(start + MAX_PIECE_LENGTH, to));
    if (end <= start) end = Math.min(start + 2, to);
    tokens += countTokens(text.slice(start, end));
    start = end;
  }
  return tokens;
}

/**
 * Counts the pre-tokens of one window of `text` starting at `from` (WINDOW_LENGTH code units, or
 * what is left): tokens (tokens) and where the next window starts (code-unit index, > `from`).
 */
function countWindow(text: string, from: number): { tokens: number; end: number } {
  if (text.length - from <= MAX_PIECE_LENGTH)
    return { tokens: countTokens(from === 0 ? text : text.slice(from)), end: text.length };
  const windowEnd = cutAt(text, Math.min(from + WINDOW_LENGTH, text.length));
  const window = text.slice(from, windowEnd);
  const limit = windowEnd === text.length ? window.length : window.length - WINDOW_SLACK;
  let tokens = 0;
  let pending = 0; // start (in window) of complete short pre-tokens not yet counted
  let complete = 0; // end (in window) of the last complete pre-token
  for (const match of window.matchAll(o200kTokenizer().splitPattern)) {
    const start = match.index;
    const end = start + match[0].length;
    if (end > limit) break;
    if (end - start > MAX_PIECE_LENGTH) {
      if (start > pending) tokens += countTokens(window.slice(pending, start));
      tokens += countInPieces(window, start, end);
      pending = end;
    }
    complete = end;
  }
  if (complete > pending) tokens += countTokens(window.slice(pending, complete));
  if (complete === 0) {
    // One pre-token runs past this window: count whole pieces of it and go on from there.
    complete = cutAt(window, Math.max(MAX_PIECE_LENGTH, limit - (limit % MAX_PIECE_LENGTH))) || window.length;
    tokens += countInPieces(window, 0, complete);
  }
  return { tokens, end: from + complete };
}

/** Where a prefix of a text that fits a byte budget ends, its size, and its longest run (below). */
interface PrefixScan {
  /** Code-unit index where the prefix ends (never inside a surrogate pair). */
  readonly end: number;
  /** UTF-8 size of the prefix (bytes; a lone surrogate counts as in a pair). */
  readonly bytes: number;
  /** Longest stretch of the prefix that one pre-token could span (code units). */
  readonly longestRun: number;
}

/**
 * Scans `text` up to `byteBudget` UTF-8 bytes. The run lengths bound the pre-tokens from above
 * without running the regex: a pre-token is at most one leading character plus a stretch of
 * letters/marks/apostrophes, or a stretch of punctuation and whitespace (with `\r`, `\n`, `/`),
 * or up to three digits. Characters outside ASCII count towards both stretches.
 */
function scanPrefix(text: string, byteBudget: number): PrefixScan {
  let bytes = 0;
  let word = 0;
  let other = 0;
  let longestRun = 0;
  let index = 0;
  for (; index < text.length; index++) {
    const code = text.charCodeAt(index);
    const size =
      code < 0x80
        ? 1
        : code < 0x800
          ? 2
          : code >= 0xdc00 && code <= 0xdfff
            ? 0
            : code >= 0xd800 && code <= 0xdbff
              ? 4
              : 3;
    if (bytes + size > byteBudget) break;
    bytes += size;
    if (code >= 0x80 || code === 0x27) {
      word++;
      other++;
    } else if ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a) {
      word++;
      other = 0;
    } else if (code >= 0x30 && code <= 0x39) {
      word = 0;
      other = 0;
    } else {
      word = 0;
      other++;
    }
    if (word > longestRun) longestRun = word;
    if (other > longestRun) longestRun = other;
  }
  return { end: index, bytes, longestRun };
}

/** Tokens of `text`, read window by window (for text that may hold pre-tokens over MAX_PIECE_LENGTH). */
function countInWindows(text: string): number {
  let tokens = 0;
  for (let position = 0; position < text.length;) {
    const counted = countWindow(text, position);
    tokens += counted.tokens;
    position = counted.end;
  }
  return tokens;
}

/**
 * Counts o200k_base tokens of strings with a bounded cost (see the module comment for the
 * figures). One counter per request: its exact budget is shared by every string it counts, so a
 * request with many parts is bounded as a whole.
 */
export class BoundedTokenCounter {
  private exactRemaining: number;
  private exactTokens = 0;
  private exactBytes = 0;
  private estimatedAny = false;

  /** @param exactBudget text to count exactly before estimating (UTF-8 bytes, ≥ 0). */
  constructor(exactBudget: number = EXACT_BUDGET) {
    this.exactRemaining = Math.max(0, exactBudget);
  }

  /** True once some text was estimated rather than counted (the budget ran out). */
  get estimated(): boolean {
    return this.estimatedAny;
  }

  /** Tokens in `text` (tokens, ≥ 0): exact within the budget, estimated beyond it. Never throws. */
  count(text: string): number {
    if (text === '') return 0;
    const scan = scanPrefix(text, this.exactRemaining);
    let tokens = 0;
    if (scan.end > 0) {
      const exact = scan.end === text.length ? text : text.slice(0, scan.end);
      // Every pre-token within MAX_PIECE_LENGTH: the library's own count, in one call.
      tokens = scan.longestRun < MAX_PIECE_LENGTH ? countTokens(exact) : countInWindows(exact);
      this.exactTokens += tokens;
      this.exactBytes += scan.bytes;
      this.exactRemaining -= scan.bytes;
    }
    return scan.end === text.length ? tokens : tokens + this.estimate(scan.end === 0 ? text : text.slice(scan.end));
  }

  /** Tokens of `text` at the exact part's tokens per UTF-8 byte, or 1 per 4 bytes (tokens). */
  private estimate(text: string): number {
    this.estimatedAny = true;
    const bytes = Buffer.byteLength(text, 'utf8');
    const tokensPerByte = this.exactBytes > 0 ? this.exactTokens / this.exactBytes : 1 / BYTES_PER_TOKEN_FALLBACK;
    return Math.ceil(bytes * tokensPerByte);
  }
}
