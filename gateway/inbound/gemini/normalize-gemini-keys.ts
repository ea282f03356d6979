/**
 * Gemini accepts both lowerCamelCase and snake_case field names (proto3 JSON mapping,
 * https://protobuf.dev/programming-guides/json/). This rewrites snake_case keys to camelCase,
 * recursively, before validation — except where keys are user data:
 * - `args` (functionCall) and `response` (functionResponse / declaration output): opaque objects;
 * - `parametersJsonSchema`, `responseJsonSchema`: JSON Schema, keys copied verbatim (their
 *   Gemini-style `type`/`nullable` values are converted later, by convertGeminiSchema);
 * - `parameters`, `responseSchema` (OpenAPI-subset Schema): keywords are normalised, but the
 *   property NAMES under `properties` are kept as written.
 * When both spellings of a key are present, the camelCase one wins.
 */

type Json = unknown;

/** Keys whose values are copied verbatim. */
const OPAQUE_KEYS: ReadonlySet<string> = new Set([
  'args',
  'response',
  'parametersJsonSchema',
  'responseJsonSchema',
  'labels',
]);
/** Keys whose values are OpenAPI-subset Schema objects. */
const SCHEMA_KEYS: ReadonlySet<string> = new Set(['parameters', 'responseSchema']);
/** Schema keywords whose values are verbatim data. */
const SCHEMA_DATA_KEYS: ReadonlySet<string> = new Set(['enum', 'required', 'propertyOrdering', 'example', 'default']);

/** `thinking_budget` → `thinkingBudget`; keys without `_` are returned as is. */
export function snakeToCamel(key: string): string {
  return key.includes('_') ? key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) : key;
}

function isRecord(value: Json): value is Record<string, Json> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Copies `source` with camelCase keys; `convert(key, value)` produces each value. camelCase spellings win. */
function mapKeys(source: Record<string, Json>, convert: (key: string, value: Json) => Json): Record<string, Json> {
  const target: Record<string, Json> = {};
  for (const [rawKey, value] of Object.entries(source)) {
    const key = snakeToCamel(rawKey);
    if (key !== rawKey && Object.hasOwn(source, key)) continue;
    target[key] = convert(key, value);
  }
  return target;
}

function normalizeSchema(value: Json): Json {
  if (Array.isArray(value)) return value.map(normalizeSchema);
  if (!isRecord(value)) return value;
  return mapKeys(value, (key, child) => {
    if (key === 'properties' && isRecord(child)) {
      const properties: Record<string, Json> = {};
      for (const [name, schema] of Object.entries(child)) properties[name] = normalizeSchema(schema);
      return properties;
    }
    if (SCHEMA_DATA_KEYS.has(key)) return child;
    return normalizeSchema(child);
  });
}

/** Returns a copy of a Gemini request body (or any part of it) with camelCase keys; primitives unchanged. */
export function normalizeGeminiKeys(value: Json): Json {
  if (Array.isArray(value)) return value.map(normalizeGeminiKeys);
  if (!isRecord(value)) return value;
  return mapKeys(value, (key, child) => {
    if (OPAQUE_KEYS.has(key)) return child;
    if (SCHEMA_KEYS.has(key)) return normalizeSchema(child);
    return normalizeGeminiKeys(child);
  });
}
