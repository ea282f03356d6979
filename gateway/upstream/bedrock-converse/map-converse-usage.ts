/**
 * Converse `usage` (TokenUsage) → canonical Usage
 * (https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_TokenUsage.html; cache counts per
 * https://docs.aws.amazon.com/bedrock/latest/userguide/prompt-caching.html).
 */
import { emptyUsage, makeUsage, type Usage } from '../../canonical/usage.ts';
import type { ConverseUsage } from './converse-wire-schemas.ts';

/**
 * Maps Converse usage (tokens): input total = `inputTokens + cacheReadInputTokens +
 * cacheWriteInputTokens` (Bedrock's `inputTokens` counts the uncached part only, and
 * `totalTokens` is the sum of all four counts), cacheRead = `cacheReadInputTokens`, cacheWrite =
 * `cacheWriteInputTokens`, output total = `outputTokens` (reasoning included; Converse reports no
 * reasoning count of its own, so reasoning is 0). No usage → `emptyUsage('estimated')`.
 */
export function mapConverseUsage(usage: ConverseUsage | null | undefined): Usage {
  if (!usage) return emptyUsage('estimated');
  const cacheRead = usage.cacheReadInputTokens ?? 0;
  const cacheWrite = usage.cacheWriteInputTokens ?? 0;
  return makeUsage({
    inputTotal: (usage.inputTokens ?? 0) + cacheRead + cacheWrite,
    cacheRead,
    cacheWrite,
    outputTotal: usage.outputTokens,
  });
}
