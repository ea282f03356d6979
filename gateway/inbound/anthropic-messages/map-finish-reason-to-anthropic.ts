/**
 * Maps a canonical FinishReason to an Anthropic `stop_reason` (https://docs.anthropic.com/en/api/messages).
 */
import type { FinishReason } from '../../canonical/finish-reason.ts';

/** The `stop_reason` values Anthropic defines. */
export type AnthropicStopReason =
  'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'pause_turn' | 'refusal' | 'model_context_window_exceeded';

const ANTHROPIC_STOP_REASONS: ReadonlySet<string> = new Set<AnthropicStopReason>([
  'end_turn',
  'max_tokens',
  'stop_sequence',
  'tool_use',
  'pause_turn',
  'refusal',
  'model_context_window_exceeded',
]);

/**
 * A raw value that already is an Anthropic stop reason (the upstream spoke Anthropic) is kept,
 * except `stop_sequence` without a matched sequence. Otherwise: stop → `stop_sequence` when a
 * stop sequence matched, else `end_turn`; length → `max_tokens`; tool-calls → `tool_use`;
 * content-filter → `refusal`; error/other → `end_turn` (Anthropic has no error stop reason; a
 * failed stream is reported by an `error` event instead).
 */
export function mapFinishReasonToAnthropic(
  reason: FinishReason,
  stopSequence: string | undefined,
): AnthropicStopReason {
  if (
    reason.raw !== undefined &&
    ANTHROPIC_STOP_REASONS.has(reason.raw) &&
    (reason.raw !== 'stop_sequence' || stopSequence !== undefined)
  ) {
    return reason.raw as AnthropicStopReason;
  }
  switch (reason.unified) {
    case 'stop':
      return stopSequence !== undefined ? 'stop_sequence' : 'end_turn';
    case 'length':
      return 'max_tokens';
    case 'tool-calls':
      return 'tool_use';
    case 'content-filter':
      return 'refusal';
    case 'error':
    case 'other':
      return 'end_turn';
  }
}
