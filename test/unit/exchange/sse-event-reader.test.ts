import { describe, expect, it, vi } from 'vitest';
import { SseEventReader } from '../../../gateway/exchange/sse-event-reader.ts';
import { readSseEvents } from '../../../gateway/exchange/read-sse-events.ts';
import { Readable } from 'node:stream';
import type { PassThroughTap, UpstreamSseEvent } from '../../../gateway/upstream/upstream-adapter.ts';
import { chatPassThroughTap } from '../../../gateway/upstream/openai-chat/chat-pass-through-tap.ts';

/** Every event of `runs` the reader hands out, with the stream started from the first event on. */
function readAll(reader: SseEventReader, runs: Array<Buffer | string>, started = true): UpstreamSseEvent[] {
  const events: UpstreamSseEvent[] = [];
  for (const run of runs) {
    reader.load(run);
    for (let event = reader.next(started); event; event = reader.next(started)) events.push(event);
  }
  return events;
}

/** What readSseEvents (the translated path's reader) makes of the same bytes. */
async function readWithParser(bytes: Buffer): Promise<UpstreamSseEvent[]> {
  const events: UpstreamSseEvent[] = [];
  for await (const event of readSseEvents(Readable.from([bytes]))) events.push(event);
  return events;
}

const chatChunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'c', choices: [{ index: 0, delta, finish_reason: finish }], usage: null })}\n\n`;

describe('SseEventReader', () => {
  it('reads every event as the SSE parser does when there is no tap, across LF, CRLF and CR framings', async () => {
    const lf = 'event: a\ndata: {"x":1}\n\n: a comment\n\ndata: line one\ndata: line two\n\nid: 7\ndata: [DONE]\n\n';
    for (const text of [lf, lf.replaceAll('\n', '\r\n'), lf.replaceAll('\n', '\r')]) {
      const bytes = Buffer.from(text);
      expect(readAll(new SseEventReader(undefined), [bytes]), JSON.stringify(text)).toEqual(
        await readWithParser(bytes),
      );
    }
  });

  it('hands out the last event of a CR-framed run with that run, not with the next', () => {
    const reader = new SseEventReader(undefined);
    expect(readAll(reader, ['data: 1\r\r'])).toEqual([{ data: '1' }]);
    expect(readAll(reader, ['event: e\rdata: 2\r\r'])).toEqual([{ event: 'e', data: '2' }]);
  });

  it('keeps the streams it reads apart, though one parser serves them all', () => {
    const first = new SseEventReader(undefined);
    const second = new SseEventReader(chatPassThroughTap);
    first.load('event: named\ndata: 1\n\n');
    second.load('data: 2\n\n');
    expect(second.next(false)).toEqual({ data: '2' });
    expect(first.next(false)).toEqual({ event: 'named', data: '1' });
    // A run cut short (never made by the frame cutter) leaves nothing behind for another stream.
    first.load('event: half\ndata: 3');
    expect(first.next(false)).toBeUndefined();
    second.load('data: 4\n\n');
    expect(second.next(false)).toEqual({ data: '4' });
  });

  it('skips a byte order mark at the start of the stream only', () => {
    const reader = new SseEventReader(undefined);
    const bom = Buffer.from([0xef, 0xbb, 0xbf]);
    const events = readAll(reader, [Buffer.concat([bom, Buffer.from('data: 1\n\n')]), 'data: 2\n\n']);
    expect(events).toEqual([{ data: '1' }, { data: '2' }]);
    // U+FEFF later in the stream is part of the field name: the line is an unknown field, ignored by the spec.
    expect(readAll(reader, [Buffer.concat([bom, Buffer.from('data: 3\n\n')])])).toEqual([]);
  });

  it('keeps continuations unparsed once started, and hands out the rest', () => {
    const reader = new SseEventReader(chatPassThroughTap);
    const opening = chatChunk({ role: 'assistant', content: '' });
    const run = [
      chatChunk({ content: 'Hel' }),
      chatChunk({ content: 'lo' }),
      chatChunk({}, 'stop'),
      'data: [DONE]\n\n',
    ];
    const dataOf = (event: string) => event.slice('data: '.length, -2);
    // Before the start the opening chunk, which looks like a continuation, is parsed.
    expect(readAll(reader, [opening], false)).toEqual([{ data: dataOf(opening) }]);
    expect(readAll(reader, [run.join('')])).toEqual([{ data: dataOf(run[2]!) }, { data: '[DONE]' }]);
    expect(reader.continuations()).toEqual([{ type: 'text', text: 'Hello' }]);
  });

  it('keeps only the output a continuation carries, not its envelope', () => {
    const reader = new SseEventReader(chatPassThroughTap);
    const pieces = Array.from({ length: 1000 }, (_, i) => `t${i % 10}`);
    readAll(
      reader,
      pieces.map((content) => chatChunk({ content })),
    );
    expect(reader.continuations()).toEqual([{ type: 'text', text: pieces.join('') }]);
    // 2 bytes of text per event, against about 100 bytes of each event: the buffer holds the text (doubling as it grows).
    const kept = (reader as unknown as { kept: Buffer }).kept;
    expect(kept.length).toBeLessThanOrEqual(4 * pieces.join('').length);
  });

  it('parses every event while the stream has not started', () => {
    const tap: PassThroughTap = { isContinuation: vi.fn(() => true), continuationFragment: () => undefined };
    const reader = new SseEventReader(tap);
    expect(readAll(reader, ['data: 1\n\ndata: 2\n\n'], false)).toEqual([{ data: '1' }, { data: '2' }]);
    expect(tap.isContinuation).not.toHaveBeenCalled();
    expect(reader.continuations()).toEqual([]);
  });

  it('keeps continuations across runs larger than its first buffer, byte for byte, short and long', () => {
    const reader = new SseEventReader(chatPassThroughTap);
    // Every fifth fragment longer than the ones copied byte by byte.
    const texts = Array.from(
      { length: 300 },
      (_, i) => `piece ${i} — ünïcode ${i % 5 === 0 ? 'long '.repeat(8 + i) : ''}`,
    );
    readAll(
      reader,
      texts.map((text) => chatChunk({ content: text })),
    );
    expect(reader.continuations()).toEqual([{ type: 'text', text: texts.join('') }]);
  });
});
