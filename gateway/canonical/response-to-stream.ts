/**
 * Expands a finished CanonicalResponse into the StreamEvent grammar (stream-event.ts), for
 * streaming clients served by a non-streamed answer (the mock provider, tests). The
 * message-start carries the input usage; message-end the full usage.
 * `chunkSize` splits text into deltas of at most that many characters (default: one delta).
 */
import type { CanonicalResponse } from './response.ts';
import type { StreamEvent } from './stream-event.ts';
import { makeUsage } from './usage.ts';

export function responseToStreamEvents(
  response: CanonicalResponse,
  chunkSize = Number.POSITIVE_INFINITY,
): StreamEvent[] {
  // Input usage is known before generation starts; announce it (Anthropic clients read message_start).
  const { input, source } = response.usage;
  const startUsage = makeUsage({
    inputTotal: input.total,
    cacheRead: input.cacheRead,
    cacheWrite: input.cacheWrite,
    cacheWrite1h: input.cacheWrite1h,
    source,
  });
  const events: StreamEvent[] = [
    { type: 'message-start', messageId: response.id, model: response.model, usage: startUsage },
  ];
  const split = (text: string): string[] => {
    if (text.length <= chunkSize) return [text];
    const pieces: string[] = [];
    for (let i = 0; i < text.length; i += chunkSize) pieces.push(text.slice(i, i + chunkSize));
    return pieces;
  };
  response.content.forEach((block, index) => {
    switch (block.type) {
      case 'text':
        events.push({ type: 'text-start', index });
        for (const text of split(block.text)) events.push({ type: 'text-delta', index, text });
        break;
      case 'reasoning':
        events.push(
          block.redacted === undefined
            ? { type: 'reasoning-start', index }
            : { type: 'reasoning-start', index, redacted: block.redacted },
        );
        if (block.text !== '')
          for (const text of split(block.text)) events.push({ type: 'reasoning-delta', index, text });
        if (block.signature) events.push({ type: 'reasoning-signature', index, signature: block.signature });
        break;
      case 'tool-call':
        events.push(
          block.signature === undefined
            ? { type: 'tool-input-start', index, toolCallId: block.id, toolName: block.name }
            : {
                type: 'tool-input-start',
                index,
                toolCallId: block.id,
                toolName: block.name,
                signature: block.signature,
              },
        );
        for (const argumentsFragment of split(block.arguments))
          events.push({ type: 'tool-input-delta', index, argumentsFragment });
        break;
    }
    events.push({ type: 'block-end', index });
  });
  events.push(
    response.stopSequence === undefined
      ? { type: 'message-end', finishReason: response.finishReason, usage: response.usage }
      : {
          type: 'message-end',
          finishReason: response.finishReason,
          usage: response.usage,
          stopSequence: response.stopSequence,
        },
  );
  return events;
}
