/**
 * The analytics port: SQL over ClickHouse. Adapters: a ClickHouse server over
 * HTTP (@clickhouse/client; used when CLICKHOUSE_URL is set) and the in-process engine (npm
 * `chdb`) in the data directory, run in a worker thread so it never blocks requests.
 * Every statement must run on both Debian's ClickHouse 18.16 and modern chdb (the dialect both accept):
 * no query parameters (render values with `sqlLiteral`), JSONEachRow in and out.
 */

/** A row value as rendered into JSONEachRow. Use `Decimal` for money so it is written as an exact decimal literal. */
export type AnalyticsValue = string | number | boolean | null | Decimal;

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

/** Serialises rows as JSONEachRow text with Decimal values as bare literals. */
export function toJsonEachRow(rows: ReadonlyArray<Record<string, AnalyticsValue>>): string {
  return rows
    .map((row) => {
      const parts = Object.entries(row).map(([key, value]) => `${JSON.stringify(key)}:${value instanceof Decimal ? value.toString() : JSON.stringify(value)}`);
      return `{${parts.join(',')}}`;
    })
    .join('\n');
}
