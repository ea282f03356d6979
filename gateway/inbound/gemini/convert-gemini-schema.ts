/**
 * Converts a schema written in Gemini's OpenAPI-subset style into plain JSON Schema for the
 * canonical model. Gemini's `Schema` (https://ai.google.dev/api/caching#Schema) is what
 * `responseSchema` and function `parameters` carry; `responseJsonSchema` and
 * `parametersJsonSchema` (https://ai.google.dev/api/generate-content#generationconfig) are meant to
 * be JSON Schema, but clients built on @google/genai (Gemini CLI among them) fill them with the
 * same `Type` enum, so every schema leaving the Gemini format goes through here.
 *
 *   { type: 'OBJECT', nullable: true, propertyOrdering: ['a'], properties: { a: { type: 'STRING', maxLength: '9' } } }
 *   → { type: ['object', 'null'], properties: { a: { type: 'string', maxLength: 9 } } }
 *
 * - `type`: upper-case names (`OBJECT`, `STRING`, `ARRAY`, `INTEGER`, `NUMBER`, `BOOLEAN`, `NULL`)
 *   → lower-case, also inside a type array; `TYPE_UNSPECIFIED` removed.
 * - `nullable: true` → `type: [t, 'null']`; without a `type`, `{ type: 'null' }` is added to
 *   `anyOf` (a schema with neither already admits null). A nullable `enum` keeps its list as
 *   written. `nullable` itself is removed: it is not a JSON Schema keyword.
 * - `propertyOrdering` removed: it only fixes the order in which Gemini emits keys, constrains
 *   no value, and other upstreams reject unknown keywords, so dropping it is safe.
 * - int64 keywords sent as strings by the proto3 JSON mapping
 *   (https://protobuf.dev/programming-guides/json/) such as `maxItems: "5"` → numbers.
 * - Sub-schemas converted recursively: `properties`, `$defs`, `definitions`, `patternProperties`
 *   (maps); `anyOf`, `oneOf`, `allOf`, `prefixItems` (lists); `items` (one schema or a list),
 *   `additionalProperties`, `not`, `contains`, `propertyNames`, `if`, `then`, `else`.
 * - Every other keyword (description, enum, format, required, minimum, default, example, $ref, …)
 *   is kept; value-carrying keywords (`enum`, `const`, `default`, `example`, `required`) are never
 *   walked, so a property or value named `type` is left alone.
 *
 * Plain JSON Schema passes through unchanged apart from those rules. The input is never mutated:
 * converted nodes are new objects, kept values are shared.
 */

type Json = unknown;

const INTEGER_KEYWORDS: ReadonlySet<string> = new Set([
  'minItems',
  'maxItems',
  'minLength',
  'maxLength',
  'minProperties',
  'maxProperties',
]);
const DROPPED_KEYWORDS: ReadonlySet<string> = new Set(['propertyOrdering', 'nullable']);
/** Keywords whose value is a map of name → schema. */
const SCHEMA_MAP_KEYWORDS: ReadonlySet<string> = new Set(['properties', '$defs', 'definitions', 'patternProperties']);
/** Keywords whose value is a list of schemas. */
const SCHEMA_LIST_KEYWORDS: ReadonlySet<string> = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
/** Keywords whose value is one schema (`items` may also be a list, as in older drafts). */
const SCHEMA_KEYWORDS: ReadonlySet<string> = new Set([
  'items',
  'additionalProperties',
  'not',
  'contains',
  'propertyNames',
  'if',
  'then',
  'else',
]);
const NULL_SCHEMA: Readonly<Record<string, Json>> = { type: 'null' };

function isRecord(value: Json): value is Record<string, Json> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** One type name lower-cased; `type_unspecified` → undefined; non-strings unchanged. */
function lowerType(type: Json): Json {
  const lower = typeof type === 'string' ? type.toLowerCase() : type;
  return lower === 'type_unspecified' ? undefined : lower;
}

/** `type` (a name or a list of names) in JSON Schema spelling, with `'null'` added when nullable. */
function convertType(type: Json, nullable: boolean): Json {
  if (Array.isArray(type)) {
    const names = type.map(lowerType).filter((name) => name !== undefined);
    if (nullable && !names.includes('null')) names.push('null');
    return names.length === 0 ? undefined : names;
  }
  const lower = lowerType(type);
  if (!nullable || typeof lower !== 'string' || lower === 'null') return lower;
  return [lower, 'null'];
}

function convertKeyword(key: string, value: Json): Json {
  if (SCHEMA_MAP_KEYWORDS.has(key) && isRecord(value)) {
    const schemas: Record<string, Json> = {};
    for (const [name, schema] of Object.entries(value)) schemas[name] = convertGeminiSchema(schema);
    return schemas;
  }
  if ((SCHEMA_LIST_KEYWORDS.has(key) || key === 'items') && Array.isArray(value)) return value.map(convertGeminiSchema);
  if (SCHEMA_KEYWORDS.has(key)) return convertGeminiSchema(value);
  if (INTEGER_KEYWORDS.has(key) && typeof value === 'string' && /^\d+$/.test(value)) return Number(value);
  return value;
}

/** `nullable: true` on a schema without `type`: `{ type: 'null' }` joins an existing `anyOf`. */
function addNullBranch(result: Record<string, Json>): void {
  const anyOf = result.anyOf;
  if (!Array.isArray(anyOf)) return;
  const branches: Json[] = anyOf;
  const hasNull = branches.some((branch) => isRecord(branch) && branch.type === 'null');
  if (!hasNull) result.anyOf = [...branches, NULL_SCHEMA];
}

/** Converts one schema node to JSON Schema (non-objects are returned unchanged). */
export function convertGeminiSchema(schema: Json): Json {
  if (!isRecord(schema)) return schema;
  const nullable = schema.nullable === true;
  const result: Record<string, Json> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (DROPPED_KEYWORDS.has(key)) continue;
    if (key === 'type') {
      const type = convertType(value, nullable);
      if (type !== undefined) result.type = type;
      continue;
    }
    result[key] = convertKeyword(key, value);
  }
  if (nullable && result.type === undefined) addNullBranch(result);
  return result;
}

/** Converts a top-level schema and guarantees an object result (`{}` for anything else). */
export function convertGeminiSchemaObject(schema: Json): Record<string, unknown> {
  const converted = convertGeminiSchema(schema);
  return isRecord(converted) ? converted : {};
}
