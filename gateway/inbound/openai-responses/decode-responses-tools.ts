/**
 * Responses `tools` and `tool_choice` (per openai-responses.md §2) → canonical ToolDefinition[]
 * and ToolChoice. Function tools are flat (`{type:"function", name, parameters…}`); built-in tool
 * types (web_search, file_search, mcp, custom…) cannot be served and are dropped with a warning.
 */
import type { ToolChoice, ToolDefinition } from '../../canonical/request.ts';
import { omitUndefined } from '../openai-common/omit-undefined.ts';
import { isJsonObject, parseAt, RequestFieldError } from '../openai-common/request-field-error.ts';
import { functionToolSchema } from './responses-request-schema.ts';

/** A JSON Schema accepting an empty arguments object, for tools sent without `parameters`. */
const EMPTY_PARAMETERS: Record<string, unknown> = { type: 'object', properties: {} };

/** Decodes `tools`; non-function tools are dropped with a warning. Throws RequestFieldError on malformed function tools. */
export function decodeResponsesTools(tools: ReadonlyArray<unknown>, warnings: string[]): ToolDefinition[] {
  const decoded: ToolDefinition[] = [];
  tools.forEach((tool, index) => {
    const path = ['tools', index];
    if (!isJsonObject(tool) || typeof tool.type !== 'string') throw new RequestFieldError(path, 'expected an object with a string `type`');
    if (tool.type !== 'function') {
      warnings.push(`tools.${index}: built-in tool type '${tool.type}' is not supported and was dropped`);
      return;
    }
    const fn = parseAt(functionToolSchema, tool, path);
    decoded.push(
      omitUndefined<ToolDefinition>({
        name: fn.name,
        description: fn.description ?? undefined,
        parameters: fn.parameters ?? EMPTY_PARAMETERS,
        strict: fn.strict ?? undefined,
      }),
    );
  });
  return decoded;
}

/**
 * Decodes `tool_choice`: `"none"|"auto"|"required"`, `{type:"function", name}`, or
 * `{type:"allowed_tools", mode}` (the allowed subset cannot be expressed: kept as the mode, with a
 * warning). Built-in tool choices are dropped with a warning. Throws RequestFieldError on bad shapes.
 */
export function decodeResponsesToolChoice(choice: unknown, warnings: string[]): ToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'none' || choice === 'auto' || choice === 'required') return { type: choice };
  if (typeof choice === 'string') throw new RequestFieldError(['tool_choice'], `expected 'none', 'auto', 'required' or an object, got '${choice}'`);
  if (!isJsonObject(choice) || typeof choice.type !== 'string') throw new RequestFieldError(['tool_choice'], 'expected a string or an object with a string `type`');
  if (choice.type === 'function') {
    if (typeof choice.name !== 'string' || choice.name === '') throw new RequestFieldError(['tool_choice', 'name'], 'expected a non-empty string');
    return { type: 'tool', name: choice.name };
  }
  if (choice.type === 'allowed_tools') {
    const mode = choice.mode === 'required' ? 'required' : 'auto';
    warnings.push(`tool_choice: allowed_tools restriction is not supported; used mode '${mode}' over all tools`);
    return { type: mode };
  }
  warnings.push(`tool_choice: tool choice type '${choice.type}' is not supported and was dropped`);
  return undefined;
}
