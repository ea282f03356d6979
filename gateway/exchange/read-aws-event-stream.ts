/**
 * Reads an upstream body framed as an AWS event stream (`application/vnd.amazon.eventstream`,
 * Amazon Bedrock's ConverseStream and InvokeModelWithResponseStream:
 * https://docs.aws.amazon.com/AmazonS3/latest/API/RESTSelectObjectAppendix.html describes the
 * binary message format — prelude with total and header lengths, prelude CRC, headers, payload,
 * message CRC) and hands each message over as the UpstreamSseEvent the adapters' stream decoders
 * read: `event` is the `:event-type` header (or `:exception-type` for a `:message-type: exception`
 * message, `:error-code` for `:message-type: error`), `data` the payload as UTF-8 text (for an
 * `error` message, `{"message": <:error-message>}`).
 *
 * The byte stream is cut into messages by the length prelude (`getChunkedStream`) and each
 * message decoded and checksummed by `EventStreamCodec` of the AWS SDK's own Smithy runtime
 * (@smithy/core/event-streams, which @smithy/eventstream-codec re-exports). A body cut inside a
 * message at a clean end is treated like a cut SSE stream: the unfinished message is dropped and
 * the decoder's `end()` reports the stream as ended before completion. A message whose checksum
 * does not match fails the read with GatewayError('upstream-malformed'); a body that fails
 * (connection reset, abort) throws what reading it threw.
 */
import type { Readable } from 'node:stream';
import { EventStreamCodec, getChunkedStream, type MessageHeaders } from '@smithy/core/event-streams';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { GatewayError } from '../canonical/gateway-error.ts';
import type { UpstreamSseEvent } from '../upstream/upstream-adapter.ts';

/** A header's value as text (string headers), or undefined when absent or of another type. */
function stringHeader(headers: MessageHeaders, name: string): string | undefined {
  const header = headers[name];
  return header?.type === 'string' ? header.value : undefined;
}

/** The UpstreamSseEvent of one decoded message (see the module comment). */
function eventOf(headers: MessageHeaders, body: Uint8Array): UpstreamSseEvent {
  const messageType = stringHeader(headers, ':message-type') ?? 'event';
  if (messageType === 'error') {
    const code = stringHeader(headers, ':error-code') ?? 'InternalFailure';
    return { event: code, data: JSON.stringify({ message: stringHeader(headers, ':error-message') ?? code }) };
  }
  const type = stringHeader(headers, messageType === 'exception' ? ':exception-type' : ':event-type');
  const data = toUtf8(body);
  return type === undefined ? { data } : { event: type, data };
}

/**
 * Yields one UpstreamSseEvent per event-stream message of `body`. `afterChunk` sees every raw
 * chunk (bytes) as it is read (byte counting for the attempt's deadline).
 * @throws GatewayError('upstream-malformed') for a message that fails its checksum or cannot be
 *   parsed; whatever reading `body` throws (undici socket and abort errors)
 */
export async function* readAwsEventStream(
  body: Readable,
  afterChunk?: (chunk: Buffer) => void | Promise<void>,
): AsyncGenerator<UpstreamSseEvent> {
  const codec = new EventStreamCodec(toUtf8, fromUtf8);
  let sourceEnded = false;
  async function* source(): AsyncGenerator<Uint8Array> {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      if (afterChunk) await afterChunk(chunk);
      yield new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    }
    sourceEnded = true;
  }
  const messages = getChunkedStream(source())[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Uint8Array>;
    try {
      next = await messages.next();
    } catch (error) {
      if (sourceEnded) return; // the body ended inside a message: dropped, as a cut SSE event is
      throw error;
    }
    if (next.done) return;
    let decoded: { headers: MessageHeaders; body: Uint8Array };
    try {
      decoded = codec.decode(next.value);
    } catch (error) {
      throw new GatewayError(
        'upstream-malformed',
        `Upstream sent an unreadable event-stream message: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    yield eventOf(decoded.headers, decoded.body);
  }
}
