/**
 * Chat Completions `tools` / `tool_choice` and the legacy `functions` / `function_call`
 * (per https://platform.openai.com/docs/api-reference/chat) → canonical ToolDefinition[] and ToolChoice. Function tools
 * are nested (`{type:"function", function:{name, parameters…}}`); other tool types (`custom`) are
 * dropped with a warning.
 */
import type { ToolChoice, ToolDefinition } from '../../canonical/request.ts';
import { allowedToolsMode, decodeOpenAiToolChoice } from '../openai-common/decode-openai-tool-choice.ts';
import { omitUndefined } from '../openai-common/omit-undefined.ts';
import { isJsonObject, parseAt, RequestFieldError, type FieldPath } from '../openai-common/request-field-error.ts';
import { functionDefinitionSchema } from './chat-request-schema.ts';
import { TranslationNotes } from '../../canonical/translation-notes.ts';

/** A JSON Schema accepting an empty arguments object, for tools sent without `parameters`. */
const EMPTY_PARAMETERS: Record<string, unknown> = { type: 'object', properties: {} };

function toolDefinition(definition: unknown, path: FieldPath): ToolDefinition {
  const fn = parseAt(functionDefinitionSchema, definition, path);
  return omitUndefined<ToolDefinition>({
    name: fn.name,
    description: fn.description ?? undefined,
    parameters: fn.parameters ?? EMPTY_PARAMETERS,
    strict: fn.strict ?? undefined,
  });
}

/** Decodes `tools` (nested function tools) followed by legacy `functions`. Throws RequestFieldError on malformed tools. */
export function decodeChatTools(
  tools: ReadonlyArray<unknown>,
  functions: ReadonlyArray<unknown>,
  warnings: TranslationNotes,
): ToolDefinition[] {
  const decoded: ToolDefinition[] = [];
  tools.forEach((tool, index) => {
    const path = ['tools', index];
    if (!isJsonObject(tool) || typeof tool.type !== 'string')
      throw new RequestFieldError(path, 'expected an object with a string `type`');
    if (tool.type !== 'function')
      warnings.refuse(`tools.${index}`, `tool type '${tool.type}' has no equivalent on other APIs`);
    else decoded.push(toolDefinition(tool.function, [...path, 'function']));
  });
  functions.forEach((fn, index) => decoded.push(toolDefinition(fn, ['functions', index])));
  return decoded;
}

/**
 * Decodes `tool_choice`: `"none"|"auto"|"required"`, `{type:"function", function:{name}}`, or
 * `{type:"allowed_tools", allowed_tools:{mode}}` (kept as the mode, with a warning).
 */
export function decodeChatToolChoice(choice: unknown, warnings: TranslationNotes): ToolChoice | undefined {
  return decodeOpenAiToolChoice(choice, (object) => {
    if (object.type === 'function') {
      const fn = object.function;
      if (!isJsonObject(fn) || typeof fn.name !== 'string' || fn.name === '')
        throw new RequestFieldError(['tool_choice', 'function', 'name'], 'expected a non-empty string');
      return { type: 'tool', name: fn.name };
    }
    if (object.type === 'allowed_tools')
      return allowedToolsMode(isJsonObject(object.allowed_tools) ? object.allowed_tools.mode : undefined, warnings);
    warnings.refuse('tool_choice', `tool choice type '${object.type}' has no equivalent on other APIs`);
    return undefined;
  });
}

/** Decodes legacy `function_call`: `"none"|"auto"` or `{name}`. */
export function decodeLegacyFunctionCall(choice: unknown): ToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'none' || choice === 'auto') return { type: choice };
  if (isJsonObject(choice) && typeof choice.name === 'string' && choice.name !== '')
    return { type: 'tool', name: choice.name };
  throw new RequestFieldError(['function_call'], "expected 'none', 'auto' or an object with a non-empty `name`");
}
