/**
 * Converts the Anthropic request's tool and generation options (https://docs.anthropic.com/en/api/messages):
 * `tools`, `tool_choice`, `thinking`, `output_config` → canonical tools, tool choice, reasoning
 * and response format. What cannot be carried is reported in `warnings`.
 */
import type { ReasoningConfig, ResponseFormat, ToolChoice, ToolDefinition } from '../../canonical/request.ts';
import type {
  AnthropicOutputConfig,
  AnthropicThinking,
  AnthropicTool,
  AnthropicToolChoice,
} from './anthropic-request-schema.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

const EFFORTS: ReadonlySet<string> = new Set(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']);

/** Custom tools → ToolDefinitions; server tools (`web_search_…`, `bash_…`, …) are dropped with a warning. */
export function decodeAnthropicTools(
  tools: ReadonlyArray<AnthropicTool>,
  warnings: TranslationNotes,
): ToolDefinition[] {
  const definitions: ToolDefinition[] = [];
  tools.forEach((tool, i) => {
    const custom = tool.type === undefined || tool.type === null || tool.type === 'custom';
    if (!custom || !tool.input_schema) {
      warnings.refuse(`tools.${i}`, `server tool "${tool.type ?? tool.name}" runs on Anthropic's platform`);
      return;
    }
    const definition: { -readonly [K in keyof ToolDefinition]: ToolDefinition[K] } = {
      name: tool.name,
      parameters: tool.input_schema,
    };
    if (tool.description) definition.description = tool.description;
    if (typeof tool.strict === 'boolean') definition.strict = tool.strict;
    definitions.push(definition);
  });
  return definitions;
}

/** Tool choice and the parallel-calls switch (`disable_parallel_tool_use: true` → `parallelToolCalls: false`). */
export function decodeAnthropicToolChoice(choice: AnthropicToolChoice): {
  toolChoice: ToolChoice;
  parallelToolCalls?: boolean;
} {
  const parallel =
    choice.type !== 'none' && choice.disable_parallel_tool_use === true ? { parallelToolCalls: false } : {};
  switch (choice.type) {
    case 'auto':
      return { toolChoice: { type: 'auto' }, ...parallel };
    case 'any':
      return { toolChoice: { type: 'required' }, ...parallel };
    case 'tool':
      return { toolChoice: { type: 'tool', name: choice.name }, ...parallel };
    case 'none':
      return { toolChoice: { type: 'none' } };
  }
}

/**
 * `thinking` + `output_config.effort` → ReasoningConfig.
 * enabled → `{enabled, budgetTokens (tokens), includeThoughts}`; adaptive → `{enabled, includeThoughts}`;
 * disabled → `{enabled: false}`; `display: "omitted"` → `includeThoughts: false`.
 */
export function decodeAnthropicReasoning(
  thinking: AnthropicThinking | null | undefined,
  outputConfig: AnthropicOutputConfig | null | undefined,
  warnings: TranslationNotes,
): ReasoningConfig | undefined {
  let reasoning: { -readonly [K in keyof ReasoningConfig]: ReasoningConfig[K] } | undefined;
  if (thinking) {
    const includeThoughts = thinking.display !== 'omitted';
    if (thinking.type === 'enabled') {
      reasoning = { enabled: true, includeThoughts };
      if (thinking.budget_tokens) reasoning.budgetTokens = thinking.budget_tokens;
    } else if (thinking.type === 'adaptive') reasoning = { enabled: true, includeThoughts };
    else if (thinking.type === 'disabled') reasoning = { enabled: false };
    else warnings.drop(`thinking.type: "${thinking.type}" is not supported and was ignored`);
  }
  const effort = outputConfig?.effort;
  if (effort) {
    if (EFFORTS.has(effort)) reasoning = { ...reasoning, effort: effort as ReasoningConfig['effort'] };
    else warnings.drop(`output_config.effort: "${effort}" is not supported and was ignored`);
  }
  return reasoning;
}

/** `output_config.format` `{type: "json_schema", schema}` → a json-schema ResponseFormat. */
export function decodeAnthropicOutputFormat(
  outputConfig: AnthropicOutputConfig | null | undefined,
  warnings: TranslationNotes,
): ResponseFormat | undefined {
  const format = outputConfig?.format;
  if (!format) return undefined;
  if (format.type === 'json_schema' && format.schema)
    return { type: 'json-schema', name: 'output', schema: format.schema };
  warnings.refuse('output_config.format', `format type "${format.type}" has no equivalent on other APIs`);
  return undefined;
}
