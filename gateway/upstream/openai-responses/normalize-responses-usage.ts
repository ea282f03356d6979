/**
 * Responses `usage` → canonical Usage (https://platform.openai.com/docs/api-reference/responses).
 */
import type { Usage } from '../../canonical/usage.ts';
import { normalizeOpenAiUsage } from '../shared/normalize-openai-usage.ts';
import { responsesUsageSchema } from './openai-responses-wire-schemas.ts';

/**
 * Normalises a Responses usage object (tokens): `input_tokens` (includes cached),
 * `input_tokens_details.cached_tokens` / `.cache_write_tokens`, `output_tokens` (includes
 * reasoning), `output_tokens_details.reasoning_tokens`; absent or null details count 0. When
 * `raw` is not an object (usage `null` or missing) the upstream was silent:
 * `emptyUsage('estimated')`. Never throws.
 */
export function normalizeResponsesUsage(raw: unknown): Usage {
  return normalizeOpenAiUsage(raw, responsesUsageSchema, (usage) => ({
    inputTotal: usage.input_tokens,
    cacheRead: usage.input_tokens_details?.cached_tokens,
    cacheWrite: usage.input_tokens_details?.cache_write_tokens,
    outputTotal: usage.output_tokens,
    reasoning: usage.output_tokens_details?.reasoning_tokens,
  }));
}
