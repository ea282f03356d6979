/**
 * Anthropic `stop_reason` → unified FinishReason (per https://docs.anthropic.com/en/api/messages).
 */
import { finishReason, type FinishReason } from '../../canonical/finish-reason.ts';

const UNIFIED: Readonly<Record<string, FinishReason['unified']>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool-calls',
  refusal: 'content-filter',
  pause_turn: 'other',
};

/**
 * Maps an Anthropic stop reason, keeping the raw value: `end_turn`/`stop_sequence` → stop,
 * `max_tokens`/`model_context_window_exceeded` → length, `tool_use` → tool-calls,
 * `refusal` → content-filter, `pause_turn` and anything unknown → other. Null/absent → other
 * without raw (non-streamed answers always carry one; streams carry it in `message_delta`).
 */
export function mapAnthropicStopReason(raw: string | null | undefined): FinishReason {
  if (raw === null || raw === undefined) return finishReason('other');
  return finishReason(UNIFIED[raw] ?? 'other', raw);
}
