/**
 * Converts a Gemini OpenAPI-subset `Schema` (function `parameters`, `responseSchema`;
 * gemini-generate-content.md §2) into plain JSON Schema for the canonical model:
 * upper-case `type` (`OBJECT`, `STRING`, …) → lower-case; `nullable: true` → `type: [t, "null"]`;
 * int64 keywords sent as strings by proto3 JSON (`maxItems: "5"`) → numbers; Gemini-only
 * `propertyOrdering` dropped; `properties`, `items`, `anyOf` converted recursively; other keywords
 * (description, enum, format, required, minimum, …) kept. Input must already be camelCase.
 */

const INTEGER_KEYWORDS: ReadonlySet<string> = new Set(['minItems', 'maxItems', 'minLength', 'maxLength', 'minProperties', 'maxProperties']);
const DROPPED_KEYWORDS: ReadonlySet<string> = new Set(['propertyOrdering', 'nullable']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function convertType(type: unknown, nullable: boolean): unknown {
  const lower = typeof type === 'string' ? type.toLowerCase() : type;
  if (lower === 'type_unspecified') return undefined;
  if (!nullable || typeof lower !== 'string') return lower;
  return [lower, 'null'];
}

function convertKeyword(key: string, value: unknown): unknown {
  if (key === 'properties' && isRecord(value)) {
    const properties: Record<string, unknown> = {};
    for (const [name, schema] of Object.entries(value)) properties[name] = convertGeminiSchema(schema);
    return properties;
  }
  if (key === 'items') return convertGeminiSchema(value);
  if (key === 'anyOf' && Array.isArray(value)) return value.map(convertGeminiSchema);
  if (INTEGER_KEYWORDS.has(key) && typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return value;
}

/** Converts one schema node (non-objects are returned unchanged). */
export function convertGeminiSchema(schema: unknown): unknown {
  if (!isRecord(schema)) return schema;
  const result: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_KEYWORDS.has(key)) continue;
    if (key === 'type') {
      const type = convertType(value, schema.nullable === true);
      if (type !== undefined) result.type = type;
      continue;
    }
    result[key] = convertKeyword(key, value);
  }
  return result;
}

/** Converts a top-level schema and guarantees an object result (`{}` for anything else). */
export function convertGeminiSchemaObject(schema: unknown): Record<string, unknown> {
  const converted = convertGeminiSchema(schema);
  return isRecord(converted) ? converted : {};
}
