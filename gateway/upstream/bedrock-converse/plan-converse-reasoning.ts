/**
 * Canonical reasoning controls → the fields of a Converse request that switch reasoning on, by
 * model family, through `additionalModelRequestFields`:
 * - Anthropic Claude: `thinking: {type: "enabled", budget_tokens}` with `budget_tokens` ≥ 1024 and
 *   below `inferenceConfig.maxTokens`
 *   (https://docs.aws.amazon.com/bedrock/latest/userguide/claude-messages-extended-thinking.html);
 * - Amazon Nova 2: `reasoningConfig: {type: "enabled", maxReasoningEffort: low|medium|high}`
 *   (https://docs.aws.amazon.com/nova/latest/nova2-userguide/extended-thinking.html);
 * - other families document no switch (DeepSeek-R1 always reasons, most others never): the
 *   control is dropped with a note.
 */
import type { ReasoningConfig } from '../../canonical/request.ts';
import type { TranslationNotes } from '../../canonical/translation-notes.ts';
import { isNova2, type ConverseModelFamily } from './converse-model-family.ts';

/** Smallest thinking budget Claude accepts, in tokens. */
const MIN_BUDGET = 1024;

/** Thinking budget (tokens) of an OpenAI-style effort, for Claude; `enabled: true` alone uses `medium`. */
const EFFORT_BUDGET: Readonly<Record<Exclude<NonNullable<ReasoningConfig['effort']>, 'none'>, number>> = {
  minimal: 1024,
  low: 2048,
  medium: 8192,
  high: 16384,
  xhigh: 24576,
  max: 32000,
};

/** The reasoning part of a Converse request: `additionalModelRequestFields` entries and the output cap (tokens). */
export interface ConverseReasoningPlan {
  readonly additionalFields: Readonly<Record<string, unknown>>;
  /** `inferenceConfig.maxTokens`; undefined leaves the model's own default. */
  readonly maxTokens: number | undefined;
  /** True when Claude thinking is on (sampling and tool-choice restrictions apply). */
  readonly claudeThinking: boolean;
}

function requestedBudget(reasoning: ReasoningConfig): number | undefined {
  if (reasoning.budgetTokens !== undefined) return reasoning.budgetTokens;
  if (reasoning.effort !== undefined && reasoning.effort !== 'none') return EFFORT_BUDGET[reasoning.effort];
  return reasoning.enabled === true ? EFFORT_BUDGET.medium : undefined;
}

function isOff(reasoning: ReasoningConfig): boolean {
  return reasoning.enabled === false || reasoning.effort === 'none';
}

/** Claude's thinking budget and output cap (same rules as Anthropic's own API). */
function planClaude(
  reasoning: ReasoningConfig,
  maxOutputTokens: number | undefined,
  defaultMaxTokens: number,
  notes: TranslationNotes,
): ConverseReasoningPlan {
  const requested = requestedBudget(reasoning);
  if (isOff(reasoning) || requested === undefined)
    return { additionalFields: {}, maxTokens: maxOutputTokens, claudeThinking: false };
  const budget = Math.max(MIN_BUDGET, Math.floor(requested));
  const thinking = (budgetTokens: number, maxTokens: number): ConverseReasoningPlan => ({
    additionalFields: { thinking: { type: 'enabled', budget_tokens: budgetTokens } },
    maxTokens,
    claudeThinking: true,
  });
  if (maxOutputTokens === undefined) return thinking(budget, budget + defaultMaxTokens);
  if (budget < maxOutputTokens) return thinking(budget, maxOutputTokens);
  if (maxOutputTokens <= MIN_BUDGET) {
    notes.drop(
      `reasoning: max_tokens ${maxOutputTokens} leaves no room for the minimum thinking budget of ${MIN_BUDGET}; thinking not enabled`,
    );
    return { additionalFields: {}, maxTokens: maxOutputTokens, claudeThinking: false };
  }
  const lowered = Math.max(MIN_BUDGET, Math.floor((maxOutputTokens * 3) / 4));
  notes.drop(
    `reasoning: thinking budget lowered from ${budget} to ${lowered} to stay under max_tokens ${maxOutputTokens}`,
  );
  return thinking(lowered, maxOutputTokens);
}

/** Nova 2's effort level for the canonical controls (a budget in tokens maps to the nearest level). */
function novaEffort(reasoning: ReasoningConfig): 'low' | 'medium' | 'high' {
  switch (reasoning.effort) {
    case 'minimal':
    case 'low':
      return 'low';
    case 'high':
    case 'xhigh':
    case 'max':
      return 'high';
    case 'medium':
      return 'medium';
    default:
      if (reasoning.budgetTokens === undefined) return 'medium';
      return reasoning.budgetTokens <= 2048 ? 'low' : reasoning.budgetTokens <= 8192 ? 'medium' : 'high';
  }
}

/**
 * Plans the reasoning fields for `modelId` of `family`. Without reasoning controls, or with them
 * off, nothing is added (every family reasons only when asked, or always). `defaultMaxTokens`
 * (tokens) is the output room given beside a thinking budget when the client set no cap.
 */
export function planConverseReasoning(
  reasoning: ReasoningConfig | undefined,
  modelId: string,
  family: ConverseModelFamily,
  maxOutputTokens: number | undefined,
  defaultMaxTokens: number,
  notes: TranslationNotes,
): ConverseReasoningPlan {
  const none: ConverseReasoningPlan = { additionalFields: {}, maxTokens: maxOutputTokens, claudeThinking: false };
  if (!reasoning) return none;
  if (family === 'anthropic') return planClaude(reasoning, maxOutputTokens, defaultMaxTokens, notes);
  if (isOff(reasoning) || requestedBudget(reasoning) === undefined) return none;
  if (family === 'nova' && isNova2(modelId))
    return {
      additionalFields: { reasoningConfig: { type: 'enabled', maxReasoningEffort: novaEffort(reasoning) } },
      maxTokens: maxOutputTokens,
      claudeThinking: false,
    };
  notes.drop(
    `reasoning: ${modelId} documents no reasoning switch on Amazon Bedrock Converse; the model reasons as it always does`,
  );
  return none;
}
