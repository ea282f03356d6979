/**
 * Responses `usage` → canonical Usage (https://platform.openai.com/docs/api-reference/responses).
 */
import { emptyUsage, makeUsage, type Usage } from '../../canonical/usage.ts';
import { asNumber, asRecord } from '../shared/read-json-field.ts';

/**
 * Normalises a Responses usage object (tokens): `input_tokens` (includes cached),
 * `input_tokens_details.cached_tokens` / `.cache_write_tokens`, `output_tokens` (includes
 * reasoning), `output_tokens_details.reasoning_tokens`; absent or null details count 0. When
 * `raw` is not an object (usage `null` or missing) the upstream was silent:
 * `emptyUsage('estimated')`. Never throws.
 */
export function normalizeResponsesUsage(raw: unknown): Usage {
  const usage = asRecord(raw);
  if (!usage) return emptyUsage('estimated');
  const inputDetails = asRecord(usage.input_tokens_details);
  const outputDetails = asRecord(usage.output_tokens_details);
  return makeUsage({
    inputTotal: asNumber(usage.input_tokens),
    cacheRead: asNumber(inputDetails?.cached_tokens) ?? 0,
    cacheWrite: asNumber(inputDetails?.cache_write_tokens) ?? 0,
    outputTotal: asNumber(usage.output_tokens),
    reasoning: asNumber(outputDetails?.reasoning_tokens) ?? 0,
    source: 'reported',
  });
}
