/**
 * The InvokeModel surface of Claude on Amazon Bedrock, wrapped around the Anthropic Messages
 * adapter (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html):
 * URL, reshaped body, `chunk` events unwrapped into Anthropic stream events, exception messages.
 */
import { describe, expect, it } from 'vitest';
import type { CanonicalRequest } from '../../../../gateway/canonical/request.ts';
import type { StreamEvent } from '../../../../gateway/canonical/stream-event.ts';
import { getProviderPreset } from '../../../../gateway/providers/presets.ts';
import { anthropicMessagesAdapter } from '../../../../gateway/upstream/anthropic-messages/anthropic-messages-adapter.ts';
import { bedrockInvokeSurface } from '../../../../gateway/upstream/bedrock-invoke/bedrock-invoke-surface.ts';

const surface = bedrockInvokeSurface(anthropicMessagesAdapter);
const MODEL = 'anthropic.claude-sonnet-4-5-20250929-v1:0';
const provider = getProviderPreset('bedrock');
const target = {
  baseUrl: 'https://bedrock-runtime.eu-west-1.amazonaws.com',
  apiKey: '',
  upstreamModel: MODEL,
  provider,
};

function request(extra: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return {
    clientFormat: 'anthropic-messages',
    model: 'claude',
    stream: false,
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
    ...extra,
  };
}

const chunk = (event: unknown) => ({
  event: 'chunk',
  data: JSON.stringify({ bytes: Buffer.from(JSON.stringify(event)).toString('base64'), p: 'abc' }),
});

describe('bedrock:anthropic-messages', () => {
  it('invokes /model/{id}/invoke with the Messages body reshaped for Bedrock', () => {
    const { request: http, notes } = surface.buildRequest(
      request({ user: 'end-user-1', anthropicBetas: ['interleaved-thinking-2025-05-14', 'claude-code-20250219'] }),
      target,
    );
    expect(http.url).toBe(
      'https://bedrock-runtime.eu-west-1.amazonaws.com/model/anthropic.claude-sonnet-4-5-20250929-v1%3A0/invoke',
    );
    expect(http.headers).toEqual({ 'content-type': 'application/json' });
    expect(JSON.parse(http.body)).toEqual({
      anthropic_version: 'bedrock-2023-05-31',
      max_tokens: 4096,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      anthropic_beta: ['interleaved-thinking-2025-05-14'],
    });
    expect(notes.uncarried).toEqual([]);
    expect(notes.dropped).toHaveLength(2); // metadata.user_id, the undocumented beta flag
    const streamed = surface.buildRequest(request({ stream: true }), target).request;
    expect(streamed.url.endsWith('/invoke-with-response-stream')).toBe(true);
    expect(JSON.parse(streamed.body).stream).toBeUndefined();
  });

  it('decodes chunk events as the Anthropic stream they carry', () => {
    const decoder = surface.createStreamDecoder({ provider, upstreamModel: MODEL, request: request() });
    const events: StreamEvent[] = [
      ...decoder.push(
        chunk({
          type: 'message_start',
          message: { id: 'msg_1', model: MODEL, usage: { input_tokens: 3, output_tokens: 1 } },
        }),
      ),
      ...decoder.push(chunk({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } })),
      ...decoder.push(chunk({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello' } })),
      ...decoder.push(chunk({ type: 'content_block_stop', index: 0 })),
      ...decoder.push(
        chunk({ type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } }),
      ),
      ...decoder.push(
        chunk({
          type: 'message_stop',
          'amazon-bedrock-invocationMetrics': {
            inputTokenCount: 3,
            outputTokenCount: 5,
            invocationLatency: 9,
            firstByteLatency: 4,
          },
        }),
      ),
      ...decoder.end(),
    ];
    expect(events.map((e) => e.type)).toEqual([
      'message-start',
      'text-start',
      'text-delta',
      'block-end',
      'message-end',
    ]);
  });

  it('closes the open block and ends with the classified error of an exception message', () => {
    const decoder = surface.createStreamDecoder({ provider, upstreamModel: MODEL, request: request() });
    decoder.push(chunk({ type: 'message_start', message: { id: 'msg_1', model: MODEL } }));
    decoder.push(chunk({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }));
    const events = decoder.push({ event: 'modelStreamErrorException', data: '{"message":"model failed"}' });
    expect(events.map((e) => e.type)).toEqual(['block-end', 'error']);
    const last = events[1];
    expect(last?.type === 'error' && last.error.kind).toBe('upstream-unavailable');
    expect(decoder.end()).toEqual([]);
  });

  it('classifies an extraneous-key refusal as the request’s 400', () => {
    const error = surface.classifyError(
      400,
      '{"message":"Malformed input request: #: extraneous key [metadata] is not permitted, please reformat your input and try again."}',
      { 'x-amzn-errortype': 'ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/' },
    );
    expect([error.kind, error.status]).toEqual(['upstream-rejected', 400]);
  });
});
