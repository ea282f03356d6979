/** Canonical Usage → Responses `usage` (per https://platform.openai.com/docs/api-reference/responses). */
import type { Usage } from '../../canonical/usage.ts';

/** The Responses usage object; both `*_details` objects are always present. Counts are tokens. */
export interface ResponsesUsage {
  readonly input_tokens: number;
  readonly input_tokens_details: { readonly cached_tokens: number; readonly cache_write_tokens: number };
  readonly output_tokens: number;
  readonly output_tokens_details: { readonly reasoning_tokens: number };
  readonly total_tokens: number;
}

/**
 * `input_tokens` includes cached tokens (`cached_tokens` = cache reads, `cache_write_tokens` =
 * cache writes, newest schema); `output_tokens` includes `reasoning_tokens`.
 */
export function mapResponsesUsage(usage: Usage): ResponsesUsage {
  return {
    input_tokens: usage.input.total,
    input_tokens_details: { cached_tokens: usage.input.cacheRead, cache_write_tokens: usage.input.cacheWrite },
    output_tokens: usage.output.total,
    output_tokens_details: { reasoning_tokens: usage.output.reasoning },
    total_tokens: usage.input.total + usage.output.total,
  };
}
