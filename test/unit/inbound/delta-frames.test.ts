/**
 * The Chat Completions and Anthropic Messages stream encoders write their text, reasoning and
 * tool-input delta frames from templates: each must read byte for byte as the frame serialised
 * whole from its object by sseFrame, whatever the text holds.
 */
import { describe, expect, it } from 'vitest';
import { createChatStreamEncoder } from '../../../gateway/inbound/openai-chat/chat-stream-encoder.ts';
import { createAnthropicStreamEncoder } from '../../../gateway/inbound/anthropic-messages/anthropic-stream-encoder.ts';
import { sseFrame } from '../../../gateway/inbound/sse-frame.ts';
import type { EncodeContext } from '../../../gateway/inbound/inbound-codec.ts';
import type { CanonicalRequest } from '../../../gateway/canonical/request.ts';

const texts = [
  'Hello',
  'quote " backslash \\ slash /',
  'line\nbreak\r\ttab',
  'separators \u2028 \u2029 next-line \u0085',
  'control \u0000 \u001f',
  'emoji 🦊 and accents é',
  'lone surrogate \ud800 end',
  '{"json":"inside"}',
];

const context = (rawRequest: Record<string, unknown>, model = 'model "x"\u2028'): EncodeContext => ({
  requestId: 'req_1',
  model,
  request: { model, messages: [] } as unknown as CanonicalRequest,
  rawRequest,
  createdAt: 1_700_000_000,
});

/** The chunk id of a Chat stream, read from its first frame. */
const chunkId = (frame: string): string => (JSON.parse(frame.slice('data: '.length)) as { id: string }).id;

describe('template delta frames', () => {
  for (const includeUsage of [false, true])
    it(`Chat Completions: content and reasoning deltas read as their objects serialised (usage chunk ${includeUsage ? 'asked' : 'not asked'})`, () => {
      const ctx = context(includeUsage ? { stream_options: { include_usage: true } } : {});
      const encoder = createChatStreamEncoder(ctx);
      const first = encoder.encode({ type: 'message-start', messageId: 'm', model: 'x' });
      const id = chunkId(first);
      for (const text of texts)
        for (const [type, member] of [
          ['text-delta', 'content'],
          ['reasoning-delta', 'reasoning_content'],
        ] as const) {
          const body: Record<string, unknown> = {
            id,
            object: 'chat.completion.chunk',
            created: ctx.createdAt,
            model: ctx.model,
            choices: [{ index: 0, delta: { [member]: text }, logprobs: null, finish_reason: null }],
          };
          if (includeUsage) body.usage = null;
          expect(encoder.encode({ type, index: 0, text })).toBe(sseFrame(undefined, body));
        }
    });

  it('Anthropic Messages: text, thinking and tool-input deltas read as their objects serialised', () => {
    const encoder = createAnthropicStreamEncoder(context({}));
    const blocks = [
      { start: { type: 'text-start', index: 0 }, event: 'text-delta', delta: 'text_delta', field: 'text' },
      {
        start: { type: 'reasoning-start', index: 1 },
        event: 'reasoning-delta',
        delta: 'thinking_delta',
        field: 'thinking',
      },
      {
        start: { type: 'tool-input-start', index: 2, toolCallId: 'call_1', toolName: 'f' },
        event: 'tool-input-delta',
        delta: 'input_json_delta',
        field: 'partial_json',
      },
    ] as const;
    encoder.encode({ type: 'message-start', messageId: 'm', model: 'x' });
    blocks.forEach((block, position) => {
      encoder.encode(block.start);
      for (const text of texts) {
        const event =
          block.event === 'tool-input-delta'
            ? { type: block.event, index: block.start.index, argumentsFragment: text }
            : { type: block.event, index: block.start.index, text };
        const expected = sseFrame('content_block_delta', {
          type: 'content_block_delta',
          index: position,
          delta: { type: block.delta, [block.field]: text },
        });
        expect(encoder.encode(event)).toBe(expected);
      }
    });
  });
});
