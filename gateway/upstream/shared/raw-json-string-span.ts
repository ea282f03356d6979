/**
 * Finds a string member in JSON text without parsing it, for the pass-through taps
 * (upstream-adapter.ts PassThroughTap): they locate the output a streamed event carries, so the
 * relay keeps those few bytes and not the whole event. JSON's grammar
 * (https://www.rfc-editor.org/rfc/rfc8259#section-7) makes this safe: inside a string every `"`
 * is escaped, so a `"key"` followed by `:` outside one is a member name, and a string ends at
 * the first `"` preceded by an even number of backslashes.
 */

/** Offsets of a JSON string's contents, between its quotes, escapes undecoded: `[start, end)`. */
export interface RawStringSpan {
  readonly start: number;
  readonly end: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/** True for JSON's insignificant whitespace: space, tab, LF, CR. */
function isJsonSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** The first index at or after `from` whose char is not JSON whitespace. */
function skipSpace(text: string, from: number): number {
  let at = from;
  while (isJsonSpace(text.charCodeAt(at))) at += 1;
  return at;
}

/**
 * The span of the contents of the string value of the first member named `key` (a plain name
 * without quotes or backslashes) at or after `from` in `text`, which is JSON or a part of it:
 * `{"a":"x\"y"}` with key `a` gives the offsets of `x\"y`. Undefined when no such member follows,
 * when its value is not a string (null, a number, an object…), or when the string does not end.
 */
export function rawJsonStringSpan(text: string, key: string, from = 0): RawStringSpan | undefined {
  const name = `"${key}"`;
  for (let at = text.indexOf(name, from); at !== -1; at = text.indexOf(name, at + 1)) {
    let cursor = skipSpace(text, at + name.length);
    if (text.charCodeAt(cursor) !== COLON) continue; // a value that reads like the name, not the member
    cursor = skipSpace(text, cursor + 1);
    if (text.charCodeAt(cursor) !== QUOTE) return undefined;
    const start = cursor + 1;
    for (let quote = text.indexOf('"', start); quote !== -1; quote = text.indexOf('"', quote + 1))
      if (!escapedAt(text, quote, start)) return { start, end: quote };
    return undefined;
  }
  return undefined;
}

/**
 * True when the char at `at` of `text` is escaped: it follows an odd run of backslashes, counted
 * back to `from` at most (the start of the JSON string's contents).
 */
export function escapedAt(text: string, at: number, from: number): boolean {
  let backslashes = 0;
  while (at - backslashes - 1 >= from && text.charCodeAt(at - backslashes - 1) === BACKSLASH) backslashes += 1;
  return backslashes % 2 === 1;
}
