/**
 * The analytics port: SQL over ClickHouse. Adapters: a ClickHouse server over
 * HTTP (@clickhouse/client; used when CLICKHOUSE_URL is set) and the in-process engine (npm
 * `chdb`) in the data directory, run in a worker thread so it never blocks requests.
 * Every statement must run on both Debian's ClickHouse 18.16 and modern chdb (the dialect both accept):
 * no query parameters (render values with `sqlLiteral`), JSONEachRow in and out.
 */

/** A row value as rendered into JSONEachRow. Use `Decimal` for money so it is written as an exact decimal literal; a string array fills an Array(String) column. */
export type AnalyticsValue = string | number | boolean | null | Decimal | ReadonlyArray<string>;

/** An exact decimal for Decimal64(9) columns, held as integer nano-units. */
export class Decimal {
  constructor(readonly nanoUnits: bigint) {}
  /** Exact decimal text with 9 fractional digits, e.g. `0.000001234`. */
  toString(): string {
    const negative = this.nanoUnits < 0n;
    const abs = negative ? -this.nanoUnits : this.nanoUnits;
    const whole = abs / 1_000_000_000n;
    const fraction = (abs % 1_000_000_000n).toString().padStart(9, '0');
    return `${negative ? '-' : ''}${whole}.${fraction}`;
  }
}

/** The analytics store. */
export interface AnalyticsStore {
  /**
   * Runs a statement that returns nothing (DDL, INSERT … SELECT).
   * Adapters: clickhouse-http-store.ts (CLICKHOUSE_URL) and chdb-store.ts (in-process, one per
   * process); infra/open-adapters.ts picks one from the environment; migrate.ts applies the DDL.
   */
  exec(sql: string): Promise<void>;
  /** Inserts rows as JSONEachRow; `Decimal` values are written as bare decimal literals. */
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
      const value = row[key] as AnalyticsValue;
      out += first ? quotedKey(key) : `,${quotedKey(key)}`;
      out +=
        value instanceof Decimal
          ? value.toString()
          : typeof value === 'number' && Number.isFinite(value)
            ? String(value)
            : JSON.stringify(value);
      first = false;
    }
    out += '}';
  }
  return out;
}
