/**
 * Parses an upstream SSE byte stream into events with `eventsource-parser` (WHATWG SSE rules:
 * LF/CR/CRLF framing, comments dropped, multi-line data joined). A last event not closed by a
 * blank line is still delivered at EOF.
 */
import type { Readable } from 'node:stream';
import { createParser } from 'eventsource-parser';
import type { UpstreamSseEvent } from '../upstream/upstream-adapter.ts';

/** Yields SSE events from `body`; `onBytes` sees every raw chunk first (pass-through tap). */
export async function* readSseEvents(body: Readable, onBytes?: (chunk: Buffer) => void | Promise<void>): AsyncGenerator<UpstreamSseEvent> {
  const queue: UpstreamSseEvent[] = [];
  const parser = createParser({
    onEvent: (event) => queue.push(event.event === undefined ? { data: event.data } : { event: event.event, data: event.data }),
  });
  const decoder = new TextDecoder();
  for await (const chunk of body as AsyncIterable<Buffer>) {
    if (onBytes) await onBytes(chunk);
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (queue.length > 0) yield queue.shift() as UpstreamSseEvent;
  }
  parser.feed(decoder.decode());
  parser.reset({ consume: true });
  while (queue.length > 0) yield queue.shift() as UpstreamSseEvent;
}
