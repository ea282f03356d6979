/**
 * Maps a canonical FinishReason to a Gemini `finishReason` (https://ai.google.dev/api/generate-content).
 */
import type { FinishReason } from '../../canonical/finish-reason.ts';

/** Gemini finish reasons a raw upstream value may already be (the upstream spoke Gemini). */
const GEMINI_FINISH_REASONS: ReadonlySet<string> = new Set([
  'STOP',
  'MAX_TOKENS',
  'SAFETY',
  'RECITATION',
  'LANGUAGE',
  'OTHER',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'MALFORMED_FUNCTION_CALL',
  'IMAGE_SAFETY',
  'UNEXPECTED_TOOL_CALL',
  'TOO_MANY_TOOL_CALLS',
  'IMAGE_PROHIBITED_CONTENT',
  'NO_IMAGE',
  'IMAGE_RECITATION',
  'IMAGE_OTHER',
]);

/**
 * A raw value that is a Gemini finish reason is kept (e.g. `RECITATION`); otherwise
 * stop and tool-calls → `STOP` (Gemini has no tool-call reason), length → `MAX_TOKENS`,
 * content-filter → `SAFETY`, error/other → `OTHER`.
 */
export function mapFinishReasonToGemini(reason: FinishReason): string {
  if (reason.raw !== undefined && GEMINI_FINISH_REASONS.has(reason.raw)) return reason.raw;
  switch (reason.unified) {
    case 'stop':
    case 'tool-calls':
      return 'STOP';
    case 'length':
      return 'MAX_TOKENS';
    case 'content-filter':
      return 'SAFETY';
    case 'error':
    case 'other':
      return 'OTHER';
  }
}
