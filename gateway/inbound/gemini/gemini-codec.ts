/**
 * The Gemini inbound codec (https://ai.google.dev/api/generate-content): `models/{model}:generateContent`,
 * `:streamGenerateContent?alt=sse` and `:countTokens`, for @google/genai and google-genai.
 * Model and streaming come from the URL path (DecodeHints).
 */
import type { InboundCodec } from '../inbound-codec.ts';
import { decodeGeminiCountTokensRequest, decodeGeminiRequest } from './decode-gemini-request.ts';
import { encodeGeminiError } from './encode-gemini-error.ts';
import { encodeGeminiResponse } from './encode-gemini-response.ts';
import { createGeminiStreamEncoder } from './gemini-stream-encoder.ts';

/**
 * Gemini: decode §2, encode §3, stream §4, errors §6, countTokens §5
 * (`{totalTokens, promptTokensDetails: [{modality: 'TEXT', tokenCount}]}`).
 */
export const geminiCodec: InboundCodec = {
  format: 'gemini',
  decodeRequest: decodeGeminiRequest,
  encodeResponse: encodeGeminiResponse,
  createStreamEncoder: createGeminiStreamEncoder,
  encodeError: encodeGeminiError,
  decodeCountTokensRequest: decodeGeminiCountTokensRequest,
  encodeCountTokensResponse: (inputTokens: number) => ({
    totalTokens: inputTokens,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: inputTokens }],
  }),
};
