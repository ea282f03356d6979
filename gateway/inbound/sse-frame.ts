/**
 * The one SSE writer every stream encoder uses (https://html.spec.whatwg.org/multipage/server-sent-events.html):
 * `event:` line only when a name is given, exactly one compact `data:` line, `\n\n` after every
 * event, never `id:`/`retry:`, and U+2028/U+2029/U+0085 escaped inside JSON (both Gemini SDKs
 * split lines on them).
 */

const LINE_BREAKERS = /[\u2028\u2029\u0085]/g;
/** The same characters, for a test that keeps no state between calls (no `g` flag). */
const HAS_LINE_BREAKER = /[\u2028\u2029\u0085]/;

function escapeLineBreakers(json: string): string {
  // Nearly no frame holds one: a test is cheaper than a global replace that finds nothing.
  if (!HAS_LINE_BREAKER.test(json)) return json;
  return json.replace(LINE_BREAKERS, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}

/** Serialises `data` as compact JSON safe for a single SSE `data:` line. */
export function toSseJson(data: unknown): string {
  return escapeLineBreakers(JSON.stringify(data));
}

/** One SSE frame: optional `event: name`, one `data: <json>` line, blank line. */
export function sseFrame(event: string | undefined, data: unknown): string {
  const payload = `data: ${toSseJson(data)}\n\n`;
  return event === undefined ? payload : `event: ${event}\n${payload}`;
}

/** The OpenAI-family terminator frame, data-only. */
export const SSE_DONE_FRAME = 'data: [DONE]\n\n';

/** A comment keep-alive (OpenAI families; ignored by their SDKs). */
export const SSE_COMMENT_PING = ': ping\n\n';
