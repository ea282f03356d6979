/**
 * The AWS event-stream reader of the relay (gateway/exchange/read-aws-event-stream.ts): messages
 * encoded with the AWS SDK's own codec (@smithy/core/event-streams), delivered in arbitrary
 * chunks, come out as `{event, data}`; exceptions carry their `:exception-type`; a body cut inside
 * a message ends quietly (the decoder then reports the cut); a corrupted message is malformed.
 */
import { Readable } from 'node:stream';
import { EventStreamCodec, type MessageHeaders } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../gateway/canonical/gateway-error.ts';
import { readAwsEventStream } from '../../../gateway/exchange/read-aws-event-stream.ts';
import type { UpstreamSseEvent } from '../../../gateway/upstream/upstream-adapter.ts';

const codec = new EventStreamCodec(toUtf8, fromUtf8);

function message(kind: 'event' | 'exception', type: string, payload: unknown): Buffer {
  const headers: MessageHeaders = {
    ':message-type': { type: 'string', value: kind },
    [kind === 'event' ? ':event-type' : ':exception-type']: { type: 'string', value: type },
    ':content-type': { type: 'string', value: 'application/json' },
  };
  return Buffer.from(codec.encode({ headers, body: fromUtf8(JSON.stringify(payload)) }));
}

/** `bytes` as a body delivered `size` bytes at a time. */
function body(bytes: Buffer, size: number): Readable {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return Readable.from(chunks);
}

async function readAll(stream: Readable): Promise<UpstreamSseEvent[]> {
  const events: UpstreamSseEvent[] = [];
  for await (const event of readAwsEventStream(stream)) events.push(event);
  return events;
}

describe('readAwsEventStream', () => {
  const bytes = Buffer.concat([
    message('event', 'messageStart', { role: 'assistant' }),
    message('event', 'contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'Hé' } }),
    message('exception', 'throttlingException', { message: 'Too many tokens' }),
  ]);

  it.each([1, 7, 4096])('yields each message whole, whatever the chunk size (%i bytes)', async (size) => {
    expect(await readAll(body(bytes, size))).toEqual([
      { event: 'messageStart', data: '{"role":"assistant"}' },
      { event: 'contentBlockDelta', data: '{"contentBlockIndex":0,"delta":{"text":"Hé"}}' },
      { event: 'throttlingException', data: '{"message":"Too many tokens"}' },
    ]);
  });

  it('drops a message cut off by the end of the body, like a cut SSE event', async () => {
    const events = await readAll(body(bytes.subarray(0, bytes.length - 5), 16));
    expect(events.map((event) => event.event)).toEqual(['messageStart', 'contentBlockDelta']);
  });

  it('fails with upstream-malformed on a message whose checksum does not match', async () => {
    const corrupt = Buffer.from(bytes);
    corrupt[20] = (corrupt[20] ?? 0) ^ 0xff;
    const error = await readAll(body(corrupt, 64)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).kind).toBe('upstream-malformed');
  });

  it('passes on what a failing body throws', async () => {
    const failing = new Readable({
      read() {
        this.destroy(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }));
      },
    });
    await expect(readAll(failing)).rejects.toThrow('socket hang up');
  });
});
