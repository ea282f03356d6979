/**
 * Renders canonical Usage as Gemini `usageMetadata` (https://ai.google.dev/api/generate-content).
 */
import { visibleOutputTokens, type Usage } from '../../canonical/usage.ts';

/** Gemini usage metadata, all counts in tokens. */
export interface GeminiUsageMetadata {
  promptTokenCount: number;
  candidatesTokenCount: number;
  thoughtsTokenCount?: number;
  cachedContentTokenCount?: number;
  totalTokenCount: number;
}

/**
 * `promptTokenCount` = all input (cache included); `candidatesTokenCount` = visible output (without
 * reasoning); `thoughtsTokenCount` = reasoning, present only when > 0 (as Gemini does);
 * `cachedContentTokenCount` = cache reads, only when > 0; `totalTokenCount` = input + output.
 */
export function encodeGeminiUsage(usage: Usage): GeminiUsageMetadata {
  return {
    promptTokenCount: usage.input.total,
    candidatesTokenCount: visibleOutputTokens(usage),
    ...(usage.output.reasoning > 0 ? { thoughtsTokenCount: usage.output.reasoning } : {}),
    ...(usage.input.cacheRead > 0 ? { cachedContentTokenCount: usage.input.cacheRead } : {}),
    totalTokenCount: usage.input.total + usage.output.total,
  };
}
