import { describe, expect, it } from 'vitest';
import { finishReason } from '../../../../gateway/canonical/finish-reason.ts';
import { GatewayError } from '../../../../gateway/canonical/gateway-error.ts';
import type { CanonicalResponse } from '../../../../gateway/canonical/response.ts';
import { makeUsage } from '../../../../gateway/canonical/usage.ts';
import { anthropicMessagesCodec } from '../../../../gateway/inbound/anthropic-messages/anthropic-messages-codec.ts';
import type { EncodeContext } from '../../../../gateway/inbound/inbound-codec.ts';

const context: EncodeContext = {
  requestId: 'req_1',
  model: 'claude-client-name',
  request: { clientFormat: 'anthropic-messages', model: 'claude-client-name', stream: false, messages: [] },
  rawRequest: {},
  createdAt: 1_700_000_000,
};

const usage = makeUsage({ inputTotal: 1300, cacheRead: 1210, cacheWrite: 45, outputTotal: 37, reasoning: 10 });

describe('anthropic encodeResponse', () => {
  it('renders every block type, the stop reason and uncached input usage', () => {
    const response: CanonicalResponse = {
      id: 'upstream-1',
      model: 'upstream-model',
      content: [
        { type: 'reasoning', text: 'Think.', signature: 'sig' },
        { type: 'reasoning', text: 'No signature.' },
        { type: 'reasoning', text: '', redacted: 'EmwK' },
        { type: 'text', text: 'Hello' },
        { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}' },
        { type: 'tool-call', id: 'call_2', name: 'broken', arguments: '{"city":' },
        { type: 'tool-call', id: 'call_3', name: 'no_args', arguments: '' },
      ],
      finishReason: finishReason('tool-calls', 'tool_calls'),
      usage,
    };
    const body = anthropicMessagesCodec.encodeResponse(response, context) as Record<string, unknown>;
    expect(body.id).toMatch(/^msg_[0-9a-f]{24}$/);
    expect({ ...body, id: 'msg_x' }).toStrictEqual({
      id: 'msg_x',
      type: 'message',
      role: 'assistant',
      model: 'claude-client-name',
      content: [
        { type: 'thinking', thinking: 'Think.', signature: 'sig' },
        { type: 'thinking', thinking: 'No signature.', signature: '' },
        { type: 'redacted_thinking', data: 'EmwK' },
        { type: 'text', text: 'Hello' },
        { type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Oslo' } },
        { type: 'tool_use', id: 'call_2', name: 'broken', input: {} },
        { type: 'tool_use', id: 'call_3', name: 'no_args', input: {} },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 45, cache_creation_input_tokens: 45, cache_read_input_tokens: 1210, output_tokens: 37 },
    });
  });

  it.each([
    [finishReason('stop', 'stop'), 'END', 'stop_sequence', 'END'],
    [finishReason('stop', 'stop'), undefined, 'end_turn', null],
    [finishReason('length', 'length'), undefined, 'max_tokens', null],
    [finishReason('content-filter', 'content_filter'), undefined, 'refusal', null],
    [finishReason('error'), undefined, 'end_turn', null],
    [finishReason('other', 'pause_turn'), undefined, 'pause_turn', null],
    [finishReason('stop', 'STOP'), undefined, 'end_turn', null],
  ])('maps %j (stop sequence %s) to %s', (reason, stopSequence, stopReason, echoed) => {
    const response: CanonicalResponse = {
      id: 'x',
      model: 'x',
      content: [],
      finishReason: reason,
      usage: makeUsage({}),
      ...(stopSequence ? { stopSequence } : {}),
    };
    const body = anthropicMessagesCodec.encodeResponse(response, context) as Record<string, unknown>;
    expect(body.stop_reason).toBe(stopReason);
    expect(body.stop_sequence).toBe(echoed);
    expect(body.usage).toStrictEqual({
      input_tokens: 0,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      output_tokens: 0,
    });
  });
});

describe('anthropic usage with 1-hour cache writes', () => {
  const answer = (u: CanonicalResponse['usage']): Record<string, unknown> =>
    (
      anthropicMessagesCodec.encodeResponse(
        { id: 'x', model: 'x', content: [], finishReason: finishReason('stop', 'stop'), usage: u },
        context,
      ) as { usage: Record<string, unknown> }
    ).usage;

  it('splits the writes into cache_creation by lifetime when some lasted 1 hour', () => {
    expect(
      answer(makeUsage({ inputTotal: 5251, cacheWrite: 5230, cacheWrite1h: 4096, outputTotal: 15 })),
    ).toStrictEqual({
      input_tokens: 21,
      cache_creation_input_tokens: 5230,
      cache_read_input_tokens: 0,
      cache_creation: { ephemeral_5m_input_tokens: 1134, ephemeral_1h_input_tokens: 4096 },
      output_tokens: 15,
    });
  });

  it('leaves cache_creation out when every write had the 5-minute lifetime', () => {
    expect(answer(makeUsage({ inputTotal: 100, cacheWrite: 80, outputTotal: 1 }))).not.toHaveProperty('cache_creation');
  });

  it('streams the split in message_start and message_delta', () => {
    const encoder = anthropicMessagesCodec.createStreamEncoder(context);
    const u = makeUsage({ inputTotal: 5251, cacheWrite: 5230, cacheWrite1h: 4096, outputTotal: 15 });
    const text = [
      encoder.encode({ type: 'message-start', messageId: 'm', model: 'x', usage: u }),
      encoder.encode({ type: 'message-end', finishReason: finishReason('stop', 'stop'), usage: u }),
    ].join('');
    const split = '"cache_creation":{"ephemeral_5m_input_tokens":1134,"ephemeral_1h_input_tokens":4096}';
    expect(text.split(split)).toHaveLength(3);
  });
});

describe('anthropic encodeError', () => {
  it.each([
    [new GatewayError('invalid-request', 'bad'), 400, 'invalid_request_error'],
    [new GatewayError('unauthenticated', 'who'), 401, 'authentication_error'],
    [new GatewayError('permission-denied', 'no'), 403, 'permission_error'],
    [new GatewayError('not-found', 'gone'), 404, 'not_found_error'],
    [new GatewayError('request-too-large', 'big'), 413, 'request_too_large'],
    [new GatewayError('unsupported-media-type', 'xml'), 415, 'invalid_request_error'],
    [new GatewayError('rate-limited', 'slow'), 429, 'rate_limit_error'],
    [new GatewayError('upstream-unavailable', 'down'), 502, 'api_error'],
    [new GatewayError('upstream-unavailable', 'busy', { status: 503 }), 503, 'overloaded_error'],
    [new GatewayError('upstream-timeout', 'late'), 504, 'timeout_error'],
    [new GatewayError('internal', 'bug'), 500, 'api_error'],
  ])('renders %s as %i %s', (error, status, type) => {
    const encoded = anthropicMessagesCodec.encodeError(error);
    expect(encoded.status).toBe(status);
    expect(encoded.body).toStrictEqual({ type: 'error', error: { type, message: error.message } });
  });

  it('adds retry headers and stops SDK retries for a spend quota', () => {
    const limited = anthropicMessagesCodec.encodeError(
      new GatewayError('rate-limited', 'slow down', { retryAfterMs: 1500 }),
    );
    expect(limited.headers).toStrictEqual({ 'retry-after': '2', 'retry-after-ms': '1500' });
    const quota = anthropicMessagesCodec.encodeError(new GatewayError('quota-exceeded', 'Monthly spend quota reached'));
    expect(quota).toStrictEqual({
      status: 429,
      body: { type: 'error', error: { type: 'rate_limit_error', message: 'Monthly spend quota reached' } },
      headers: { 'x-should-retry': 'false' },
    });
    expect(anthropicMessagesCodec.encodeError(new GatewayError('invalid-request', 'x')).headers).toBeUndefined();
  });
});
