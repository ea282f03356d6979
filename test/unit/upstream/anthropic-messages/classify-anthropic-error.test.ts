import { describe, expect, it } from 'vitest';
import { anthropicMessagesAdapter } from '../../../../gateway/upstream/anthropic-messages/anthropic-messages-adapter.ts';

const body = (type: string, message: string) =>
  JSON.stringify({ type: 'error', error: { type, message }, request_id: 'req_011CSHoEeqs5C35K2UUqR7Fy' });
const classify = anthropicMessagesAdapter.classifyError;

describe('anthropicMessagesAdapter.classifyError', () => {
  it('429 → upstream-rate-limited with retry-after in ms', () => {
    const error = classify(
      429,
      body('rate_limit_error', 'Number of request tokens has exceeded your per-minute rate limit'),
      { 'retry-after': '7' },
    );
    expect(error).toMatchObject({
      kind: 'upstream-rate-limited',
      status: 429,
      retryAfterMs: 7000,
      code: 'rate_limit_error',
      upstreamStatus: 429,
      allowFailover: true,
    });
    expect(error.message).toBe('Number of request tokens has exceeded your per-minute rate limit');
  });

  it('529 overloaded → upstream-unavailable, failover allowed', () => {
    expect(classify(529, body('overloaded_error', 'Overloaded'), {})).toMatchObject({
      kind: 'upstream-unavailable',
      status: 502,
      upstreamStatus: 529,
      allowFailover: true,
      retryable: true,
    });
  });

  it('MiniMax "insufficient balance (1008)" on 500 → upstream-rejected 502, failover, not retryable', () => {
    const error = classify(500, body('api_error', 'insufficient balance (1008)'), {});
    expect(error).toMatchObject({
      kind: 'upstream-rejected',
      status: 502,
      allowFailover: true,
      retryable: false,
      upstreamStatus: 500,
      code: 'api_error',
    });
    expect(error.message).toBe('insufficient balance (1008)');
  });

  it('a plain 500 stays upstream-unavailable', () => {
    expect(classify(500, body('api_error', 'Internal server error'), {})).toMatchObject({
      kind: 'upstream-unavailable',
      status: 502,
      retryable: true,
    });
  });

  it('401 from the upstream is the channel’s credential problem', () => {
    expect(classify(401, body('authentication_error', 'invalid x-api-key'), {})).toMatchObject({
      kind: 'upstream-rejected',
      status: 502,
      allowFailover: true,
      retryable: false,
    });
  });

  it('400 invalid request keeps its status and message, no failover', () => {
    const error = classify(400, body('invalid_request_error', 'max_tokens: Field required'), {});
    expect(error).toMatchObject({
      kind: 'upstream-rejected',
      status: 400,
      allowFailover: false,
      retryable: false,
      message: 'max_tokens: Field required',
    });
  });

  it('copes with an empty or non-JSON body', () => {
    expect(classify(503, '', {})).toMatchObject({
      kind: 'upstream-unavailable',
      status: 503,
      message: 'Upstream answered HTTP 503',
    });
    expect(classify(504, '<html>Gateway Timeout</html>', {})).toMatchObject({ kind: 'upstream-timeout', status: 504 });
  });
});
