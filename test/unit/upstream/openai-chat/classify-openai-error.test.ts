import { describe, expect, it } from 'vitest';
import { mapChatFinishReason } from '../../../../gateway/upstream/openai-chat/map-chat-finish-reason.ts';
import { normalizeChatUsage } from '../../../../gateway/upstream/openai-chat/normalize-chat-usage.ts';
import { openaiChatAdapter } from '../../../../gateway/upstream/openai-chat/openai-chat-adapter.ts';

const classify = openaiChatAdapter.classifyError;

describe('openai-chat classifyError', () => {
  it('429 → upstream-rate-limited with retry-after in ms and the upstream code', () => {
    const error = classify(
      429,
      '{"error":{"message":"Rate limit reached for gpt-4o","type":"requests","param":null,"code":"rate_limit_exceeded"}}',
      { 'retry-after': '7' },
    );
    expect([error.kind, error.status, error.retryAfterMs, error.code, error.message, error.allowFailover]).toEqual([
      'upstream-rate-limited',
      429,
      7000,
      'rate_limit_exceeded',
      'Rate limit reached for gpt-4o',
      true,
    ]);
  });

  it('400 → upstream-rejected with the same status, no failover', () => {
    const error = classify(
      400,
      '{"error":{"message":"Invalid \'messages[1].content\'","type":"invalid_request_error","param":"messages","code":null}}',
      {},
    );
    expect([error.kind, error.status, error.allowFailover, error.upstreamStatus]).toEqual([
      'upstream-rejected',
      400,
      false,
      400,
    ]);
  });

  it('401 from upstream → 502 (channel credential), failover allowed', () => {
    const error = classify(
      401,
      '{"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}',
      {},
    );
    expect([error.kind, error.status, error.allowFailover]).toEqual(['upstream-rejected', 502, true]);
  });

  it('MiniMax "insufficient balance (1008)" in a 500 → upstream-rejected 502, failover, not retryable', () => {
    const error = classify(
      500,
      '{"type":"error","error":{"type":"api_error","message":"insufficient balance (1008)"},"request_id":"05f1"}',
      {},
    );
    expect([error.kind, error.status, error.allowFailover, error.retryable, error.upstreamStatus, error.code]).toEqual([
      'upstream-rejected',
      502,
      true,
      false,
      500,
      'api_error',
    ]);
  });

  it('other 500s → upstream-unavailable; 503 keeps its status; non-JSON bodies keep their text', () => {
    expect([
      classify(500, '{"error":{"message":"boom"}}', {}).kind,
      classify(503, 'Service Unavailable', {}).status,
    ]).toEqual(['upstream-unavailable', 503]);
    expect(classify(502, '<html>Bad gateway</html>', {}).message).toBe('<html>Bad gateway</html>');
  });

  it('Zhipu string codes survive as `code`', () => {
    const error = classify(429, '{"error":{"code":"1113","message":"您的账户已欠费，请充值后重试。"}}', {});
    expect([error.kind, error.code]).toEqual(['upstream-rate-limited', '1113']);
  });
});

describe('mapChatFinishReason', () => {
  it.each([
    ['stop', false, 'stop'],
    ['length', false, 'length'],
    ['tool_calls', false, 'tool-calls'],
    ['function_call', false, 'tool-calls'],
    ['content_filter', false, 'content-filter'],
    ['sensitive', false, 'content-filter'],
    ['network_error', false, 'error'],
    ['eos', false, 'other'],
    ['stop', true, 'tool-calls'],
    ['length', true, 'length'],
  ] as const)('%s (tool calls: %s) → %s', (raw, hasTools, unified) => {
    expect(mapChatFinishReason(raw, hasTools)).toEqual({ unified, raw });
  });

  it('missing → other without raw', () => {
    expect(mapChatFinishReason(null, false)).toEqual({ unified: 'other' });
  });
});

describe('normalizeChatUsage', () => {
  it('prefers DeepSeek prompt_cache_hit_tokens, then details, then Moonshot top-level cached_tokens', () => {
    expect(
      normalizeChatUsage({ prompt_tokens: 10, prompt_cache_hit_tokens: 3, prompt_tokens_details: { cached_tokens: 2 } })
        .input.cacheRead,
    ).toBe(3);
    expect(
      normalizeChatUsage({ prompt_tokens: 10, prompt_tokens_details: { cached_tokens: 2 }, cached_tokens: 1 }).input
        .cacheRead,
    ).toBe(2);
    expect(
      normalizeChatUsage({ prompt_tokens: 10, prompt_tokens_details: null, cached_tokens: 1 }).input.cacheRead,
    ).toBe(1);
  });

  it('reads cache writes and reasoning tokens, null-safe', () => {
    expect(
      normalizeChatUsage({
        prompt_tokens: 100,
        completion_tokens: 50,
        prompt_tokens_details: { cache_write_tokens: 40 },
        completion_tokens_details: { reasoning_tokens: 30 },
      }),
    ).toEqual({
      input: { total: 100, cacheRead: 0, cacheWrite: 40 },
      output: { total: 50, reasoning: 30 },
      source: 'reported',
    });
    expect(
      normalizeChatUsage({ prompt_tokens: 5, completion_tokens: 1, completion_tokens_details: null }).output,
    ).toEqual({ total: 1, reasoning: 0 });
  });

  it('null / missing usage → estimated zeros', () => {
    expect(normalizeChatUsage(null).source).toBe('estimated');
    expect(normalizeChatUsage(undefined).source).toBe('estimated');
  });
});
