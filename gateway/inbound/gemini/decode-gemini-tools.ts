/**
 * Converts Gemini `tools` and `toolConfig` (https://ai.google.dev/api/caching#Tool): function
 * declarations become canonical tools whose parameters are plain JSON Schema (`parametersJsonSchema`
 * or the OpenAPI-subset `parameters`, both through convertGeminiSchemaObject); built-in tools
 * (googleSearch, codeExecution, urlContext, …) are dropped with a warning.
 * `functionCallingConfig.mode` AUTO → auto, ANY → required (or the one allowed function),
 * NONE → none, VALIDATED → auto.
 */
import type { ToolChoice, ToolDefinition } from '../../canonical/request.ts';
import { convertGeminiSchemaObject } from './convert-gemini-schema.ts';
import type { GeminiTool, GeminiToolConfig } from './gemini-request-schema.ts';

type Declaration = NonNullable<GeminiTool['functionDeclarations']>[number];

/**
 * Parameters of a declaration as JSON Schema (`parametersJsonSchema` preferred, then `parameters`;
 * clients send Gemini's upper-case `Type` names in both); none → a function without arguments.
 */
function declarationParameters(declaration: Declaration): Record<string, unknown> {
  const source = declaration.parametersJsonSchema ?? declaration.parameters;
  if (source) return convertGeminiSchemaObject(source);
  return { type: 'object', properties: {} };
}

/** Flattens every `functionDeclarations` list into ToolDefinitions; reports other tool kinds. */
export function decodeGeminiTools(tools: ReadonlyArray<GeminiTool>, warnings: string[]): ToolDefinition[] {
  const definitions: ToolDefinition[] = [];
  tools.forEach((tool, i) => {
    for (const declaration of tool.functionDeclarations ?? []) {
      const parameters = declarationParameters(declaration);
      definitions.push(declaration.description ? { name: declaration.name, description: declaration.description, parameters } : { name: declaration.name, parameters });
    }
    const builtIns = Object.keys(tool).filter((key) => key !== 'functionDeclarations');
    if (builtIns.length > 0) warnings.push(`tools.${i}: ${builtIns.join(', ')} ${builtIns.length > 1 ? 'are' : 'is'} not supported by the gateway and was dropped`);
  });
  return definitions;
}

/** `toolConfig.functionCallingConfig` → ToolChoice (undefined when unset or MODE_UNSPECIFIED). */
export function decodeGeminiToolChoice(config: GeminiToolConfig | null | undefined, warnings: string[]): ToolChoice | undefined {
  const calling = config?.functionCallingConfig;
  const allowed = calling?.allowedFunctionNames ?? [];
  switch (calling?.mode) {
    case 'AUTO':
    case 'VALIDATED':
      return { type: 'auto' };
    case 'NONE':
      return { type: 'none' };
    case 'ANY': {
      const only = allowed.length === 1 ? allowed[0] : undefined;
      if (only !== undefined) return { type: 'tool', name: only };
      if (allowed.length > 1) warnings.push('toolConfig.functionCallingConfig.allowedFunctionNames: a restriction to several functions is not supported; any declared function may be called');
      return { type: 'required' };
    }
    default:
      return undefined;
  }
}
