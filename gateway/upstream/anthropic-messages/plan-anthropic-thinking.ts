/**
 * Canonical reasoning controls + output cap → Anthropic `thinking` and `max_tokens`
 * (per https://docs.anthropic.com/en/api/messages: `budget_tokens` ≥ 1024 and < `max_tokens`).
 */
import type { ReasoningConfig } from '../../canonical/request.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

/** Anthropic `thinking` request field. */
export type AnthropicThinking =
  { readonly type: 'enabled'; readonly budget_tokens: number } | { readonly type: 'disabled' };

/** Smallest budget Anthropic accepts, in tokens. */
const MIN_BUDGET = 1024;

/**
 * Thinking budget (tokens) used when the client gave an OpenAI-style `effort` but no budget.
 * `enabled: true` with neither uses the `medium` budget.
 */
export const ANTHROPIC_EFFORT_BUDGET: Readonly<
  Record<Exclude<NonNullable<ReasoningConfig['effort']>, 'none'>, number>
> = {
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
  warnings: TranslationNotes,
): { thinking?: AnthropicThinking; maxTokens: number } {
  const fallback = defaultMaxTokens ?? 4096;
  const maxTokens = maxOutputTokens ?? fallback;
  if (!reasoning) return { maxTokens };
  if (reasoning.enabled === false || reasoning.effort === 'none') return { thinking: { type: 'disabled' }, maxTokens };
  const requested = requestedBudget(reasoning);
  if (requested === undefined) return { maxTokens };
  const budget = Math.max(MIN_BUDGET, Math.floor(requested));
  if (budget < maxTokens) return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens };
  if (maxOutputTokens === undefined)
    return { thinking: { type: 'enabled', budget_tokens: budget }, maxTokens: budget + fallback };
  if (maxTokens <= MIN_BUDGET) {
    warnings.drop(
      `reasoning: max_tokens ${maxTokens} leaves no room for the minimum thinking budget of ${MIN_BUDGET}; thinking not enabled`,
    );
    return { maxTokens };
  }
  const lowered = Math.max(MIN_BUDGET, Math.floor((maxTokens * 3) / 4));
  warnings.drop(
    `reasoning: thinking budget lowered from ${budget} to ${lowered} to stay under max_tokens ${maxTokens}`,
  );
  return { thinking: { type: 'enabled', budget_tokens: lowered }, maxTokens };
}

/**
 * True when the last assistant message calls a tool but does not start with a thinking block.
 * While thinking is on, Anthropic requires the assistant turn a tool loop continues to start with
 * its thinking block (https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking,
 * "Preserving thinking blocks"); clients of other formats often keep no reasoning in history.
 */
function toolTurnLacksThinking(body: Record<string, unknown>): boolean {
  const messages = body.messages as ReadonlyArray<{ role: string; content: unknown }> | undefined;
  let lastAssistant: { role: string; content: unknown } | undefined;
  for (const message of messages ?? []) if (message.role === 'assistant') lastAssistant = message;
  if (!lastAssistant || !Array.isArray(lastAssistant.content)) return false;
  const blocks = lastAssistant.content as ReadonlyArray<{ type?: string }>;
  if (!blocks.some((block) => block.type === 'tool_use')) return false;
  const first = blocks[0]?.type;
  return first !== 'thinking' && first !== 'redacted_thinking';
}

/**
 * Applies Anthropic's extended-thinking rules to a built body (mutated in place) when `thinking`
 * is on: a continued tool-use turn without its thinking block cannot think (thinking is left
 * off); when `thinking` is enabled: forced tool use (`tool_choice` any/tool) cannot think, so thinking is left off;
 * otherwise `temperature` other than 1, any `top_k`, and `top_p` below 0.95 are removed (the API
 * answers 400 to them; compat upstreams ignore them in thinking mode anyway). Each change is
 * reported as a warning.
 */
export function reconcileAnthropicThinking(body: Record<string, unknown>, warnings: TranslationNotes): void {
  const thinking = body.thinking as AnthropicThinking | undefined;
  if (thinking !== undefined && thinking.type !== 'disabled' && toolTurnLacksThinking(body)) {
    delete body.thinking;
    warnings.drop(
      'reasoning: the tool-use turn being continued carries no thinking block (the client did not keep it), which Anthropic Messages requires while thinking is on; thinking not enabled for this request',
    );
    return;
  }
  if (thinking?.type !== 'enabled') return;
  const choice = (body.tool_choice as { type?: string } | undefined)?.type;
  if (choice === 'any' || choice === 'tool') {
    delete body.thinking;
    warnings.drop(
      'reasoning: thinking cannot be combined with a forced tool choice on Anthropic Messages; thinking not enabled',
    );
    return;
  }
  if (body.temperature !== undefined && body.temperature !== 1) {
    delete body.temperature;
    warnings.drop('temperature: must be 1 while thinking is enabled; dropped');
  }
  if (body.top_k !== undefined) {
    delete body.top_k;
    warnings.drop('top_k: not allowed while thinking is enabled; dropped');
  }
  if (typeof body.top_p === 'number' && body.top_p < 0.95) {
    delete body.top_p;
    warnings.drop('top_p: must be at least 0.95 while thinking is enabled; dropped');
  }
}
