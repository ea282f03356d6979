/**
 * Responses `usage` → canonical Usage (https://platform.openai.com/docs/api-reference/responses).
 */
import { emptyUsage, makeUsage, type Usage } from '../../canonical/usage.ts';
import { responsesUsageSchema } from './openai-responses-wire-schemas.ts';

/**
 * Normalises a Responses usage object (tokens): `input_tokens` (includes cached),
 * `input_tokens_details.cached_tokens` / `.cache_write_tokens`, `output_tokens` (includes
 * reasoning), `output_tokens_details.reasoning_tokens`; absent or null details count 0. When
 * `raw` is not an object (usage `null` or missing) the upstream was silent:
 * `emptyUsage('estimated')`. Never throws.
 */
export function normalizeResponsesUsage(raw: unknown): Usage {
  const parsed = responsesUsageSchema.safeParse(raw);
  if (!parsed.success) return emptyUsage('estimated');
  const usage = parsed.data;
  return makeUsage({
    inputTotal: usage.input_tokens,
    cacheRead: usage.input_tokens_details?.cached_tokens ?? 0,
    cacheWrite: usage.input_tokens_details?.cache_write_tokens ?? 0,
    outputTotal: usage.output_tokens,
    reasoning: usage.output_tokens_details?.reasoning_tokens ?? 0,
    source: 'reported',
  });
}
