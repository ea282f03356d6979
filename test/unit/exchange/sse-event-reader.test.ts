import { describe, expect, it, vi } from 'vitest';
import { SseEventReader } from '../../../gateway/exchange/sse-event-reader.ts';
import { readSseEvents } from '../../../gateway/exchange/read-sse-events.ts';
import { Readable } from 'node:stream';
import type { PassThroughTap, UpstreamSseEvent } from '../../../gateway/upstream/upstream-adapter.ts';
import { chatPassThroughTap } from '../../../gateway/upstream/openai-chat/chat-pass-through-tap.ts';
import { anthropicPassThroughTap } from '../../../gateway/upstream/anthropic-messages/anthropic-pass-through-tap.ts';
import { seededRandom } from '../../support/seeded-random.ts';

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

  describe('continuations in the shape of the one before', () => {
    /** A reader that never takes the shape's shortcut: every event goes through the tap's own scans. */
    function tapOnly(tap: PassThroughTap): SseEventReader {
      const reader = new SseEventReader(tap);
      Object.assign(reader, { contentsInShape: () => -1 });
      return reader;
    }

    const ALPHABET = ['a', 'b', ' ', '"', '\\', '\\\\', 'é', '😀', '\t', 'null', '}', ']', ',', ':', '{"x":1}'];
    const pick = <T>(random: () => number, items: ReadonlyArray<T>): T => items[Math.floor(random() * items.length)]!;
    const text = (random: () => number): string =>
      Array.from({ length: Math.floor(random() * 6) }, () => pick(random, ALPHABET)).join('');

    /**
     * Raw events around a chat continuation's content that are not what JSON.stringify writes: an
     * unescaped quote that closes the string early, a last backslash that escapes the closing quote,
     * members smuggled in after the text. The shape's head and tail are kept around them.
     */
    const head = 'data: {"id":"c","choices":[{"index":0,"delta":{"content":"';
    const tail = '"},"finish_reason":null}],"usage":null}\n\n';
    const FORGED = [
      'a","finish_reason":"stop',
      'a","tool_calls":[{"index":0,"id":"t","function":{"name":"f","arguments":""}}],"x":"',
      'a"}}],"usage":{"prompt_tokens":1,"completion_tokens":2},"y":[{"z":{"w":"',
      'ends in a backslash\\',
      'ends in three\\\\\\',
      'ends in two\\\\',
      'escaped \\" quote',
    ];

    function chatEvent(random: () => number): string {
      const roll = random();
      if (roll < 0.55) return chatChunk({ content: text(random) });
      if (roll < 0.65)
        return `data: ${JSON.stringify({ id: 'c', choices: [{ index: 0, delta: { content: text(random) }, finish_reason: null }], usage: null, obfuscation: text(random) })}\n\n`;
      if (roll < 0.8) return `${head}${pick(random, FORGED)}${tail}`;
      if (roll < 0.85) return chatChunk({ reasoning_content: text(random) });
      if (roll < 0.9) return chatChunk({}, 'stop');
      if (roll < 0.95) return chatChunk({ content: null });
      return 'data: [DONE]\n\n';
    }

    function anthropicEvent(random: () => number): string {
      const index = Math.floor(random() * 2);
      const roll = random();
      const delta =
        roll < 0.4
          ? { type: 'text_delta', text: text(random) }
          : roll < 0.6
            ? { type: 'thinking_delta', thinking: text(random) }
            : roll < 0.8
              ? { type: 'input_json_delta', partial_json: text(random) }
              : { type: 'signature_delta', signature: text(random) };
      if (random() < 0.1)
        return 'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"}}\n\n';
      return `event: content_block_delta\ndata: ${JSON.stringify({ type: 'content_block_delta', index, delta })}\n\n`;
    }

    it.each([
      ['Chat Completions', chatPassThroughTap, chatEvent],
      ['Anthropic Messages', anthropicPassThroughTap, anthropicEvent],
    ] as const)('hands out and keeps what the tap alone would, for %s streams', (_name, tap, makeEvent) => {
      for (let seed = 1; seed <= 200; seed++) {
        const random = seededRandom(seed);
        const runs: string[] = [];
        for (let r = 0; r < 8; r++)
          runs.push(Array.from({ length: 1 + Math.floor(random() * 6) }, () => makeEvent(random)).join(''));
        const shaped = new SseEventReader(tap);
        const reference = tapOnly(tap);
        const bytes = runs.map((run) => Buffer.from(run));
        expect(readAll(shaped, bytes), `seed ${seed}`).toEqual(readAll(reference, bytes));
        expect(shaped.continuations(), `seed ${seed}`).toEqual(reference.continuations());
      }
    });

    it('recognises a continuation by its shape without the tap, and refuses a forged one', () => {
      const tap: PassThroughTap = {
        isContinuation: vi.fn(chatPassThroughTap.isContinuation),
        continuationFragment: vi.fn(chatPassThroughTap.continuationFragment),
      };
      const reader = new SseEventReader(tap);
      readAll(reader, [`${head}Hel${tail}${head}lo \\"x\\"${tail}${head}!${tail}`]);
      expect(tap.isContinuation).toHaveBeenCalledTimes(1);
      expect(reader.continuations()).toEqual([{ type: 'text', text: 'Hello "x"!' }]);
      // The same head and tail around a quote that ends the string early: another shape, so the tap decides.
      const forged = `${head}a","finish_reason":"stop${tail}`;
      expect(readAll(reader, [forged])).toEqual([{ data: forged.slice('data: '.length, -2) }]);
      expect(tap.isContinuation).toHaveBeenCalledTimes(2);
    });

    it('keeps the shape as text of its own, not as a slice holding the run', () => {
      const reader = new SseEventReader(chatPassThroughTap);
      const run = Array.from({ length: 200 }, (_, i) => chatChunk({ content: `piece ${i}` })).join('');
      readAll(reader, [run]);
      const shape = reader as unknown as { shapeHead: string; shapeTail: string };
      expect(shape.shapeHead).toBe(
        chatChunk({ content: '' }).slice(0, chatChunk({ content: '' }).indexOf('"content":"') + 11),
      );
      expect(shape.shapeTail).toBe('"},"finish_reason":null}],"usage":null}\n\n');
    });
  });
});
