/**
 * Renders canonical Usage as an Anthropic `usage` object (https://docs.anthropic.com/en/api/messages):
 * `input_tokens` is the UNCACHED input only; cache reads/writes are reported beside it, and cache
 * writes are split by lifetime in `cache_creation` when some had a 1-hour lifetime
 * (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching "1-hour cache duration").
 */
import { cacheWrite1hTokens, uncachedInputTokens, type Usage } from '../../canonical/usage.ts';

/** Cache writes by lifetime (tokens); the two sum to `cache_creation_input_tokens`. */
export interface AnthropicCacheCreation {
  ephemeral_5m_input_tokens: number;
  ephemeral_1h_input_tokens: number;
}

/** Anthropic usage, all counts in tokens and always numbers (never null); `cache_creation` only when some writes had a 1-hour lifetime. */
export interface AnthropicUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation?: AnthropicCacheCreation;
  output_tokens: number;
}

/**
 * Usage → `{input_tokens (uncached), cache_creation_input_tokens, cache_read_input_tokens,
 * cache_creation?, output_tokens}`. `cache_creation` is written when some cache writes had a
 * 1-hour lifetime: the 1-hour part from `cacheWrite1h`, the rest as 5-minute writes. Otherwise it
 * is left out (the SDKs type it nullable): every write then had the default 5-minute lifetime, as
 * before Anthropic added 1-hour caching, and the bytes stay as they were for other upstreams.
 */
export function encodeAnthropicUsage(usage: Usage): AnthropicUsage {
  const cacheWrite1h = cacheWrite1hTokens(usage);
  return {
    input_tokens: uncachedInputTokens(usage),
    cache_creation_input_tokens: usage.input.cacheWrite,
    cache_read_input_tokens: usage.input.cacheRead,
    ...(cacheWrite1h > 0
      ? {
          cache_creation: {
            ephemeral_5m_input_tokens: usage.input.cacheWrite - cacheWrite1h,
            ephemeral_1h_input_tokens: cacheWrite1h,
          },
        }
      : {}),
    output_tokens: usage.output.total,
  };
}
