/**
 * Encodes a finished CanonicalResponse as a Gemini `GenerateContentResponse`
 * (https://ai.google.dev/api/generate-content).
 */
import { generateId } from '../../canonical/ids.ts';
import type { CanonicalResponse } from '../../canonical/response.ts';
import type { EncodeContext } from '../inbound-codec.ts';
import { buildGeminiResponse, type GeminiResponseBody } from './build-gemini-response.ts';
import { encodeGeminiPart, type GeminiOutputPart } from './encode-gemini-part.ts';
import { encodeGeminiUsage } from './encode-gemini-usage.ts';
import { mapFinishReasonToGemini } from './map-finish-reason-to-gemini.ts';

/** Mints a client-facing `responseId` (opaque; the same on every chunk of one stream). */
export function newGeminiResponseId(): string {
  return generateId('resp_');
}

/**
 * CanonicalResponse → `{candidates: [{content: {parts, role: 'model'}, finishReason, index: 0}],
 * usageMetadata, modelVersion: context.model, responseId}`.
 */
export function encodeGeminiResponse(response: CanonicalResponse, context: EncodeContext): GeminiResponseBody {
  const parts = response.content.map(encodeGeminiPart).filter((part): part is GeminiOutputPart => part !== undefined);
  return buildGeminiResponse(parts, {
    modelVersion: context.model,
    responseId: newGeminiResponseId(),
    finishReason: mapFinishReasonToGemini(response.finishReason),
    usageMetadata: encodeGeminiUsage(response.usage),
  });
}
