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
 * Gemini (https://ai.google.dev/api/generate-content): decode, encode, stream, errors
 * (https://ai.google.dev/gemini-api/docs/troubleshooting), countTokens (https://ai.google.dev/api/tokens)
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
