/**
 * Avro "Parsing Canonical Form" (Avro specification, "Schema Resolution" → "Parsing Canonical
 * Form for Schemas"): the schema text that fingerprints are computed over. Two schemas that read
 * and write the same bytes have the same canonical form, whatever their docs, defaults, aliases,
 * logical types, attribute order or whitespace.
 */

const PRIMITIVES: ReadonlySet<string> = new Set([
  'null',
  'boolean',
  'int',
  'long',
  'float',
  'double',
  'bytes',
  'string',
]);
const NAMED_TYPES: ReadonlySet<string> = new Set(['record', 'error', 'enum', 'fixed']);

/** Walk state: the enclosing namespace and the full names already written (later uses print the name only). */
interface CanonicalState {
  readonly namespace: string;
  readonly seen: Set<string>;
}

/**
 * The Parsing Canonical Form of a schema, as a JSON string without whitespace.
 * Applies [PRIMITIVES] (`{"type":"int"}` → `"int"`), [FULLNAMES] (names qualified by their
 * namespace, `namespace` dropped), [STRIP] (only type, name, fields, symbols, items, values,
 * size kept), [ORDER] (name, type, fields, symbols, items, values, size), [STRINGS] and
 * [INTEGERS] (JSON.stringify), [WHITESPACE] (none). A named type defined earlier in the walk is
 * written as its full name only.
 *
 * @param schema a parsed schema (JSON value: string, array or object)
 * @throws Error when the schema is not a JSON Avro schema (missing `type`, bad `fields`, …)
 */
export function parsingCanonicalForm(schema: unknown): string {
  return canonical(schema, { namespace: '', seen: new Set() });
}

function canonical(schema: unknown, state: CanonicalState): string {
  if (typeof schema === 'string')
    return JSON.stringify(PRIMITIVES.has(schema) ? schema : fullName(schema, undefined, state.namespace));
  if (Array.isArray(schema)) return `[${schema.map((branch) => canonical(branch, state)).join(',')}]`;
  if (schema === null || typeof schema !== 'object') throw new Error(`invalid Avro schema: ${JSON.stringify(schema)}`);
  const node = schema as Record<string, unknown>;
  const type = node['type'];
  if (typeof type !== 'string') return canonical(type, state);
  if (PRIMITIVES.has(type)) return JSON.stringify(type);
  if (NAMED_TYPES.has(type)) return canonicalNamed(node, type, state);
  if (type === 'array') return `{"type":"array","items":${canonical(node['items'], state)}}`;
  if (type === 'map') return `{"type":"map","values":${canonical(node['values'], state)}}`;
  // A bare name used as {"type": "Name"}.
  return canonical(type, state);
}

function canonicalNamed(node: Record<string, unknown>, type: string, state: CanonicalState): string {
  const name = node['name'];
  if (typeof name !== 'string') throw new Error(`invalid Avro ${type}: missing name`);
  const full = fullName(name, node['namespace'], state.namespace);
  if (state.seen.has(full)) return JSON.stringify(full);
  state.seen.add(full);
  const head = `{"name":${JSON.stringify(full)},"type":${JSON.stringify(type)}`;
  if (type === 'enum') return `${head},"symbols":${JSON.stringify(node['symbols'])}}`;
  if (type === 'fixed') return `${head},"size":${JSON.stringify(node['size'])}}`;
  const fields = node['fields'];
  if (!Array.isArray(fields)) throw new Error(`invalid Avro record ${full}: fields must be an array`);
  const inner: CanonicalState = { namespace: namespaceOf(full), seen: state.seen };
  const rendered = fields.map((field: unknown) => {
    const f = field as Record<string, unknown>;
    return `{"name":${JSON.stringify(f['name'])},"type":${canonical(f['type'], inner)}}`;
  });
  return `${head},"fields":[${rendered.join(',')}]}`;
}

/** Full name per the spec: a dotted name is already full; else the explicit namespace, else the enclosing one. */
function fullName(name: string, namespace: unknown, enclosing: string): string {
  if (name.includes('.')) return name;
  const ns = typeof namespace === 'string' ? namespace : enclosing;
  return ns === '' ? name : `${ns}.${name}`;
}

function namespaceOf(full: string): string {
  const dot = full.lastIndexOf('.');
  return dot < 0 ? '' : full.slice(0, dot);
}
