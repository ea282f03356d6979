/**
 * The one place that shapes a Gemini `GenerateContentResponse` (https://ai.google.dev/api/generate-content), for whole answers and stream chunks alike: a single candidate with `role: "model"` and
 * `index: 0`, never an empty `parts` array (`[{text: ''}]` instead), then `usageMetadata`,
 * `modelVersion`, `responseId`.
 */
import type { GeminiOutputPart } from './encode-gemini-part.ts';
import type { GeminiUsageMetadata } from './encode-gemini-usage.ts';

/** A GenerateContentResponse as the gateway emits it. */
export interface GeminiResponseBody {
  candidates: Array<{ content: { parts: GeminiOutputPart[]; role: 'model' }; finishReason?: string; index: 0 }>;
  usageMetadata?: GeminiUsageMetadata;
  modelVersion: string;
  responseId: string;
}

/** What one response/chunk carries besides its parts. */
export interface GeminiResponseFields {
  readonly modelVersion: string;
  readonly responseId: string;
  readonly finishReason?: string;
  readonly usageMetadata?: GeminiUsageMetadata;
}

/** Builds one response body from parts (an empty list becomes `[{text: ''}]`). */
export function buildGeminiResponse(parts: GeminiOutputPart[], fields: GeminiResponseFields): GeminiResponseBody {
  const candidate: GeminiResponseBody['candidates'][number] = {
    content: { parts: parts.length > 0 ? parts : [{ text: '' }], role: 'model' },
    ...(fields.finishReason === undefined ? {} : { finishReason: fields.finishReason }),
    index: 0,
  };
  return {
    candidates: [candidate],
    ...(fields.usageMetadata === undefined ? {} : { usageMetadata: fields.usageMetadata }),
    modelVersion: fields.modelVersion,
    responseId: fields.responseId,
  };
}
