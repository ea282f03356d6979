/**
 * StreamChunkReader keeps the end and error rules of `for await` over a Readable
 * (https://nodejs.org/api/stream.html#readablesymbolasynciterator): every byte, the stream's own
 * error thrown, a destroy before the end thrown as ERR_STREAM_PREMATURE_CLOSE, the stream destroyed
 * when reading stops.
 */
import { PassThrough, Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { PrematureCloseError, StreamChunkReader } from '../../../gateway/exchange/stream-chunk-reader.ts';

/** Every chunk `reader` hands out until the end, as text. */
async function readAll(reader: StreamChunkReader): Promise<string> {
  let text = '';
  for (;;) {
    const chunk = reader.next();
    if (chunk === undefined) {
      await reader.readable();
      continue;
    }
    if (chunk === null) return text;
    text += chunk.toString();
  }
}

/** What `for await` makes of the same stream: its text, or the error it threw. */
async function readWithIterator(stream: Readable): Promise<string | Error> {
  let text = '';
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) text += chunk.toString();
    return text;
  } catch (error) {
    return error as Error;
  }
}

describe('StreamChunkReader', () => {
  it('hands out every byte of a stream written over time, then null', async () => {
    const stream = new PassThrough();
    const reader = new StreamChunkReader(stream);
    const reading = readAll(reader);
    for (const piece of ['data: 1\n\n', 'data: ', '2\n\n']) {
      stream.write(piece);
      await new Promise((resolve) => setImmediate(resolve));
    }
    stream.end('data: [DONE]\n\n');
    expect(await reading).toBe('data: 1\n\ndata: 2\n\ndata: [DONE]\n\n');
    expect(reader.next()).toBeNull();
  });

  it("throws the stream's own error, as the async iterator does", async () => {
    const make = () => {
      const stream = new PassThrough();
      setImmediate(() => {
        stream.write('part');
        setImmediate(() => stream.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' })));
      });
      return stream;
    };
    const error = await readAll(new StreamChunkReader(make())).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ message: 'socket hang up', code: 'ECONNRESET' });
    expect(await readWithIterator(make())).toMatchObject({ message: 'socket hang up', code: 'ECONNRESET' });
  });

  it('throws ERR_STREAM_PREMATURE_CLOSE when the stream is destroyed before its end without an error', async () => {
    const make = () => {
      const stream = new PassThrough();
      setImmediate(() => stream.destroy());
      return stream;
    };
    const error = await readAll(new StreamChunkReader(make())).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(PrematureCloseError);
    expect(error).toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
    expect(await readWithIterator(make())).toMatchObject({ code: 'ERR_STREAM_PREMATURE_CLOSE' });
  });

  it('destroys the stream on release, and an error after it is not uncaught', async () => {
    const stream = new PassThrough();
    const reader = new StreamChunkReader(stream);
    stream.write('a');
    await new Promise((resolve) => setImmediate(resolve));
    expect(reader.next()?.toString()).toBe('a');
    reader.release();
    expect(stream.destroyed).toBe(true);
    stream.emit('error', new Error('late'));
    expect(stream.listenerCount('readable')).toBe(0);
  });
});
