/** Canonical finish reason → Chat Completions `finish_reason` (per https://platform.openai.com/docs/api-reference/chat). */
import type { FinishReason } from '../../canonical/finish-reason.ts';

/** The `finish_reason` values the gateway emits. */
export type ChatFinishReason = 'stop' | 'length' | 'tool_calls' | 'content_filter';

/**
 * `tool_calls` whenever the answer carries tool calls (agents loop on it, even when the upstream
 * said `stop`); else length → `length`, content-filter → `content_filter`, anything else
 * (stop, other, error) → `stop`.
 */
export function mapChatFinishReason(finish: FinishReason, hasToolCalls: boolean): ChatFinishReason {
  if (hasToolCalls) return 'tool_calls';
  switch (finish.unified) {
    case 'length':
      return 'length';
    case 'content-filter':
      return 'content_filter';
    case 'tool-calls':
    case 'stop':
    case 'other':
    case 'error':
      return 'stop';
  }
}
