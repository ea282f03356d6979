/**
 * readSseEvents decodes upstream bytes as the WHATWG SSE rules ask: UTF-8 with U+FFFD for bad
 * bytes exactly as TextDecoder replaces them, whatever the chunk boundaries, and one leading byte
 * order mark dropped (https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream).
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readSseEvents } from '../../../gateway/exchange/read-sse-events.ts';

async function eventsOf(chunks: ReadonlyArray<Buffer>): Promise<string[]> {
  const data: string[] = [];
  for await (const event of readSseEvents(Readable.from(chunks))) data.push(event.data);
  return data;
}

/** `buffer` cut at `cuts` (sorted byte offsets). */
function split(buffer: Buffer, cuts: number[]): Buffer[] {
  const chunks: Buffer[] = [];
  let at = 0;
  for (const cut of cuts) {
    chunks.push(buffer.subarray(at, cut));
    at = cut;
  }
  chunks.push(buffer.subarray(at));
  return chunks;
}

/** Valid and malformed UTF-8 pieces (no line breaks): ASCII, 2-4 byte characters, lone continuation and lead bytes, overlongs, surrogates, beyond U+10FFFF. */
const PIECES: ReadonlyArray<ReadonlyArray<number>> = [
  [0x41],
  [0xc3, 0xa9],
  [0xe2, 0x82, 0xac],
  [0xf0, 0x9f, 0x98, 0x80],
  [0x80],
  [0xc3],
  [0xe2, 0x82],
  [0xf0, 0x9f],
  [0xff],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0x80],
  [0xef, 0xbb, 0xbf],
];

describe('readSseEvents decoding', () => {
  it('replaces bad bytes as TextDecoder does, wherever the chunks split them', async () => {
    let seed = 7;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    for (let round = 0; round < 400; round++) {
      const payloads = Array.from({ length: 3 }, () =>
        Buffer.from(
          Array.from(
            { length: 1 + Math.floor(random() * 8) },
            () => PIECES[Math.floor(random() * PIECES.length)] ?? [],
          ).flat(),
        ),
      );
      const stream = Buffer.concat(
        payloads.flatMap((payload) => [Buffer.from('data: '), payload, Buffer.from('\n\n')]),
      );
      const cuts = Array.from({ length: Math.floor(random() * 6) }, () =>
        Math.floor(random() * (stream.length + 1)),
      ).sort((a, b) => a - b);
      // A byte order mark inside the stream is a character like any other.
      const expected = payloads.map((payload) => new TextDecoder('utf-8', { ignoreBOM: true }).decode(payload));
      expect(await eventsOf(split(stream, cuts))).toEqual(expected);
    }
  });

  it('drops one byte order mark at the start of the stream, even split across chunks, and keeps a later one', async () => {
    const stream = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('data: {"a":1}\n\ndata: \uFEFFx\n\n')]);
    expect(await eventsOf(split(stream, [1, 2]))).toEqual(['{"a":1}', '\uFEFFx']);
    expect(await eventsOf([stream])).toEqual(['{"a":1}', '\uFEFFx']);
  });

  it('delivers the last event of a CR-framed stream, closed by CR CR at the end of the body', async () => {
    const text = 'data: {"a":1}\r\rdata: [DONE]\r\r';
    expect(await eventsOf([Buffer.from(text)])).toEqual(['{"a":1}', '[DONE]']);
    expect(await eventsOf(split(Buffer.from(text), [text.length - 1]))).toEqual(['{"a":1}', '[DONE]']);
    // Cut short, its last event is dropped as before: `data: x` is not JSON and has no blank line.
    expect(await eventsOf([Buffer.from('data: {"a":1}\r\rdata: x\r')])).toEqual(['{"a":1}']);
  });
});
