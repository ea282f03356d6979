/**
 * Reading an admin API answer in the CLI: the answer is JSON the server's presenters shaped
 * (gateway/control-plane/admin-presenters.ts), read here field by field as `unknown` values and
 * printed with cli-table.ts. A field that is not there, or not of the kind asked for, is an error
 * naming it, never a crash on `undefined`.
 */

/** A JSON object of an answer: its fields by name. */
export type JsonRecord = Readonly<Record<string, unknown>>;

/**
 * `value` as a JSON object. @throws Error naming `what` when it is not one (null, an array, a
 * primitive).
 */
export function asRecord(value: unknown, what: string): JsonRecord {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new Error(`${what} is not a JSON object`);
  return value as JsonRecord;
}

/** The JSON object in `body[field]`. @throws Error when the answer has none there. */
export function recordIn(body: JsonRecord, field: string): JsonRecord {
  return asRecord(body[field], `the answer's ${field}`);
}

/** The JSON objects of the array in `body[field]`. @throws Error when the answer has no array there. */
export function recordsIn(body: JsonRecord, field: string): JsonRecord[] {
  const value = body[field];
  if (!Array.isArray(value)) throw new Error(`the answer's ${field} is not a JSON array`);
  return value.map((item, i) => asRecord(item, `the answer's ${field}[${i}]`));
}
