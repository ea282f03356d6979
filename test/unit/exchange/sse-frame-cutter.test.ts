/**
 * SseFrameCutter: pass-through bytes are forwarded only up to the last complete SSE event,
 * whatever the chunking and line-ending style (LF, CRLF, CR); a held, unfinished event is dropped
 * unless its data is whole; text that is not UTF-8 comes out with U+FFFD.
 */
import { describe, expect, it } from 'vitest';
import { SseFrameCutter } from '../../../gateway/exchange/sse-frame-cutter.ts';

function cutInto(stream: Buffer, size: number): { pieces: string[]; rest: string | undefined } {
  const cutter = new SseFrameCutter();
  const pieces: string[] = [];
  for (let at = 0; at < stream.length; at += size) {
    const out = cutter.push(stream.subarray(at, at + size));
    if (out !== undefined) pieces.push(out.toString());
  }
  return { pieces, rest: cutter.finish() };
}

describe('SseFrameCutter', () => {
  it.each([
    ['LF', 'data: {"a":1}\n\n: ping\n\nevent: x\ndata: {"b":2}\n\ndata: [DONE]\n\n'],
    ['CRLF', 'data: {"a":1}\r\n\r\nevent: x\r\ndata: {"b":2}\r\n\r\n'],
  ])('%s: every chunking forwards whole events only, and all of them', (_name, text) => {
    const stream = Buffer.from(text);
    for (let size = 1; size <= stream.length; size++) {
      const { pieces, rest } = cutInto(stream, size);
      for (const piece of pieces) expect(piece.endsWith(text.includes('\r\n') ? '\r\n\r\n' : '\n\n')).toBe(true);
      expect(pieces.join('') + (rest ?? '')).toBe(text);
    }
  });

  it('CR-only framing is cut at its blank lines too', () => {
    const { pieces } = cutInto(Buffer.from('data: {"a":1}\r\rdata: {"b":2}\r\rdata: {"c"'), 5);
    expect(pieces.join('')).toBe('data: {"a":1}\r\rdata: {"b":2}\r\r');
  });

  it('drops an event cut short, and closes a whole last event left without its blank line', () => {
    expect(cutInto(Buffer.from('data: {"a":1}\n\ndata: {"b":'), 4).rest).toBeUndefined();
    expect(cutInto(Buffer.from('data: {"a":1}\n\ndata: {"b":2}'), 4).rest).toBe('data: {"b":2}\n\n');
    expect(cutInto(Buffer.from('data: {"a":1}\r\n\r\ndata: [DONE]\r\n'), 4).rest).toBe('data: [DONE]\r\n\r\n');
  });

  it('forwards valid UTF-8 as the upstream Buffer itself and repairs invalid bytes with U+FFFD', () => {
    const cutter = new SseFrameCutter();
    const valid = Buffer.from('data: {"t":"ü €"}\n\n');
    expect(cutter.push(valid)).toBe(valid);
    const invalid = Buffer.concat([
      Buffer.from('data: {"t":"a'),
      Buffer.from([0xc3, 0x28, 0xff]),
      Buffer.from('b"}\n\n'),
    ]);
    expect(cutter.push(invalid)).toBe('data: {"t":"a\uFFFD(\uFFFDb"}\n\n');
  });

  it('keeps a multi-byte character split across chunks intact', () => {
    const euro = Buffer.from('data: {"t":"€"}\n\n');
    const { pieces } = cutInto(euro, 13);
    expect(pieces.join('')).toBe('data: {"t":"€"}\n\n');
  });
});
