/**
 * Renders canonical Usage as an Anthropic `usage` object (https://docs.anthropic.com/en/api/messages):
 * `input_tokens` is the UNCACHED input only; cache reads/writes are reported beside it.
 */
import { uncachedInputTokens, type Usage } from '../../canonical/usage.ts';

/** Anthropic usage, all counts in tokens and always numbers (never null/absent). */
export interface AnthropicUsage {
  input_tokens: number;
  cache_creation_input_tokens: number;
  cache_read_input_tokens: number;
  output_tokens: number;
}

/** Usage → `{input_tokens (uncached), cache_creation_input_tokens, cache_read_input_tokens, output_tokens}`. */
export function encodeAnthropicUsage(usage: Usage): AnthropicUsage {
  return {
    input_tokens: uncachedInputTokens(usage),
    cache_creation_input_tokens: usage.input.cacheWrite,
    cache_read_input_tokens: usage.input.cacheRead,
    output_tokens: usage.output.total,
  };
}
