/**
 * The Gemini generateContent upstream adapter (https://ai.google.dev/api/generate-content; no preset provider
 * besides Google and the mock speaks it today — gateway/providers/PROVIDER-DOCS.md).
 */
import { readTokenCount } from '../shared/read-token-count.ts';
import type { UpstreamAdapter } from '../upstream-adapter.ts';
import { buildGeminiCountTokensRequest, buildGeminiRequest, geminiCallTarget } from './build-gemini-request.ts';
import { classifyGeminiError } from './classify-gemini-error.ts';
import { decodeGeminiResponse } from './decode-gemini-response.ts';
import { createGeminiStreamDecoder } from './decode-gemini-stream.ts';

/**
 * Reads `totalTokens` (tokens) from a countTokens answer (https://ai.google.dev/api/tokens).
 * Throws GatewayError('upstream-malformed') when it is missing.
 */
function decodeGeminiCountTokensResponse(body: unknown): number {
  return readTokenCount(body, 'totalTokens', 'countTokens');
}

/** UpstreamAdapter for protocol `gemini`. */
export const geminiAdapter: UpstreamAdapter = {
  protocol: 'gemini',
  buildRequest: buildGeminiRequest,
  passThroughTarget: geminiCallTarget,
  decodeResponse: decodeGeminiResponse,
  createStreamDecoder: createGeminiStreamDecoder,
  classifyError: classifyGeminiError,
  buildCountTokensRequest: buildGeminiCountTokensRequest,
  decodeCountTokensResponse: decodeGeminiCountTokensResponse,
};
