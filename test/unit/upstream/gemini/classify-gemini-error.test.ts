import { describe, expect, it } from 'vitest';
import { geminiAdapter } from '../../../../gateway/upstream/gemini/gemini-adapter.ts';

const classify = geminiAdapter.classifyError;
const body = (code: number, status: string, message: string, details?: unknown[]) =>
  JSON.stringify({ error: { code, message, status, ...(details ? { details } : {}) } });

describe('geminiAdapter.classifyError', () => {
  it('400 API_KEY_INVALID is the channel’s credential problem: 502, failover, not retryable', () => {
    const error = classify(
      400,
      body(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com' },
      ]),
      {},
    );
    expect(error).toMatchObject({
      kind: 'upstream-rejected',
      status: 502,
      allowFailover: true,
      retryable: false,
      upstreamStatus: 400,
      code: 'INVALID_ARGUMENT',
    });
    expect(error.message).toBe(
      "Upstream refused the channel's credentials: API key not valid. Please pass a valid API key.",
    );
  });

  it('400 FAILED_PRECONDITION (billing / region) also fails over', () => {
    expect(
      classify(400, body(400, 'FAILED_PRECONDITION', 'User location is not supported for the API use.'), {}),
    ).toMatchObject({ kind: 'upstream-rejected', status: 502, allowFailover: true });
  });

  it('a plain 400 INVALID_ARGUMENT stays the client’s fault', () => {
    const error = classify(400, body(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received. Unknown name "foo"'), {});
    expect(error).toMatchObject({
      kind: 'upstream-rejected',
      status: 400,
      allowFailover: false,
      message: 'Invalid JSON payload received. Unknown name "foo"',
    });
  });

  it('429 RESOURCE_EXHAUSTED takes its wait from RetryInfo when no header says so', () => {
    const details = [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '17s' }];
    expect(classify(429, body(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded'), {})).toMatchObject({
      kind: 'upstream-rate-limited',
      retryAfterMs: undefined,
    });
    expect(classify(429, body(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded', details), {})).toMatchObject({
      kind: 'upstream-rate-limited',
      status: 429,
      retryAfterMs: 17000,
    });
    expect(
      classify(429, body(429, 'RESOURCE_EXHAUSTED', 'Quota exceeded', details), { 'retry-after': '3' }),
    ).toMatchObject({ retryAfterMs: 3000 });
  });

  it('503 UNAVAILABLE, 500 INTERNAL, 504 DEADLINE_EXCEEDED, 404 NOT_FOUND', () => {
    expect(
      classify(503, body(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.'), {}),
    ).toMatchObject({ kind: 'upstream-unavailable', status: 503 });
    expect(classify(500, body(500, 'INTERNAL', 'internal'), {})).toMatchObject({
      kind: 'upstream-unavailable',
      status: 502,
    });
    expect(classify(504, body(504, 'DEADLINE_EXCEEDED', 'slow'), {})).toMatchObject({
      kind: 'upstream-timeout',
      status: 504,
    });
    expect(classify(404, body(404, 'NOT_FOUND', 'models/x is not found for API version v1beta'), {})).toMatchObject({
      kind: 'upstream-rejected',
      status: 404,
    });
  });

  it('accepts array-wrapped bodies and non-JSON text', () => {
    expect(classify(500, `[${body(500, 'INTERNAL', 'wrapped')}]`, {})).toMatchObject({ message: 'wrapped' });
    expect(classify(502, 'Bad Gateway', {})).toMatchObject({ kind: 'upstream-unavailable', message: 'Bad Gateway' });
  });
});
