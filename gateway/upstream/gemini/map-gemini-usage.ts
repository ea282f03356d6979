/**
 * Gemini `usageMetadata` → canonical Usage (per https://ai.google.dev/api/generate-content).
 */
import { emptyUsage, makeUsage, type Usage } from '../../canonical/usage.ts';
import type { GeminiUsageMetadata } from './gemini-wire-schemas.ts';

/**
 * Maps usage (tokens): input total = `promptTokenCount` (already includes cached tokens),
 * cacheRead = `cachedContentTokenCount`, cacheWrite = 0 (Gemini reports none), output total =
 * `candidatesTokenCount + thoughtsTokenCount`, reasoning = `thoughtsTokenCount`.
 * Absent metadata → `emptyUsage('estimated')` (the upstream was silent; count locally).
 */
export function mapGeminiUsage(metadata: GeminiUsageMetadata | null | undefined): Usage {
  if (!metadata) return emptyUsage('estimated');
  const thoughts = metadata.thoughtsTokenCount ?? 0;
  return makeUsage({
    inputTotal: metadata.promptTokenCount,
    cacheRead: metadata.cachedContentTokenCount,
    outputTotal: (metadata.candidatesTokenCount ?? 0) + thoughts,
    reasoning: thoughts,
  });
}
