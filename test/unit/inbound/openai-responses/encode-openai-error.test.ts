import { describe, expect, it } from 'vitest';
import { GatewayError, invalidRequest } from '../../../../gateway/canonical/gateway-error.ts';
import { openaiChatCodec } from '../../../../gateway/inbound/openai-chat/openai-chat-codec.ts';
import { openaiResponsesCodec } from '../../../../gateway/inbound/openai-responses/openai-responses-codec.ts';

describe('OpenAI error envelope (both codecs)', () => {
  it.each([
    [
      invalidRequest("Missing required parameter: 'model'.", 'model'),
      400,
      { message: "Missing required parameter: 'model'.", type: 'invalid_request_error', param: 'model', code: null },
    ],
    [
      new GatewayError('unauthenticated', 'Incorrect API key provided.'),
      401,
      { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' },
    ],
    [
      new GatewayError('not-found', "The model 'x' does not exist."),
      404,
      { message: "The model 'x' does not exist.", type: 'invalid_request_error', param: null, code: 'model_not_found' },
    ],
    [
      new GatewayError('not-found', 'Unknown route.'),
      404,
      { message: 'Unknown route.', type: 'invalid_request_error', param: null, code: null },
    ],
    [
      new GatewayError('rate-limited', 'Too many requests.'),
      429,
      { message: 'Too many requests.', type: 'requests', param: null, code: 'rate_limit_exceeded' },
    ],
    [
      new GatewayError('upstream-unavailable', 'Upstream down.'),
      502,
      { message: 'Upstream down.', type: 'server_error', param: null, code: null },
    ],
    [
      new GatewayError('upstream-rejected', 'Context too long.', {
        status: 400,
        code: 'context_length_exceeded',
        param: 'input',
      }),
      400,
      { message: 'Context too long.', type: 'invalid_request_error', param: 'input', code: 'context_length_exceeded' },
    ],
  ])('renders %s', (error, status, body) => {
    expect(openaiResponsesCodec.encodeError(error)).toEqual({ status, body: { error: body } });
    expect(openaiChatCodec.encodeError(error)).toEqual({ status, body: { error: body } });
  });

  it('sends insufficient_quota with x-should-retry: false and retry-after in whole seconds', () => {
    const quota = new GatewayError('quota-exceeded', 'You exceeded your quota.', { retryAfterMs: 1500 });
    expect(openaiResponsesCodec.encodeError(quota)).toEqual({
      status: 429,
      body: {
        error: {
          message: 'You exceeded your quota.',
          type: 'insufficient_quota',
          param: null,
          code: 'insufficient_quota',
        },
      },
      headers: { 'retry-after': '2', 'x-should-retry': 'false' },
    });
  });

  it('adds retry-after for upstream rate limits', () => {
    const limited = new GatewayError('upstream-rate-limited', 'Slow down', { retryAfterMs: 20_000 });
    expect(openaiChatCodec.encodeError(limited).headers).toEqual({ 'retry-after': '20' });
  });
});
