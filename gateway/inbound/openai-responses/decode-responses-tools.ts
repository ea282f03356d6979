/**
 * Responses tools (https://platform.openai.com/docs/api-reference/responses/create#responses_create-tools)
 * and `tool_choice` → canonical
 * ToolDefinition[] and ToolChoice. The offered tools (top-level `tools` and `additional_tools`
 * input items, namespaces flattened) and their canonical names come from responses-tool-names.ts.
 * A function tool is carried as is; a custom tool
 * (https://platform.openai.com/docs/guides/function-calling#custom-tools) becomes a function
 * with one required string parameter `input` whose value is the tool's free-text input.
 */
import type { ToolChoice, ToolDefinition } from '../../canonical/request.ts';
import { allowedToolsMode, decodeOpenAiToolChoice } from '../openai-common/decode-openai-tool-choice.ts';
import { omitUndefined } from '../openai-common/omit-undefined.ts';
import { isJsonObject, RequestFieldError } from '../openai-common/request-field-error.ts';
import { listResponsesTools, qualifiedToolName, type ResponsesToolEntry } from './responses-tool-names.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

/** A JSON Schema accepting an empty arguments object, for tools sent without `parameters`. */
const EMPTY_PARAMETERS: Record<string, unknown> = { type: 'object', properties: {} };

/** Parameters of a custom tool: `{input: string}` (required). */
const CUSTOM_PARAMETERS: Record<string, unknown> = {
  type: 'object',
  properties: { input: { type: 'string', description: 'The raw input of the tool, as free text.' } },
  required: ['input'],
  additionalProperties: false,
};

/** The description of a custom tool: its own, plus the grammar (syntax name and full definition) when it has one. */
function customDescription(tool: Readonly<Record<string, unknown>>): string | undefined {
  const description = typeof tool.description === 'string' ? tool.description : undefined;
  const format = isJsonObject(tool.format) ? tool.format : undefined;
  if (format?.type !== 'grammar') return description;
  const note = `The \`input\` argument must be text that follows this ${String(format.syntax)} grammar:\n${String(format.definition)}`;
  return description ? `${description}\n\n${note}` : note;
}

function toDefinition(entry: ResponsesToolEntry): ToolDefinition {
  const { tool } = entry;
  if (entry.kind === 'custom')
    return omitUndefined<ToolDefinition>({
      name: entry.canonicalName,
      description: customDescription(tool),
      parameters: CUSTOM_PARAMETERS,
    });
  return omitUndefined<ToolDefinition>({
    name: entry.canonicalName,
    description: typeof tool.description === 'string' ? tool.description : undefined,
    parameters: isJsonObject(tool.parameters) ? tool.parameters : EMPTY_PARAMETERS,
    strict: typeof tool.strict === 'boolean' ? tool.strict : undefined,
  });
}

/**
 * Built-in tools whose offer is safe to leave out on translated paths: web search only adds live
 * sources to an answer the model can give without them, and `tool_search` only lets the model
 * look up further tools the client defers (the tools offered directly stay available). Agents
 * such as Codex offer both with every request (README, "What the gateway drops").
 */
const OPTIONAL_BUILT_IN_TOOLS: ReadonlySet<string> = new Set([
  'web_search',
  'web_search_preview',
  'web_search_preview_2025_03_11',
  'web_search_2025_08_26',
  'tool_search',
]);

/**
 * Decodes every offered tool, in order. Built-in kinds run on OpenAI's platform (they pass
 * through unchanged to an OpenAI Responses channel): web search and tool search are left out
 * with a note elsewhere, every other one (file_search, mcp, code_interpreter, …) is a part the
 * translation cannot carry. Throws RequestFieldError naming the path of a malformed tool.
 */
export function decodeResponsesTools(
  body: Readonly<Record<string, unknown>>,
  warnings: TranslationNotes,
): ToolDefinition[] {
  return listResponsesTools(body, (path, type) => {
    if (OPTIONAL_BUILT_IN_TOOLS.has(type))
      warnings.drop(`${path.join('.')}: built-in tool '${type}' is only offered, not required; left out`);
    else
      warnings.refuse(
        path.join('.'),
        `built-in tool type '${type}' runs inside OpenAI's platform and has no equivalent elsewhere`,
      );
  }).map(toDefinition);
}

/**
 * Decodes `tool_choice`: `"none"|"auto"|"required"`, `{type:"function"|"custom", name, namespace?}`, or
 * `{type:"allowed_tools", mode}` (the allowed subset cannot be expressed: kept as the mode, with a
 * warning). Built-in tool choices are dropped with a warning. Throws RequestFieldError on bad shapes.
 */
export function decodeResponsesToolChoice(choice: unknown, warnings: TranslationNotes): ToolChoice | undefined {
  return decodeOpenAiToolChoice(choice, (object) => {
    if (object.type === 'function' || object.type === 'custom') {
      if (typeof object.name !== 'string' || object.name === '')
        throw new RequestFieldError(['tool_choice', 'name'], 'expected a non-empty string');
      return {
        type: 'tool',
        name: qualifiedToolName(typeof object.namespace === 'string' ? object.namespace : undefined, object.name),
      };
    }
    if (object.type === 'allowed_tools') return allowedToolsMode(object.mode, warnings);
    warnings.refuse('tool_choice', `tool choice type '${object.type}' names a built-in tool`);
    return undefined;
  });
}
