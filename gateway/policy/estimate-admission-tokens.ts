/**
 * The token reservation of a request at admission (user, key and channel TPM limits alike).
 */
import type { CanonicalRequest } from '../canonical/request.ts';
import { estimateAdmissionInputTokens } from '../tokenize/estimate-tokens.ts';

/** Output tokens reserved when the request sets no `maxOutputTokens` (tokens). */
export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;

/**
 * Tokens to reserve for `request`: the local input estimate (character classes,
 * estimate-tokens.ts estimateAdmissionInputTokens) plus `maxOutputTokens`, or `defaultMaxOutput`
 * (tokens, e.g. a per-model default) when the client set none. Settled with the actual usage after
 * the exchange. Bounded cost: ≈ 55 µs of CPU at most for any body; computed once per request
 * object however many limits (key, user, channels) ask. Never throws.
 */
export function estimateAdmissionTokens(
  request: CanonicalRequest,
  defaultMaxOutput: number = DEFAULT_MAX_OUTPUT_TOKENS,
): number {
  return estimateAdmissionInputTokens(request) + (request.maxOutputTokens ?? defaultMaxOutput);
}
