/**
 * Chat Completions `usage` → canonical Usage, null-safe across the compat upstreams
 * (https://platform.openai.com/docs/api-reference/chat usage fields; gateway/providers/PROVIDER-DOCS.md usage quirks).
 */
import { emptyUsage, makeUsage, type Usage } from '../../canonical/usage.ts';
import { asNumber, asRecord } from '../shared/read-json-field.ts';

/**
 * Normalises a Chat Completions usage object (tokens):
 * - `input.total` = `prompt_tokens` (includes cached tokens);
 * - `input.cacheRead` = DeepSeek `prompt_cache_hit_tokens` ?? `prompt_tokens_details.cached_tokens`
 *   ?? Moonshot top-level `cached_tokens` ?? 0;
 * - `input.cacheWrite` = `prompt_tokens_details.cache_write_tokens` ?? 0;
 * - `output.total` = `completion_tokens` (includes reasoning);
 * - `output.reasoning` = `completion_tokens_details.reasoning_tokens` ?? 0.
 * Any `*_details` may be absent or `null` (Xiaomi MiMo). When `raw` is not an object at all the
 * upstream was silent: returns `emptyUsage('estimated')` (the pipeline fills in an estimate).
 * Explicit zeros stay zeros with source `reported`. Never throws.
 */
export function normalizeChatUsage(raw: unknown): Usage {
  const usage = asRecord(raw);
  if (!usage) return emptyUsage('estimated');
  const promptDetails = asRecord(usage.prompt_tokens_details);
  const completionDetails = asRecord(usage.completion_tokens_details);
  return makeUsage({
    inputTotal: asNumber(usage.prompt_tokens),
    cacheRead: asNumber(usage.prompt_cache_hit_tokens) ?? asNumber(promptDetails?.cached_tokens) ?? asNumber(usage.cached_tokens) ?? 0,
    cacheWrite: asNumber(promptDetails?.cache_write_tokens) ?? 0,
    outputTotal: asNumber(usage.completion_tokens),
    reasoning: asNumber(completionDetails?.reasoning_tokens) ?? 0,
    source: 'reported',
  });
}
