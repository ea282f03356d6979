/**
 * Canonical generation controls → Gemini `generationConfig`, `tools` and `toolConfig`
 * (per https://ai.google.dev/api/generate-content).
 */
import type { CanonicalRequest, ReasoningConfig } from '../../canonical/request.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

/** Gemini accepts at most this many stop sequences. */
const MAX_STOP_SEQUENCES = 5;

/**
 * Thinking budget (tokens) for an OpenAI-style `effort` given without a budget. Capped at 24576,
 * the largest budget Gemini 2.5 Flash accepts.
 */
export const GEMINI_EFFORT_BUDGET: Readonly<Record<Exclude<NonNullable<ReasoningConfig['effort']>, 'none'>, number>> = {
  minimal: 512,
  low: 1024,
  medium: 8192,
  high: 24576,
  xhigh: 24576,
  max: 24576,
};

/**
 * `thinkingConfig`: `enabled: false` or effort `none` → `thinkingBudget: 0`; `budgetTokens` as
 * given; effort → GEMINI_EFFORT_BUDGET; `enabled: true` alone → `-1` (dynamic). `includeThoughts`
 * copied when set. Undefined when nothing applies.
 */
export function encodeGeminiThinkingConfig(
  reasoning: ReasoningConfig | undefined,
): Record<string, unknown> | undefined {
  if (!reasoning) return undefined;
  const config: Record<string, unknown> = {};
  if (reasoning.enabled === false || reasoning.effort === 'none') config.thinkingBudget = 0;
  else if (reasoning.budgetTokens !== undefined)
    config.thinkingBudget = Math.max(0, Math.floor(reasoning.budgetTokens));
  else if (reasoning.effort !== undefined) config.thinkingBudget = GEMINI_EFFORT_BUDGET[reasoning.effort];
  else if (reasoning.enabled === true) config.thinkingBudget = -1;
  if (reasoning.includeThoughts !== undefined) config.includeThoughts = reasoning.includeThoughts;
  return Object.keys(config).length === 0 ? undefined : config;
}

/**
 * `generationConfig`: maxOutputTokens, temperature, topP, topK, stopSequences (first 5, the rest
 * dropped with a warning), responseMimeType `application/json` (+ `responseJsonSchema` for a JSON
 * schema format), thinkingConfig. Undefined when empty.
 */
export function encodeGeminiGenerationConfig(
  request: CanonicalRequest,
  warnings: TranslationNotes,
): Record<string, unknown> | undefined {
  const config: Record<string, unknown> = {};
  if (request.maxOutputTokens !== undefined) config.maxOutputTokens = request.maxOutputTokens;
  if (request.temperature !== undefined) config.temperature = request.temperature;
  if (request.topP !== undefined) config.topP = request.topP;
  if (request.topK !== undefined) config.topK = request.topK;
  const stops = request.stopSequences ?? [];
  if (stops.length > MAX_STOP_SEQUENCES)
    warnings.refuse(
      'stop',
      `Gemini accepts at most ${MAX_STOP_SEQUENCES} stop sequences, this request has ${stops.length}`,
    );
  if (stops.length > 0) config.stopSequences = stops.slice(0, MAX_STOP_SEQUENCES);
  const format = request.responseFormat;
  if (format?.type === 'json-object') config.responseMimeType = 'application/json';
  if (format?.type === 'json-schema') {
    config.responseMimeType = 'application/json';
    config.responseJsonSchema = format.schema;
  }
  const thinkingConfig = encodeGeminiThinkingConfig(request.reasoning);
  if (thinkingConfig) config.thinkingConfig = thinkingConfig;
  return Object.keys(config).length === 0 ? undefined : config;
}

function functionCallingConfig(choice: NonNullable<CanonicalRequest['toolChoice']>): Record<string, unknown> {
  switch (choice.type) {
    case 'auto':
      return { mode: 'AUTO' };
    case 'none':
      return { mode: 'NONE' };
    case 'required':
      return { mode: 'ANY' };
    case 'tool':
      return { mode: 'ANY', allowedFunctionNames: [choice.name] };
  }
}

/**
 * `tools: [{functionDeclarations: [{name, description, parametersJsonSchema}]}]` (an empty schema
 * is left out: a function without parameters) and `toolConfig.functionCallingConfig` (auto → AUTO,
 * none → NONE, required → ANY, tool → ANY + allowedFunctionNames). `parallelToolCalls: false` has
 * no Gemini equivalent and is dropped with a warning. Nothing is sent without tools.
 */
export function encodeGeminiTools(
  request: CanonicalRequest,
  warnings: TranslationNotes,
): { tools?: unknown[]; toolConfig?: Record<string, unknown> } {
  if (!request.tools || request.tools.length === 0) return {};
  const functionDeclarations = request.tools.map((tool) => ({
    name: tool.name,
    ...(tool.description === undefined ? {} : { description: tool.description }),
    ...(Object.keys(tool.parameters).length === 0 ? {} : { parametersJsonSchema: tool.parameters }),
  }));
  if (request.parallelToolCalls === false)
    warnings.drop('parallel_tool_calls: Gemini cannot forbid parallel function calls; dropped');
  const tools = [{ functionDeclarations }];
  return request.toolChoice
    ? { tools, toolConfig: { functionCallingConfig: functionCallingConfig(request.toolChoice) } }
    : { tools };
}
