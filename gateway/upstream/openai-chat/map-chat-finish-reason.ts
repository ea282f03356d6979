/**
 * Chat Completions `finish_reason` → unified FinishReason (https://platform.openai.com/docs/api-reference/chat;
 * gateway/providers/PROVIDER-DOCS.md for Zhipu's `sensitive` / `network_error`).
 */
import { finishReason, type FinishReason } from '../../canonical/finish-reason.ts';

const UNIFIED: Readonly<Record<string, FinishReason['unified']>> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool-calls',
  function_call: 'tool-calls',
  content_filter: 'content-filter',
  sensitive: 'content-filter',
  network_error: 'error',
};

/**
 * Maps `raw` (kept as `raw`) to the unified reason: stop→stop, length→length,
 * tool_calls/function_call→tool-calls, content_filter/sensitive→content-filter,
 * network_error→error, anything else (or missing)→other. When the choice carried tool calls and the
 * reason is stop/other, the result is tool-calls (OpenAI says `stop` for forced tool choice, Gemini's
 * compat layer says `stop` on streamed tool calls) — clients loop on tool-calls.
 */
export function mapChatFinishReason(raw: string | null | undefined, hasToolCalls: boolean): FinishReason {
  const unified = (raw === null || raw === undefined ? undefined : UNIFIED[raw]) ?? 'other';
  if (hasToolCalls && (unified === 'stop' || unified === 'other')) return finishReason('tool-calls', raw);
  return finishReason(unified, raw);
}
