/**
 * Cuts an upstream SSE byte stream at event boundaries, so that the relay reads, and a client on
 * pass-through receives, only whole events: each upstream chunk is taken up to its last complete event (an event ends with
 * a blank line, https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation)
 * and the rest is held until the blank line arrives. When the upstream fails, whatever is held
 * is dropped and the gateway's error event follows a complete frame.
 *
 * Text that is not valid UTF-8 is decoded with U+FFFD for each maximal invalid subpart (WHATWG
 * Encoding, https://encoding.spec.whatwg.org/#utf-8-decoder) and re-encoded: the SSE stream is
 * UTF-8 by definition (same spec, "Parsing an event stream"). Valid segments, the usual case, are
 * forwarded as the upstream's own Buffer without a copy.
 */
import { isUtf8 } from 'node:buffer';

/** Decodes a whole run at a time (never `stream: true`), so one decoder serves every stream. */
const REPLACING_DECODER = new TextDecoder('utf-8');

const LF = 0x0a;
const CR = 0x0d;

/** Forwardable SSE bytes: complete events only, valid UTF-8. */
export class SseFrameCutter {
  private tail: Buffer | undefined;

  /**
   * Takes the next upstream chunk; returns the complete events it finishes (a Buffer when they are
   * valid UTF-8, else the repaired text), or undefined when no event ended in it.
   */
  push(chunk: Buffer): Buffer | string | undefined {
    const held = this.tail;
    const data = held ? Buffer.concat([held, chunk]) : chunk;
    // A boundary cannot lie wholly inside the held tail: scan only where the new bytes could finish one.
    const end = lastEventEnd(data, held ? Math.max(0, held.length - 3) : 0);
    if (end === 0) {
      this.tail = held ? data : Buffer.from(chunk);
      return undefined;
    }
    this.tail = end < data.length ? Buffer.from(data.subarray(end)) : undefined;
    const events = end === data.length ? data : data.subarray(0, end);
    return isUtf8(events) ? events : REPLACING_DECODER.decode(events);
  }

  /**
   * At a clean end of the upstream body: the held last event closed with a blank line when it is
   * well-formed (each `data:` value JSON or `[DONE]`), else undefined (an incomplete event is dropped).
   */
  finish(): string | undefined {
    const held = this.tail;
    this.tail = undefined;
    if (!held) return undefined;
    const heldText = REPLACING_DECODER.decode(held);
    const text = heldText.replace(/[\r\n]+$/, '');
    if (text.trim() === '') return undefined;
    // The upstream's own line-ending style: one stream never mixes them.
    const newline = heldText.includes('\r\n') ? '\r\n' : heldText.includes('\r') ? '\r' : '\n';
    const data = text
      .split(/\r\n|\r|\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
      .join('\n');
    if (data === '') return undefined;
    if (data !== '[DONE]') {
      try {
        JSON.parse(data);
      } catch {
        return undefined;
      }
    }
    return text + newline + newline;
  }
}

/**
 * Offset just past the last blank line in `data` that lies at or after `from` (0 when none): a
 * line terminator (LF, CRLF or CR) directly followed by another. A CR as the last byte is left for
 * the next chunk, since it may be the first half of a CRLF.
 */
function lastEventEnd(data: Buffer, from: number): number {
  for (let i = data.length - 1; i > from; i--) {
    const byte = data[i];
    if (byte === LF) {
      const before = data[i - 1];
      if (before === LF) return i + 1;
      // CRLF ending an empty line: the terminator before it is LF (also the end of a CRLF) or a lone CR.
      if (before === CR && (data[i - 2] === LF || data[i - 2] === CR)) return i + 1;
    } else if (byte === CR && i + 1 < data.length && data[i + 1] !== LF) {
      const before = data[i - 1];
      if (before === CR || before === LF) return i + 1;
    }
  }
  return 0;
}
