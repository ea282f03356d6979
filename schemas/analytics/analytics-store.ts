/**
 * The analytics port: SQL over ClickHouse. Adapters: a ClickHouse server over
 * HTTP (@clickhouse/client; used when CLICKHOUSE_URL is set) and the in-process engine (npm
 * `chdb`) in the data directory, run in a worker thread so it never blocks requests.
 * Every statement must run on both Debian's ClickHouse 18.16 and modern chdb (the dialect both accept):
 * no query parameters (render values with `sqlLiteral`), JSONEachRow in and out (an engine that
 * has JSONCompactEachRow may insert with it, toJsonCompactEachRow).
 */

/** A row value as rendered into JSONEachRow. Use `Decimal` for money so it is written as an exact decimal literal; a string array fills an Array(String) column. */
export type AnalyticsValue = string | number | boolean | null | Decimal | ReadonlyArray<string>;

/** An exact decimal for Decimal64(9) columns, held as integer nano-units. */
export class Decimal {
  constructor(readonly nanoUnits: bigint) {}
  /** Exact decimal text with 9 fractional digits, e.g. `0.000001234`. */
  toString(): string {
    const nano = this.nanoUnits;
    // Within ±2^53 − 1 the arithmetic is exact on doubles and costs no BigInt division.
    if (nano <= MAX_SAFE_NANO && nano >= -MAX_SAFE_NANO) {
      const value = Number(nano);
      const abs = value < 0 ? -value : value;
      // Exact: abs / 1e9 is below 2^24, where rounding moves a double by at most 2^-30, less than
      // the 1e-9 a quotient lies below the next integer at the closest, so the floor is right.
      const whole = Math.floor(abs / NANO_PER_UNIT);
      const fraction = abs - whole * NANO_PER_UNIT;
      return `${value < 0 ? '-' : ''}${whole}.${String(fraction).padStart(9, '0')}`;
    }
    const negative = nano < 0n;
    const abs = negative ? -nano : nano;
    const whole = abs / 1_000_000_000n;
    const fraction = (abs % 1_000_000_000n).toString().padStart(9, '0');
    return `${negative ? '-' : ''}${whole}.${fraction}`;
  }
}

const MAX_SAFE_NANO = BigInt(Number.MAX_SAFE_INTEGER);
const NANO_PER_UNIT = 1_000_000_000;

/** The analytics store. */
export interface AnalyticsStore {
  /**
   * Runs a statement that returns nothing (DDL, INSERT … SELECT).
   * Adapters: clickhouse-http-store.ts (CLICKHOUSE_URL) and chdb-store.ts (in-process, one per
   * process); infra/open-adapters.ts picks one from the environment; migrate.ts applies the DDL.
   */
  exec(sql: string): Promise<void>;
  /**
   * Inserts rows as JSONEachRow (toJsonEachRow), or as JSONCompactEachRow with the column list
   * where the engine has the format and the rows share their keys (toJsonCompactEachRow: the same
   * rows stored); `Decimal` values are written as bare decimal literals.
   * @throws Error on an invalid table name; the engine's error when the insert fails
   */
  insert(table: string, rows: ReadonlyArray<Record<string, AnalyticsValue>>): Promise<void>;
  /**
   * Runs a SELECT and returns JSONEachRow rows (numbers of 64-bit types may come back as strings: cast with toString() for exactness).
   * Both adapters return 64-bit integers as JSON strings (the chdb adapter sets
   * output_format_json_quote_64bit_integers=1 to match the server). Read money with
   * `toString(x)`: exact on both engines, but chdb trims trailing zeros (`'1.5'`) where 18.16
   * prints `'1.500000000'` — parse the decimal, do not compare the text. Decimal64(9) holds at
   * most 999 999 999.999999999; sums are Decimal128.
   */
  query<T = Record<string, unknown>>(sql: string): Promise<T[]>;
  /** The engine's version, e.g. `18.16.1` or `26.7.2.1`. */
  version(): Promise<string>;
  close(): Promise<void>;
}

/**
 * Most values one lookup lists by literal (`WHERE event_id IN (…)`). ClickHouse refuses a query
 * whose text is longer than `max_query_size`, 262 144 bytes by default
 * (https://clickhouse.com/docs/operations/settings/settings#max_query_size); an insert's data
 * after `FORMAT` does not count, but a WHERE clause does. 500 ids of 36 characters, with the
 * other sets of a lookup, stay far below it.
 */
export const LOOKUP_VALUES = 500;

/**
 * `values` in consecutive slices of at most `size` (≥ 1; default LOOKUP_VALUES): one lookup
 * each, so a batch of any size never makes a query too long. Empty input gives no slice.
 */
export function lookupSlices<T>(values: ReadonlyArray<T>, size: number = LOOKUP_VALUES): T[][] {
  const slices: T[][] = [];
  for (let start = 0; start < values.length; start += size) slices.push(values.slice(start, start + size));
  return slices;
}

/**
 * Bytes of value literals one lookup sliced by text (lookupSlicesByText) may carry: three quarters
 * of `max_query_size` (262 144 bytes by default), the rest for the query around them.
 */
export const LOOKUP_TEXT_BYTES = 192 * 1024;

/**
 * `values` in consecutive slices whose literals fit in `budget` bytes of query text (default
 * LOOKUP_TEXT_BYTES), for a lookup whose cost is mostly per query rather than per value: one
 * query of 2 500 billing lines cost the engine 8–12 µs of CPU a line against 12–20 for five of 500.
 * `literalsOf(value)` gives the strings the value adds to the query's sets, one per set, in the
 * same order for every value; each distinct string of a set counts once per slice, at
 * 2 × its UTF-8 length + 12 bytes (every character escaped, quotes, a separator and a wrapper
 * such as `toDate(…)` at most). A value alone over the budget gets a slice of its own. Empty input
 * gives no slice.
 */
export function lookupSlicesByText<T>(
  values: ReadonlyArray<T>,
  literalsOf: (value: T) => ReadonlyArray<string>,
  budget: number = LOOKUP_TEXT_BYTES,
): T[][] {
  const slices: T[][] = [];
  let slice: T[] = [];
  let sets: Array<Set<string>> = [];
  let bytes = 0;
  for (const value of values) {
    const literals = literalsOf(value);
    let added = 0;
    for (let set = 0; set < literals.length; set += 1) {
      const literal = literals[set] as string;
      if (!sets[set]?.has(literal)) added += literalBytes(literal);
    }
    if (slice.length > 0 && bytes + added > budget) {
      slices.push(slice);
      slice = [];
      sets = [];
      bytes = 0;
      added = 0;
      for (const literal of literals) added += literalBytes(literal);
    }
    for (let set = 0; set < literals.length; set += 1) (sets[set] ??= new Set()).add(literals[set] as string);
    slice.push(value);
    bytes += added;
  }
  if (slice.length > 0) slices.push(slice);
  return slices;
}

/** The most bytes `literal` can take in a lookup's value list: every character escaped, quotes, a separator and a wrapper such as `toDate(…)`. */
function literalBytes(literal: string): number {
  return 2 * Buffer.byteLength(literal) + 12;
}

/** Renders a value as a ClickHouse SQL literal — the one escaping function for all SQL. */
export function sqlLiteral(value: string | number | boolean | null | Decimal): string {
  if (value === null) return 'NULL';
  if (value instanceof Decimal) return value.toString();
  if (typeof value === 'boolean') return value ? '1' : '0';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`cannot render ${value} as SQL`);
    return String(value);
  }
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

/** Quoted JSON of column names already seen: a consumer's rows repeat the same few dozen keys. */
const quotedKeys = new Map<string, string>();

/** `"key":` for a column name (cached for names up to 64 characters; at most 1 024 cached). */
function quotedKey(key: string): string {
  let quoted = quotedKeys.get(key);
  if (quoted === undefined) {
    quoted = `${JSON.stringify(key)}:`;
    if (key.length <= 64 && quotedKeys.size < 1024) quotedKeys.set(key, quoted);
  }
  return quoted;
}

/** A row value as JSON text: Decimal as a bare literal, finite numbers as they print, anything else through JSON.stringify (non-finite numbers become null). */
function jsonValue(value: AnalyticsValue): string {
  return value instanceof Decimal
    ? value.toString()
    : typeof value === 'number' && Number.isFinite(value)
      ? String(value)
      : JSON.stringify(value);
}

/**
 * Serialises rows as JSONEachRow text (one JSON object per line, keys in the row's order) with
 * Decimal values as bare literals. One string is built by appending, with no per-row arrays or
 * closures: the consumers serialise every row they insert.
 */
export function toJsonEachRow(rows: ReadonlyArray<Record<string, AnalyticsValue>>): string {
  let out = '';
  for (let index = 0; index < rows.length; index += 1) {
    const row = rows[index] as Record<string, AnalyticsValue>;
    out += index === 0 ? '{' : '\n{';
    let first = true;
    for (const key in row) {
      if (!Object.hasOwn(row, key)) continue;
      out += first ? quotedKey(key) : `,${quotedKey(key)}`;
      out += jsonValue(row[key] as AnalyticsValue);
      first = false;
    }
    out += '}';
  }
  return out;
}

/** Rows as JSONCompactEachRow text and the columns its values follow. */
export interface CompactRows {
  /** The first row's keys, in its order: every row has exactly these. */
  readonly columns: ReadonlyArray<string>;
  /** One JSON array of values per line, in `columns` order (values rendered as toJsonEachRow does). */
  readonly text: string;
}

const COLUMN_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Serialises rows as JSONCompactEachRow text
 * (https://clickhouse.com/docs/interfaces/formats/JSONCompactEachRow): the values of each row as
 * a JSON array, for `INSERT INTO t (columns…) FORMAT JSONCompactEachRow`. Without the column
 * names on every line the text is about a third of JSONEachRow's for the consumers' rows, and the
 * engine parses it in about two thirds of the time. A column left out is filled as a key left
 * out of JSONEachRow is, so the two inserts store the same rows. ClickHouse has the format since
 * 20.1, so only an adapter whose engine has it may use it (18.16 lacks it).
 * Returns undefined when the rows do not all have the first row's keys in its order, or a key is
 * not a plain column name ([A-Za-z_][A-Za-z0-9_]*): such a batch goes as JSONEachRow.
 */
export function toJsonCompactEachRow(rows: ReadonlyArray<Record<string, AnalyticsValue>>): CompactRows | undefined {
  const columns: string[] = [];
  const firstRow = rows[0];
  if (firstRow === undefined) return { columns, text: '' };
  for (const key in firstRow) {
    if (!Object.hasOwn(firstRow, key)) continue;
    if (!COLUMN_NAME.test(key)) return undefined;
    columns.push(key);
  }
  let out = '';
  for (let index = 0; index < rows.length; index += 1) {
    const row = rows[index] as Record<string, AnalyticsValue>;
    out += index === 0 ? '[' : '\n[';
    let column = 0;
    for (const key in row) {
      if (!Object.hasOwn(row, key)) continue;
      if (key !== columns[column]) return undefined;
      if (column > 0) out += ',';
      out += jsonValue(row[key] as AnalyticsValue);
      column += 1;
    }
    if (column !== columns.length) return undefined;
    out += ']';
  }
  return { columns, text: out };
}
