/**
 * Parses an upstream SSE byte stream into events with `eventsource-parser` (WHATWG SSE rules,
 * https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation:
 * LF/CR/CRLF framing, comments dropped, multi-line data joined). Bytes that are not UTF-8 become
 * U+FFFD (TextDecoder's replacement mode, as the spec's "UTF-8 decode" requires). A last event not
 * closed by a blank line is still delivered at a clean end of the body when its data is whole
 * (JSON or `[DONE]`), and dropped when it was cut short; a body that fails (connection reset,
 * abort) throws instead and its unfinished event is never delivered.
 */
import type { Readable } from 'node:stream';
import type { UpstreamSseEvent } from '../upstream/upstream-adapter.ts';
import { createEventParser } from './sse-event-reader.ts';

const CR = 13;

/**
 * Yields SSE events from `body`. `afterChunk` sees every raw chunk (bytes) once the events that
 * chunk completed were yielded and handled, so a consumer that stops at a bad event never has
 * that chunk passed on (pass-through tap, byte counting).
 * @throws whatever reading `body` throws (undici socket and abort errors)
 */
export async function* readSseEvents(
  body: Readable,
  afterChunk?: (chunk: Buffer) => void | Promise<void>,
): AsyncGenerator<UpstreamSseEvent> {
  const queue: UpstreamSseEvent[] = [];
  const parser = createEventParser(queue);
  const decoder = new TextDecoder();
  let endsInCr = false;
  for await (const chunk of body as AsyncIterable<Buffer>) {
    const text = decoder.decode(chunk, { stream: true });
    if (text !== '') endsInCr = text.charCodeAt(text.length - 1) === CR;
    parser.feed(text);
    while (queue.length > 0) yield queue.shift() as UpstreamSseEvent;
    if (afterChunk) await afterChunk(chunk);
  }
  const tail = decoder.decode();
  if (tail !== '') endsInCr = tail.charCodeAt(tail.length - 1) === CR;
  parser.feed(tail);
  // The body's end ends its last line: a last CR, which the parser holds to see whether LF
  // follows, ends that line now (an event closed by CR CR is whole).
  if (endsInCr) parser.feed('\n');
  while (queue.length > 0) yield queue.shift() as UpstreamSseEvent;
  parser.reset({ consume: true });
  const unterminated = queue.shift();
  if (unterminated && isWholeData(unterminated.data)) yield unterminated;
}

/** True when SSE data is `[DONE]` or parses as JSON (an event the upstream finished writing). */
function isWholeData(data: string): boolean {
  if (data === '[DONE]') return true;
  try {
    JSON.parse(data);
    return true;
  } catch {
    return false;
  }
}
