/**
 * Responses `status` / `incomplete_details.reason` → unified FinishReason (https://platform.openai.com/docs/api-reference/responses).
 */
import { finishReason, type FinishReason } from '../../canonical/finish-reason.ts';

/**
 * - `completed` → stop, or tool-calls when the output has function calls (raw `completed`);
 *   content-filter when the answer was a refusal;
 * - `incomplete` → length for `max_output_tokens`, content-filter for `content_filter`, else other
 *   (raw = the incomplete reason, or `incomplete`);
 * - anything else (`cancelled`, unknown) → other with the status as raw.
 * `failed` never reaches here: it is an error (classify-responses-failure.ts).
 */
export function mapResponsesFinishReason(
  status: string | undefined,
  incompleteReason: string | undefined,
  flags: { hasToolCalls: boolean; refused: boolean },
): FinishReason {
  if (status === 'completed') {
    if (flags.refused) return finishReason('content-filter', 'refusal');
    return finishReason(flags.hasToolCalls ? 'tool-calls' : 'stop', status);
  }
  if (status === 'incomplete') {
    const raw = incompleteReason ?? status;
    if (incompleteReason === 'max_output_tokens') return finishReason('length', raw);
    if (incompleteReason === 'content_filter') return finishReason('content-filter', raw);
    return finishReason('other', raw);
  }
  return finishReason('other', status);
}
