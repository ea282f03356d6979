/**
 * OpenAI `reasoning_effort` (Chat) / `reasoning.effort` (Responses) → canonical ReasoningConfig
 * (per openai-responses.md §2 and openai-chat-completions.md §2).
 */
import type { ReasoningConfig } from '../../canonical/request.ts';

const EFFORTS: ReadonlyArray<NonNullable<ReasoningConfig['effort']>> = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'];

/**
 * Maps an effort string. `none` also sets `enabled: false`. An unknown value yields undefined and
 * a warning pushed to `warnings` (new values appear in SDK releases; upstreams could not use them).
 */
export function mapOpenAIReasoningEffort(effort: string, param: string, warnings: string[]): ReasoningConfig | undefined {
  const known = EFFORTS.find((e) => e === effort);
  if (known === undefined) {
    warnings.push(`${param}: unknown reasoning effort '${effort}' was dropped`);
    return undefined;
  }
  return known === 'none' ? { enabled: false, effort: known } : { effort: known };
}
