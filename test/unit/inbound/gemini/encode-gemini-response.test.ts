import { describe, expect, it } from 'vitest';
import { finishReason } from '../../../../gateway/canonical/finish-reason.ts';
import { GatewayError } from '../../../../gateway/canonical/gateway-error.ts';
import type { CanonicalResponse } from '../../../../gateway/canonical/response.ts';
import { makeUsage } from '../../../../gateway/canonical/usage.ts';
import { geminiCodec } from '../../../../gateway/inbound/gemini/gemini-codec.ts';
import type { EncodeContext } from '../../../../gateway/inbound/inbound-codec.ts';

const context: EncodeContext = {
  requestId: 'req_1',
  model: 'gemini-client-name',
  request: { clientFormat: 'gemini', model: 'gemini-client-name', stream: false, messages: [] },
  rawRequest: {},
  createdAt: 1_700_000_000,
};

describe('gemini encodeResponse', () => {
  it('renders thoughts, text and function calls with usage', () => {
    const response: CanonicalResponse = {
      id: 'up',
      model: 'up-model',
      content: [
        { type: 'reasoning', text: 'Tool says 4°C with rain.', signature: 'sig-r' },
        { type: 'reasoning', text: '', redacted: 'EmwK' },
        { type: 'text', text: 'It is 4 °C and raining in Oslo.' },
        { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Oslo"}', signature: 'sig-fc' },
        { type: 'tool-call', id: 'call_2', name: 'broken', arguments: 'not json' },
      ],
      finishReason: finishReason('tool-calls', 'tool_calls'),
      usage: makeUsage({ inputTotal: 61, cacheRead: 32, outputTotal: 52, reasoning: 40 }),
    };
    const body = geminiCodec.encodeResponse(response, context) as Record<string, unknown>;
    expect(body.responseId).toMatch(/^resp_[0-9a-f]{24}$/);
    expect(JSON.stringify({ ...body, responseId: 'R' })).toBe(
      JSON.stringify({
        candidates: [
          {
            content: {
              parts: [
                { text: 'Tool says 4°C with rain.', thought: true, thoughtSignature: 'sig-r' },
                { text: 'It is 4 °C and raining in Oslo.' },
                {
                  functionCall: { name: 'get_weather', args: { city: 'Oslo' }, id: 'call_1' },
                  thoughtSignature: 'sig-fc',
                },
                { functionCall: { name: 'broken', args: {}, id: 'call_2' } },
              ],
              role: 'model',
            },
            finishReason: 'STOP',
            index: 0,
          },
        ],
        usageMetadata: {
          promptTokenCount: 61,
          candidatesTokenCount: 12,
          thoughtsTokenCount: 40,
          cachedContentTokenCount: 32,
          totalTokenCount: 113,
        },
        modelVersion: 'gemini-client-name',
        responseId: 'R',
      }),
    );
  });

  it.each([
    [finishReason('stop', 'end_turn'), 'STOP'],
    [finishReason('length', 'max_tokens'), 'MAX_TOKENS'],
    [finishReason('content-filter', 'refusal'), 'SAFETY'],
    [finishReason('content-filter', 'RECITATION'), 'RECITATION'],
    [finishReason('error'), 'OTHER'],
    [finishReason('other', 'weird'), 'OTHER'],
  ])('maps %j to %s and never sends empty parts', (reason, expected) => {
    const body = geminiCodec.encodeResponse(
      { id: 'x', model: 'x', content: [], finishReason: reason, usage: makeUsage({ inputTotal: 5 }) },
      context,
    ) as {
      candidates: Array<{ content: unknown; finishReason: string }>;
      usageMetadata: unknown;
    };
    expect(body.candidates[0]?.finishReason).toBe(expected);
    expect(body.candidates[0]?.content).toStrictEqual({ parts: [{ text: '' }], role: 'model' });
    expect(body.usageMetadata).toStrictEqual({ promptTokenCount: 5, candidatesTokenCount: 0, totalTokenCount: 5 });
  });
});

describe('gemini encodeError', () => {
  it.each([
    [new GatewayError('invalid-request', 'bad'), 400, 'INVALID_ARGUMENT'],
    [new GatewayError('unauthenticated', 'API key not valid'), 401, 'UNAUTHENTICATED'],
    [new GatewayError('permission-denied', 'no'), 403, 'PERMISSION_DENIED'],
    [new GatewayError('not-found', 'models/x is not found'), 404, 'NOT_FOUND'],
    [new GatewayError('request-too-large', 'big'), 413, 'INVALID_ARGUMENT'],
    [new GatewayError('quota-exceeded', 'quota'), 429, 'RESOURCE_EXHAUSTED'],
    [new GatewayError('internal', 'bug'), 500, 'INTERNAL'],
    [new GatewayError('upstream-unavailable', 'down'), 502, 'UNAVAILABLE'],
    [new GatewayError('upstream-unavailable', 'overloaded', { status: 503 }), 503, 'UNAVAILABLE'],
    [new GatewayError('upstream-timeout', 'slow'), 504, 'DEADLINE_EXCEEDED'],
  ])('renders %s as %i %s', (error, code, status) => {
    expect(geminiCodec.encodeError(error)).toStrictEqual({
      status: code,
      body: { error: { code, message: error.message, status } },
    });
  });

  it('adds retry-after and RetryInfo when the wait is known', () => {
    expect(
      geminiCodec.encodeError(new GatewayError('rate-limited', 'slow down', { retryAfterMs: 16_500 })),
    ).toStrictEqual({
      status: 429,
      headers: { 'retry-after': '17' },
      body: {
        error: {
          code: 429,
          message: 'slow down',
          status: 'RESOURCE_EXHAUSTED',
          details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '16.5s' }],
        },
      },
    });
  });
});
