/**
 * Echo of one function tool in the Response object's `tools`:
 * `{type:"function", description: string|null, name, parameters: object|null, strict: boolean}`.
 * `strict` is required on the response side (schema `FunctionTool`); when the client did not set
 * it, the value follows the API's documented default for `FunctionToolParam.strict`: "If omitted,
 * Responses attempts to use strict validation when the schema is compatible, and falls back to
 * non-strict validation otherwise" (https://platform.openai.com/docs/api-reference/responses/create#responses_create-tools).
 */
import { isJsonObject } from '../openai-common/request-field-error.ts';

/**
 * Whether a parameters schema meets the strict-mode rules of Structured Outputs: every object
 * lists all its properties in `required` and sets `additionalProperties: false`
 * (https://platform.openai.com/docs/guides/structured-outputs#supported-schemas).
 */
function isStrictCompatible(schema: unknown): boolean {
  if (Array.isArray(schema)) return schema.every(isStrictCompatible);
  if (!isJsonObject(schema)) return true;
  const properties = isJsonObject(schema.properties) ? schema.properties : undefined;
  if (schema.type === 'object' || properties !== undefined) {
    const required = Array.isArray(schema.required) ? schema.required : [];
    if (schema.additionalProperties !== false) return false;
    if (!Object.keys(properties ?? {}).every((key) => required.includes(key))) return false;
  }
  const children = [properties, schema.$defs, schema.definitions].flatMap((group) =>
    isJsonObject(group) ? Object.values(group) : [],
  );
  return [...children, schema.items, schema.anyOf].every(isStrictCompatible);
}

/** Renders the echoed function tool from the client's tool object (already validated by the decoder). */
export function echoFunctionTool(tool: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const parameters = isJsonObject(tool.parameters) ? tool.parameters : null;
  const strict = typeof tool.strict === 'boolean' ? tool.strict : parameters === null || isStrictCompatible(parameters);
  return {
    type: 'function',
    description: typeof tool.description === 'string' ? tool.description : null,
    name: tool.name,
    parameters,
    strict,
  };
}
