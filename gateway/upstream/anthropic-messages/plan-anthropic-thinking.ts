/**
 * Canonical reasoning controls + output cap → Anthropic `thinking` and `max_tokens`
 * (per anthropic-messages.md §2: `budget_tokens` ≥ 1024 and < `max_tokens`).
 */
import type { ReasoningConfig } from '../../canonical/request.ts';

/** Anthropic `thinking` request field. */
export type AnthropicThinking = { readonly type: 'enabled'; readonly budget_tokens: number } | { readonly type: 'disabled' };

/** Smallest budget Anthropic accepts, in tokens. */
const MIN_BUDGET = 1024;

/**
 * Thinking budget (tokens) used when the client gave an OpenAI-style `effort` but no budget.
 * `enabled: true` with neither uses the `medium` budget.
 */
export const ANTHROPIC_EFFORT_BUDGET: Readonly<Record<Exclude<NonNullable<ReasoningConfig['effort']>, 'none'>, number>> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 24576,
  max: 32000,
};

function requestedBudget(reasoning: ReasoningConfig): number | undefined {
  if (reasoning.budgetTokens !== undefined) return reasoning.budgetTokens;
  if (reasoning.effort !== undefined && reasoning.effort !== 'none') return ANTHROPIC_EFFORT_BUDGET[reasoning.effort];
  return reasoning.enabled === true ? ANTHROPIC_EFFORT_BUDGET.medium : undefined;
}

/**
 * Decides `thinking` and `max_tokens` (tokens).
 * - `max_tokens` = `maxOutputTokens` ?? `defaultMaxTokens` ?? 4096.
 * - `enabled: false` or effort `none` → `{type:"disabled"}`; no budget, effort or `enabled` → no
 *   `thinking` field.
 * - Otherwise `{type:"enabled", budget_tokens: max(1024, budget)}`. When that does not fit under
 *   `max_tokens`: if the cap was defaulted, `max_tokens` grows to budget + default; if the client
 *   set the cap, the budget shrinks to max(1024, ¾ of the cap) (the client's cap covers thinking
 *   too), and if even 1024 does not fit, thinking is left off with a warning.
 */
export function planAnthropicThinking(
  reasoning: ReasoningConfig | undefined,
  maxOutputTokens: number | undefined,
  defaultMaxTokens: number | undefined,
  warnings: string[],
): { thinking?: AnthropicThinking; maxTokens: number } {
  const fallback = defaultMaxTokens ?? 4096;
  const maxTokens = maxOutputTokens ?? fallback;
  if (!reasoning) return { maxTokens };
  if (reasoning.enabled === false || reasoning.effort === 'none') return { thinking: { type: 'disabled' }, maxTokens };
  const requested = requestedBudget(reasoning);
  if (requested === undefined) return { maxTokens };
  const budget = Math.max(MIN_BUDGET, Math.floor(requested));
  if (budget < maxTokens) return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens };
  if (maxOutputTokens === undefined) return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens: budget + fallback };
  if (maxTokens <= MIN_BUDGET) {
    warnings.push(`reasoning: max_tokens ${maxTokens} leaves no room for the minimum thinking budget of ${MIN_BUDGET}; thinking not enabled`);
    return { maxTokens };
  }
  const lowered = Math.max(MIN_BUDGET, Math.floor((maxTokens * 3) / 4));
  warnings.push(`reasoning: thinking budget lowered from ${budget} to ${lowered} to stay under max_tokens ${maxTokens}`);
  return { thinking: { type: 'enabled', budget_tokens: lowered }, maxTokens };
}
