/**
 * Anthropic `usage` → canonical Usage (per https://docs.anthropic.com/en/api/messages and gateway/providers/PROVIDER-DOCS.md).
 */
import { emptyUsage, makeUsage, type Usage } from '../../canonical/usage.ts';
import type { AnthropicUsage } from './anthropic-wire-schemas.ts';

/**
 * Maps Anthropic usage (tokens): input total = `input_tokens + cache_creation_input_tokens +
 * cache_read_input_tokens` (Anthropic's `input_tokens` is the uncached part only), cacheRead =
 * `cache_read_input_tokens`, cacheWrite = `cache_creation_input_tokens`, cacheWrite1h =
 * `cache_creation.ephemeral_1h_input_tokens` (the 1-hour part of the writes; 0 when absent), output total =
 * `output_tokens`, reasoning = `output_tokens_details.thinking_tokens` (0 when absent).
 * Missing cache fields (MiMo and other compat upstreams) count as 0. No usage at all →
 * `emptyUsage('estimated')` (by convention: the upstream was silent, count locally).
 */
export function mapAnthropicUsage(usage: AnthropicUsage | null | undefined): Usage {
  if (!usage) return emptyUsage('estimated');
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  return makeUsage({
    inputTotal: (usage.input_tokens ?? 0) + cacheRead + cacheWrite,
    cacheRead,
    cacheWrite,
    cacheWrite1h: usage.cache_creation?.ephemeral_1h_input_tokens,
    outputTotal: usage.output_tokens,
    reasoning: usage.output_tokens_details?.thinking_tokens,
  });
}

/**
 * Overwrites `into` with every numeric field of `update` (streamed usage is cumulative: later
 * values replace earlier ones, never add; fields absent from `update` are kept) —
 * https://docs.anthropic.com/en/docs/build-with-claude/streaming#event-types.
 * Returns the merged record; `into` is not mutated.
 */
export function mergeAnthropicUsage(into: AnthropicUsage | undefined, update: AnthropicUsage): AnthropicUsage {
  const merged: Record<string, unknown> = { ...into };
  for (const [key, value] of Object.entries(update)) {
    if (typeof value === 'number') merged[key] = value;
  }
  if (update.cache_creation) merged.cache_creation = { ...into?.cache_creation, ...numbersOf(update.cache_creation) };
  const thinking = update.output_tokens_details?.thinking_tokens;
  if (typeof thinking === 'number') merged.output_tokens_details = { thinking_tokens: thinking };
  return merged;
}

function numbersOf(record: Record<string, unknown>): Record<string, number> {
  return Object.fromEntries(
    Object.entries(record).filter((entry): entry is [string, number] => typeof entry[1] === 'number'),
  );
}
