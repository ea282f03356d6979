/**
 * Gemini `finishReason` → unified FinishReason (per https://ai.google.dev/api/generate-content).
 */
import { finishReason, type FinishReason } from '../../canonical/finish-reason.ts';

const CONTENT_FILTER: ReadonlySet<string> = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
  'IMAGE_RECITATION',
]);

/**
 * Maps a Gemini finish reason, keeping the raw value. `STOP` → stop, or tool-calls when the answer
 * contains a functionCall (Gemini has no tool-call reason); `MAX_TOKENS` → length; the safety and
 * recitation family (SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII, IMAGE_SAFETY, …) →
 * content-filter; MALFORMED_FUNCTION_CALL, OTHER, LANGUAGE and anything unknown → other.
 * Also used for `promptFeedback.blockReason` (any value → content-filter).
 */
export function mapGeminiFinishReason(raw: string | null | undefined, producedToolCall: boolean): FinishReason {
  if (raw === null || raw === undefined) return finishReason('other');
  if (raw === 'STOP') return finishReason(producedToolCall ? 'tool-calls' : 'stop', raw);
  if (raw === 'MAX_TOKENS') return finishReason('length', raw);
  if (CONTENT_FILTER.has(raw)) return finishReason('content-filter', raw);
  return finishReason('other', raw);
}

/** A prompt blocked before generation (`promptFeedback.blockReason`, no candidates) → content-filter. */
export function mapGeminiBlockReason(raw: string): FinishReason {
  return finishReason('content-filter', raw);
}
