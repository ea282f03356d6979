/** Canonical Usage → Chat Completions `usage` (per https://platform.openai.com/docs/api-reference/chat, SDK `CompletionUsage`). */
import type { Usage } from '../../canonical/usage.ts';

/** The Chat usage object with both details objects. Counts are tokens. */
export interface ChatUsage {
  readonly prompt_tokens: number;
  readonly completion_tokens: number;
  readonly total_tokens: number;
  readonly prompt_tokens_details: { readonly cached_tokens: number; readonly audio_tokens: number };
  readonly completion_tokens_details: {
    readonly reasoning_tokens: number;
    readonly audio_tokens: number;
    readonly accepted_prediction_tokens: number;
    readonly rejected_prediction_tokens: number;
  };
}

/** `prompt_tokens` includes cached tokens (`cached_tokens` = cache reads); `completion_tokens` includes reasoning. */
export function mapChatUsage(usage: Usage): ChatUsage {
  return {
    prompt_tokens: usage.input.total,
    completion_tokens: usage.output.total,
    total_tokens: usage.input.total + usage.output.total,
    prompt_tokens_details: { cached_tokens: usage.input.cacheRead, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: usage.output.reasoning,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}
