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
import { TranslationNotes } from '../../canonical/translation-notes.ts';

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
export function decodeGeminiTools(tools: ReadonlyArray<GeminiTool>, warnings: TranslationNotes): ToolDefinition[] {
  const definitions: ToolDefinition[] = [];
  tools.forEach((tool, i) => {
    for (const declaration of tool.functionDeclarations ?? []) {
      const parameters = declarationParameters(declaration);
      definitions.push(
        declaration.description
          ? { name: declaration.name, description: declaration.description, parameters }
          : { name: declaration.name, parameters },
      );
    }
    const builtIns = Object.keys(tool).filter((key) => key !== 'functionDeclarations');
    if (builtIns.length > 0)
      warnings.refuse(
        `tools.${i}`,
        `${builtIns.join(', ')} ${builtIns.length > 1 ? 'are' : 'is'} Gemini's built-in tooling`,
      );
  });
  return definitions;
}

/** `toolConfig.functionCallingConfig` → ToolChoice (undefined when unset or MODE_UNSPECIFIED). */
export function decodeGeminiToolChoice(
  config: GeminiToolConfig | null | undefined,
  warnings: TranslationNotes,
): ToolChoice | undefined {
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
      if (allowed.length > 1)
        warnings.refuse(
          'toolConfig.functionCallingConfig.allowedFunctionNames',
          'a restriction to several functions cannot be expressed on other APIs',
        );
      return { type: 'required' };
    }
    default:
      return undefined;
  }
}
