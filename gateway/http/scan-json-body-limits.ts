/**
 * A linear pre-scan of a raw JSON request body that enforces structural limits BEFORE anything
 * recursive runs (JSON.parse, key normalisation, zod, JSON.stringify): nesting depth, members per
 * array or object, and the length of a single string. It reads the bytes once, left to right,
 * jumping over string contents with `Buffer.indexOf`; it allocates one small typed array sized by the
 * depth limit. It does not validate JSON: malformed text that stays within the limits is left to
 * the JSON parser, which reports it.
 *
 * JSON grammar: https://www.rfc-editor.org/rfc/rfc8259#section-2 (structural characters `[ ] { } , :`
 * outside strings; section 7, https://www.rfc-editor.org/rfc/rfc8259#section-7: a string may contain an escaped quote `\"`).
 */

/** Structural limits of one request body. */
export interface JsonBodyLimits {
  /** Deepest nesting of arrays and objects (levels; the top-level object is level 1). */
  readonly maxDepth: number;
  /** Most members of a single array or object (elements or key/value pairs). */
  readonly maxItems: number;
  /** Longest single string, keys included, in bytes of the UTF-8 JSON text as sent (escapes counted as written, quotes not counted). */
  readonly maxStringLength: number;
}

/**
 * The limits every client route applies: 128 levels (generous for JSON Schemas in tool
 * definitions, far below what recursive code can take), 100,000 members per array or object
 * (Anthropic's documented cap on messages per request, https://docs.anthropic.com/en/api/messages),
 * and 16 MiB per string (inline media above that must be sent by URL or file reference).
 */
export const DEFAULT_JSON_BODY_LIMITS: JsonBodyLimits = Object.freeze({
  maxDepth: 128,
  maxItems: 100_000,
  maxStringLength: 16 * 1024 * 1024,
});

/** Which limit a body broke, and where (byte offset into the body). */
export type JsonLimitViolation =
  | { readonly limit: 'depth'; readonly max: number; readonly offset: number }
  | { readonly limit: 'items'; readonly max: number; readonly offset: number }
  | { readonly limit: 'string-length'; readonly max: number; readonly offset: number };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** What a byte means to the scan outside strings: 0 nothing, else one of the constants below. */
const OPENS = 1;
const CLOSES = 2;
const SEPARATES = 3;
const STARTS_STRING = 4;
const BYTE_ROLE = new Uint8Array(256);
BYTE_ROLE[0x5b] = OPENS; // [
BYTE_ROLE[0x7b] = OPENS; // {
BYTE_ROLE[0x5d] = CLOSES; // ]
BYTE_ROLE[0x7d] = CLOSES; // }
BYTE_ROLE[0x2c] = SEPARATES; // ,
BYTE_ROLE[QUOTE] = STARTS_STRING;

/**
 * What the scan saw besides the limits, filled in when passed to findJsonLimitViolation.
 * `guardedKey` is true when some string could decode to `__proto__` or `constructor`: it is
 * spelled so, or is 9–66 bytes long (each of those characters written as itself or as a `\u`
 * escape of 6) and holds a backslash. When it stays false no member of the body can be named
 * either, so the prototype-poisoning check of secure-json-parse
 * (https://github.com/fastify/secure-json-parse#usage) has nothing to find and plain JSON.parse
 * gives the same value.
 */
export interface JsonBodyScan {
  guardedKey: boolean;
}

const PROTO = Buffer.from('__proto__');
const CONSTRUCTOR = Buffer.from('constructor');
/** Shortest and longest raw text of a string that decodes to `__proto__` or `constructor`. */
const GUARDED_MIN_BYTES = PROTO.length;
const GUARDED_MAX_BYTES = CONSTRUCTOR.length * 6;

/** True when `body` holds `word` from `from` on (a byte loop: cheaper than a native compare for 9 or 11 bytes). */
function spells(body: Buffer, from: number, word: Buffer): boolean {
  for (let i = 0; i < word.length; i++) if (body[from + i] !== word[i]) return false;
  return true;
}

/**
 * True when the string body[from, to) (between its quotes, 9–66 bytes) could decode to `__proto__`
 * or `constructor`. `escaped`: closingQuote saw a backslash in it (known for strings it read byte
 * by byte; the few longer ones are read again here).
 */
function mayNameGuardedKey(body: Buffer, from: number, to: number, escaped: boolean): boolean {
  const length = to - from;
  if (length === PROTO.length && spells(body, from, PROTO)) return true;
  if (length === CONSTRUCTOR.length && spells(body, from, CONSTRUCTOR)) return true;
  if (length <= SHORT_STRING_BYTES) return escaped;
  for (let i = from; i < to; i++) if (body[i] === BACKSLASH) return true;
  return false;
}

/** Whether the last string closingQuote read byte by byte held a backslash. */
let shortStringEscaped = false;

/** Strings up to this many bytes are read byte by byte: cheaper than a native call per quote. */
const SHORT_STRING_BYTES = 64;

/**
 * Offset of the quote that closes the string opened at `open`, or -1 when the string never
 * closes. A quote preceded by an odd run of backslashes is escaped. Short strings (keys, roles)
 * are read byte by byte; longer ones jump from quote to quote with `Buffer.indexOf`, reading
 * each backslash run once, so the cost stays linear in the string's length.
 */
function closingQuote(body: Buffer, open: number): number {
  const shortEnd = Math.min(body.length, open + 1 + SHORT_STRING_BYTES);
  let i = open + 1;
  shortStringEscaped = false;
  for (; i < shortEnd; i++) {
    const c = body[i];
    if (c === QUOTE) return i;
    if (c === BACKSLASH) {
      shortStringEscaped = true;
      i++;
    }
  }
  let from = i;
  for (;;) {
    const quote = body.indexOf(QUOTE, from);
    if (quote === -1) return -1;
    let before = quote - 1;
    while (before >= from && body[before] === BACKSLASH) before--;
    // A backslash run that began inside the byte-by-byte part was already paired up there.
    if ((quote - 1 - before) % 2 === 0) return quote;
    from = quote + 1;
  }
}

/**
 * The first limit `body` (UTF-8 JSON text) breaks, or undefined when it keeps all of them. With
 * `scan`, also whether a string could name a guarded key (JsonBodyScan; read it only when no limit
 * was broken: the scan stops at the first).
 * Works on bytes: every structural character is ASCII and no byte of a multi-byte UTF-8 sequence
 * is below 0x80, so invalid UTF-8 cannot confuse it. Cost: one pass (O(n) time, about a
 * millisecond per MiB on a 2-core CI machine, a fraction of JSON.parse) and O(maxDepth) memory;
 * never throws, whatever the bytes.
 */
export function findJsonLimitViolation(
  body: Buffer,
  limits: JsonBodyLimits = DEFAULT_JSON_BODY_LIMITS,
  scan?: JsonBodyScan,
): JsonLimitViolation | undefined {
  const { maxDepth, maxItems, maxStringLength } = limits;
  // Commas seen in each open container, indexed by depth (1-based).
  const commas = new Int32Array(maxDepth + 1);
  let depth = 0;
  const length = body.length;
  for (let i = 0; i < length; i++) {
    const role = BYTE_ROLE[body[i]!]!;
    if (role === 0) continue;
    if (role === STARTS_STRING) {
      const close = closingQuote(body, i);
      if (close === -1) {
        if (scan) scan.guardedKey = true; // nothing read past here: let the checked parser see it all
        return undefined; // an unterminated string: the JSON parser reports it
      }
      const length = close - i - 1;
      if (length > maxStringLength) return { limit: 'string-length', max: maxStringLength, offset: i };
      if (scan && length >= GUARDED_MIN_BYTES && length <= GUARDED_MAX_BYTES && !scan.guardedKey)
        scan.guardedKey = mayNameGuardedKey(body, i + 1, close, shortStringEscaped);
      i = close;
    } else if (role === OPENS) {
      if (++depth > maxDepth) return { limit: 'depth', max: maxDepth, offset: i };
      commas[depth] = 0;
    } else if (role === CLOSES) {
      if (depth > 0) depth--;
    } else if (depth > 0) {
      // n commas separate n + 1 members.
      const seen = commas[depth]! + 1;
      if (seen >= maxItems) return { limit: 'items', max: maxItems, offset: i };
      commas[depth] = seen;
    }
  }
  return undefined;
}
