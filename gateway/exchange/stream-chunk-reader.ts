/**
 * Reads a Node Readable chunk by chunk without its async iterator. `for await` over a Readable
 * (https://nodejs.org/api/stream.html#readablesymbolasynciterator) keeps an async generator, its
 * registers and `stream.finished`'s seven listeners alive for as long as the stream is, and costs
 * a generator step and a promise per chunk. This reader keeps one listener for the stream's
 * 'readable', 'end', 'error' and 'close' events, takes every buffered chunk synchronously, and makes
 * a promise only when nothing is buffered. Its end and error rules are the async iterator's: the
 * stream's own error is thrown, a stream destroyed before its end throws ERR_STREAM_PREMATURE_CLOSE,
 * and `release` destroys the stream as leaving a `for await` loop does.
 */
import type { Readable } from 'node:stream';

/** Thrown when the stream was destroyed before its end without an error of its own. */
export class PrematureCloseError extends Error {
  readonly code = 'ERR_STREAM_PREMATURE_CLOSE';
  constructor() {
    super('Premature close');
  }
}

/**
 * One reader per stream. Use: `for (;;) { const chunk = reader.next(); if (chunk === undefined)
 * { await reader.readable(); continue; } if (chunk === null) break; … }`, then `release()`.
 */
export class StreamChunkReader {
  private wake: (() => void) | undefined = undefined;
  private readonly onEvent: () => void;

  constructor(private readonly stream: Readable) {
    this.onEvent = () => {
      const wake = this.wake;
      this.wake = undefined;
      wake?.();
    };
    stream.on('readable', this.onEvent);
    stream.on('end', this.onEvent);
    stream.on('error', this.onEvent);
    stream.on('close', this.onEvent);
  }

  /**
   * The next buffered chunk (every byte the stream holds, as one Buffer); `null` once the stream
   * ended; `undefined` when nothing is buffered yet (await `readable()` and call again).
   * @throws the stream's error; PrematureCloseError when it was destroyed before its end.
   */
  next(): Buffer | null | undefined {
    const stream = this.stream;
    if (!stream.destroyed) {
      const chunk = stream.read() as Buffer | null;
      if (chunk !== null) return chunk;
    }
    if (stream.errored) throw stream.errored;
    if (stream.readableEnded) return null;
    if (stream.destroyed) throw new PrematureCloseError();
    return undefined;
  }

  /** Resolves at the stream's next 'readable', 'end', 'error' or 'close' event; never rejects. */
  readable(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
    });
  }

  /** Stops reading: removes the listener and destroys the stream (nothing more once it ended or was destroyed). */
  release(): void {
    const stream = this.stream;
    stream.off('readable', this.onEvent);
    stream.off('end', this.onEvent);
    stream.off('close', this.onEvent);
    // The error listener stays: an error emitted after the release must not become an uncaught one.
    if (!stream.destroyed) stream.destroy();
  }
}
