/**
 * A non-streamed GenerateContentResponse → CanonicalResponse (per https://ai.google.dev/api/generate-content).
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import { generateId } from '../../canonical/ids.ts';
import type { CanonicalResponse } from '../../canonical/response.ts';
import { accumulateStream } from '../../canonical/stream-accumulator.ts';
import type { StreamEvent } from '../../canonical/stream-event.ts';
import { parseUpstreamBody } from '../shared/parse-upstream-body.ts';
import type { UpstreamDecodeContext } from '../upstream-adapter.ts';
import { classifyGeminiErrorObject } from './classify-gemini-error.ts';
import { GeminiPartFolder } from './fold-gemini-parts.ts';
import { geminiResponseSchema } from './gemini-wire-schemas.ts';
import { mapGeminiBlockReason, mapGeminiFinishReason } from './map-gemini-finish-reason.ts';
import { mapGeminiUsage } from './map-gemini-usage.ts';

/**
 * Decodes a 2xx Gemini body. Candidate 0's parts become blocks exactly as the stream decoder cuts
 * them (see GeminiPartFolder): thought parts → reasoning (thoughtSignature → signature), text parts
 * → one text block per run, functionCall → tool-call (id = functionCall.id or a minted `call_…`,
 * arguments = JSON of args, signature = thoughtSignature). No candidates with
 * `promptFeedback.blockReason` → empty content, finish content-filter. Id = responseId (minted when
 * absent), model = modelVersion ?? upstream model.
 * Throws the classified error for an `{"error":…}` body, GatewayError('upstream-malformed') for
 * anything that is not a GenerateContentResponse.
 */
export function decodeGeminiResponse(body: unknown, context: UpstreamDecodeContext): CanonicalResponse {
  const response = parseUpstreamBody(geminiResponseSchema, body, 'Gemini response');
  if (response.error) throw classifyGeminiErrorObject(response.error);
  const candidate = response.candidates?.[0];
  const blockReason = response.promptFeedback?.blockReason;
  if (!candidate && !blockReason)
    throw new GatewayError('upstream-malformed', 'Upstream Gemini response has neither candidates nor promptFeedback');
  const folder = new GeminiPartFolder();
  const events: StreamEvent[] = [
    {
      type: 'message-start',
      messageId: response.responseId ?? generateId('resp_'),
      model: response.modelVersion ?? context.upstreamModel,
    },
  ];
  folder.fold(candidate?.content?.parts ?? [], events);
  folder.close(events);
  const finishReason = candidate
    ? mapGeminiFinishReason(candidate.finishReason, folder.producedToolCall)
    : mapGeminiBlockReason(blockReason ?? '');
  events.push({ type: 'message-end', finishReason, usage: mapGeminiUsage(response.usageMetadata) });
  return accumulateStream(events);
}
