import { beforeEach, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../../../../gateway/canonical/gateway-error.ts';
import { responseToStreamEvents } from '../../../../gateway/canonical/response-to-stream.ts';
import type { CanonicalResponse } from '../../../../gateway/canonical/response.ts';
import type { StreamEvent } from '../../../../gateway/canonical/stream-event.ts';
import { openaiChatCodec } from '../../../../gateway/inbound/openai-chat/openai-chat-codec.ts';
import { makeContext, sseFrames, textResponse, toolResponse } from '../openai-responses/openai-test-fixtures.ts';

let counter = 0;
vi.mock('../../../../gateway/canonical/ids.ts', () => ({ generateId: (prefix: string) => `${prefix}${++counter}` }));
beforeEach(() => {
  counter = 0;
});

function encodeAll(events: StreamEvent[], raw: Record<string, unknown> = {}): string {
  const encoder = openaiChatCodec.createStreamEncoder(makeContext(raw));
  return events.map((e) => encoder.encode(e)).join('');
}

const streamOf = (response: CanonicalResponse, raw: Record<string, unknown> = {}, chunkSize?: number): string =>
  encodeAll(responseToStreamEvents(response, chunkSize), raw);

const HEAD = '{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1755500000,"model":"gw-model"';

describe('Chat stream encoder', () => {
  it('emits exact data-only chunks for a text answer, without usage', () => {
    expect(streamOf(textResponse, {}, 3)).toBe(
      [
        `data: ${HEAD},"choices":[{"index":0,"delta":{"role":"assistant","content":""},"logprobs":null,"finish_reason":null}]}`,
        `data: ${HEAD},"choices":[{"index":0,"delta":{"content":"Hel"},"logprobs":null,"finish_reason":null}]}`,
        `data: ${HEAD},"choices":[{"index":0,"delta":{"content":"lo!"},"logprobs":null,"finish_reason":null}]}`,
        `data: ${HEAD},"choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"stop"}]}`,
        'data: [DONE]',
        '',
      ].join('\n\n'),
    );
  });

  it('with include_usage: usage null on every chunk, then a choices:[] usage chunk before [DONE]', () => {
    const frames = sseFrames(streamOf(textResponse, { stream_options: { include_usage: true } }));
    expect(frames.every((f) => f.startsWith('data: '))).toBe(true);
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.slice(6)) as Record<string, unknown>);
    expect(chunks.slice(0, -1).every((c) => c.usage === null)).toBe(true);
    expect(chunks.at(-1)).toEqual({
      id: 'chatcmpl-1',
      object: 'chat.completion.chunk',
      created: 1755500000,
      model: 'gw-model',
      choices: [],
      usage: {
        prompt_tokens: 9,
        completion_tokens: 2,
        total_tokens: 11,
        prompt_tokens_details: { cached_tokens: 4, audio_tokens: 0 },
        completion_tokens_details: {
          reasoning_tokens: 0,
          audio_tokens: 0,
          accepted_prediction_tokens: 0,
          rejected_prediction_tokens: 0,
        },
      },
    });
    expect(frames.at(-1)).toBe('data: [DONE]');
  });

  it('streams reasoning_content only where there is reasoning, and tool calls by position', () => {
    const frames = sseFrames(streamOf(toolResponse, {}, 10)).slice(0, -1);
    const deltas = frames.map(
      (f) => (JSON.parse(f.slice(6)) as { choices: Array<{ delta: unknown; finish_reason: unknown }> }).choices[0],
    );
    expect(deltas).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
      { index: 0, delta: { reasoning_content: 'Need the w' }, logprobs: null, finish_reason: null },
      { index: 0, delta: { reasoning_content: 'eather.' }, logprobs: null, finish_reason: null },
      { index: 0, delta: { content: 'Checking.' }, logprobs: null, finish_reason: null },
      {
        index: 0,
        delta: {
          tool_calls: [
            { index: 0, id: 'call_7Hk2', type: 'function', function: { name: 'get_weather', arguments: '' } },
          ],
        },
        logprobs: null,
        finish_reason: null,
      },
      {
        index: 0,
        delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":"O' } }] },
        logprobs: null,
        finish_reason: null,
      },
      {
        index: 0,
        delta: { tool_calls: [{ index: 0, function: { arguments: 'slo"}' } }] },
        logprobs: null,
        finish_reason: null,
      },
      { index: 0, delta: {}, logprobs: null, finish_reason: 'tool_calls' },
    ]);
  });

  it('never writes event: lines', () => {
    expect(streamOf(toolResponse, { stream_options: { include_usage: true } })).not.toMatch(/^event:/m);
  });

  it('renders a mid-stream error as one data-only error frame and stops', () => {
    const encoder = openaiChatCodec.createStreamEncoder(makeContext());
    encoder.encode({ type: 'message-start', messageId: 'u', model: 'x' });
    const error = new GatewayError('upstream-unavailable', 'The server had an error while processing your request.');
    expect(encoder.encode({ type: 'error', error })).toBe(
      'data: {"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}\n\n',
    );
    expect(encoder.encode({ type: 'text-delta', index: 0, text: 'late' })).toBe('');
    expect(encoder.keepAlive()).toBe(': ping\n\n');
  });
});
