/**
 * Chat Completions `usage` → canonical Usage, null-safe across the compat upstreams
 * (https://platform.openai.com/docs/api-reference/chat usage fields; gateway/providers/PROVIDER-DOCS.md usage quirks).
 */
import type { Usage } from '../../canonical/usage.ts';
import { normalizeOpenAiUsage } from '../shared/normalize-openai-usage.ts';
import { chatUsageSchema, isPlainChatUsage } from './openai-chat-wire-schemas.ts';

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
  return normalizeOpenAiUsage(
    raw,
    chatUsageSchema,
    (usage) => ({
      inputTotal: usage.prompt_tokens,
      cacheRead: usage.prompt_cache_hit_tokens ?? usage.prompt_tokens_details?.cached_tokens ?? usage.cached_tokens,
      cacheWrite: usage.prompt_tokens_details?.cache_write_tokens,
      outputTotal: usage.completion_tokens,
      reasoning: usage.completion_tokens_details?.reasoning_tokens,
    }),
    isPlainChatUsage,
  );
}
