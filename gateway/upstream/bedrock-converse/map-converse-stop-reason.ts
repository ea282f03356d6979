/**
 * Converse `stopReason` → unified FinishReason (StopReason values of
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_ResponseSyntax).
 */
import { finishReason, type FinishReason } from '../../canonical/finish-reason.ts';

const UNIFIED: Readonly<Record<string, FinishReason['unified']>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool-calls',
  content_filtered: 'content-filter',
  guardrail_intervened: 'content-filter',
  malformed_model_output: 'error',
  malformed_tool_use: 'error',
};

/**
 * Maps a Converse stop reason, keeping the raw value: `end_turn`/`stop_sequence` → stop,
 * `max_tokens`/`model_context_window_exceeded` → length, `tool_use` → tool-calls,
 * `content_filtered`/`guardrail_intervened` → content-filter, `malformed_model_output`/
 * `malformed_tool_use` → error, anything else → other. Absent → other without raw.
 */
export function mapConverseStopReason(raw: string | null | undefined): FinishReason {
  if (raw === null || raw === undefined) return finishReason('other');
  return finishReason(UNIFIED[raw] ?? 'other', raw);
}
