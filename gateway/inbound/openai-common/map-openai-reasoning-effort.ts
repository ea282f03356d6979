/**
 * OpenAI `reasoning_effort` (Chat) / `reasoning.effort` (Responses) → canonical ReasoningConfig
 * (per https://platform.openai.com/docs/api-reference/responses and https://platform.openai.com/docs/api-reference/chat).
 */
import type { ReasoningConfig } from '../../canonical/request.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

const EFFORTS: ReadonlyArray<NonNullable<ReasoningConfig['effort']>> = [
  'none',
  'minimal',
  'low',
  'medium',
  'high',
  'xhigh',
  'max',
];

/**
 * Maps an effort string. `none` also sets `enabled: false`. An unknown value yields undefined and
 * a warning pushed to `warnings` (new values appear in SDK releases; upstreams could not use them).
 */
export function mapOpenAIReasoningEffort(
  effort: string,
  param: string,
  warnings: TranslationNotes,
): ReasoningConfig | undefined {
  const known = EFFORTS.find((e) => e === effort);
  if (known === undefined) {
    warnings.drop(`${param}: unknown reasoning effort '${effort}' was dropped`);
    return undefined;
  }
  return known === 'none' ? { enabled: false, effort: known } : { effort: known };
}
