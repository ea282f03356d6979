/**
 * Canonical reasoning controls → the provider's Chat Completions fields
 * (https://platform.openai.com/docs/api-reference/chat `reasoning_effort` and vendor extensions; gateway/providers/PROVIDER-DOCS.md):
 * - openai and unknown providers: `reasoning_effort` when an effort is given;
 * - deepseek: `thinking:{type}` when enabled is set (effort `none` disables), effort →
 *   `reasoning_effort` low|high|max (minimal→low, medium/xhigh→high);
 * - zhipu, xiaomi: `thinking:{type}` when enabled is set (effort `none` disables);
 * - dashscope: `enable_thinking` (+ `thinking_budget` in tokens).
 */
import type { ReasoningConfig } from '../../canonical/request.ts';
import type { ProviderId } from '../../providers/provider-preset.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

type Effort = NonNullable<ReasoningConfig['effort']>;

const DEEPSEEK_EFFORT: Readonly<Record<Effort, string | undefined>> = {
  none: undefined,
  minimal: 'low',
  low: 'low',
  medium: 'high',
  high: 'high',
  xhigh: 'high',
  max: 'max',
};

/** `enabled` if given, else false for effort `none`, else undefined (provider default). */
function thinkingSwitch(reasoning: ReasoningConfig): boolean | undefined {
  if (reasoning.enabled !== undefined) return reasoning.enabled;
  return reasoning.effort === 'none' ? false : undefined;
}

function thinkingField(enabled: boolean | undefined): Record<string, unknown> {
  return enabled === undefined ? {} : { thinking: { type: enabled ? 'enabled' : 'disabled' } };
}

function encodeDeepSeek(reasoning: ReasoningConfig): Record<string, unknown> {
  const enabled = thinkingSwitch(reasoning);
  const effort = reasoning.effort === undefined || enabled === false ? undefined : DEEPSEEK_EFFORT[reasoning.effort];
  return { ...thinkingField(enabled), ...(effort === undefined ? {} : { reasoning_effort: effort }) };
}

function encodeDashScope(reasoning: ReasoningConfig): Record<string, unknown> {
  const enabled = thinkingSwitch(reasoning) ?? (reasoning.budgetTokens !== undefined ? true : undefined);
  const fields: Record<string, unknown> = enabled === undefined ? {} : { enable_thinking: enabled };
  if (enabled !== false && reasoning.budgetTokens !== undefined) fields.thinking_budget = reasoning.budgetTokens;
  return fields;
}

/**
 * Returns the top-level body fields for `reasoning` on `provider`, and warnings for settings the
 * provider's Chat endpoint cannot express (they are dropped). Never throws.
 */
export function encodeChatReasoning(
  reasoning: ReasoningConfig | undefined,
  provider: ProviderId,
): { fields: Record<string, unknown>; warnings: TranslationNotes } {
  if (!reasoning) return { fields: {}, warnings: new TranslationNotes() };
  const warnings = new TranslationNotes();
  let fields: Record<string, unknown>;
  switch (provider) {
    case 'deepseek':
      fields = encodeDeepSeek(reasoning);
      break;
    case 'zhipu':
    case 'xiaomi':
      fields = thinkingField(thinkingSwitch(reasoning));
      break;
    case 'dashscope':
      fields = encodeDashScope(reasoning);
      break;
    default:
      fields = reasoning.effort === undefined ? {} : { reasoning_effort: reasoning.effort };
      if (reasoning.enabled === false && reasoning.effort === undefined)
        warnings.drop(
          `reasoning.enabled: turning reasoning off is not expressible for provider ${provider} on Chat Completions; dropped`,
        );
  }
  if (reasoning.budgetTokens !== undefined && provider !== 'dashscope')
    warnings.drop(`reasoning.budgetTokens dropped (provider ${provider} takes no token budget on Chat Completions)`);
  return { fields, warnings };
}
