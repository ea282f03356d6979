/**
 * Plain-text tables and record summaries for the CLI (no colours, stable column order), so the
 * output reads well in a terminal and greps well in scripts.
 */
import type { CliOutput } from './cli-arguments.ts';

/** One column: header and how to render a cell. */
export interface Column<T> {
  readonly header: string;
  readonly cell: (row: T) => unknown;
}

/** Renders a value for a cell: null → `-`, arrays comma-joined, objects as JSON. */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (Array.isArray(value)) return value.length === 0 ? '-' : value.join(',');
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value) ?? '-';
}

/** Prints `rows` as a left-aligned table with a header line; `(none)` when empty. */
export function printTable<T>(out: CliOutput, rows: ReadonlyArray<T>, columns: ReadonlyArray<Column<T>>): void {
  if (rows.length === 0) {
    out.line('(none)');
    return;
  }
  const cells = rows.map((row) => columns.map((c) => cellText(c.cell(row))));
  const widths = columns.map((c, i) => Math.max(c.header.length, ...cells.map((r) => r[i]!.length)));
  const render = (values: ReadonlyArray<string>) =>
    values.map((v, i) => (i === values.length - 1 ? v : v.padEnd(widths[i]!))).join('  ');
  out.line(render(columns.map((c) => c.header)));
  for (const row of cells) out.line(render(row));
}

/** Prints a record as `field: value` lines (nulls as `-`). */
export function printRecord(out: CliOutput, record: Record<string, unknown>): void {
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  for (const [key, value] of Object.entries(record)) out.line(`  ${`${key}:`.padEnd(width + 1)} ${cellText(value)}`);
}
