/**
 * Which of a batch's billing lines are stored already. The billing consumer bills and inserts only
 * the others, so each event id is billed once:
 * - the spend tables are materialized views fed by every insert into billing_lines
 *   (schemas/analytics/migrations), so a line inserted twice would be summed twice there even
 *   though `billing_lines FINAL` shows it once;
 * - an event that reaches the topic twice, at two offsets (a publish that timed out but had
 *   landed, then went out again from the spool), passes the state store's offset watermark; its
 *   stored line is what keeps it from being counted twice.
 * One billing consumer owns a partition at a time and a ClickHouse insert is visible once
 * acknowledged, so a redelivered batch finds the lines its first delivery wrote, whole or in part.
 */
import { lookupSlicesByText, sqlLiteral, type AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import { TABLES, type BillingLine } from '../../schemas/analytics/tables.ts';

/**
 * The event ids among `lines` that billing_lines holds already. Each lookup is bounded by its
 * lines' days, keys, models, channels and time range: the table's sort key, so it reads the
 * granules of those groups and times, not the day's whole table. A batch is looked up in slices
 * whose value lists fit in LOOKUP_TEXT_BYTES (lookupSlicesByText; about 2 300 lines of UUID ids),
 * one query after the other, so its query text stays under ClickHouse's max_query_size however
 * large the batch or its values.
 * @throws the store's error when a query fails
 */
export async function findStoredBillingLines(
  analytics: AnalyticsStore,
  lines: ReadonlyArray<BillingLine>,
): Promise<Set<string>> {
  const stored = new Set<string>();
  for (const slice of lookupSlicesByText(lines, lookupLiterals)) {
    const rows = await analytics.query<{ event_id: string }>(
      `SELECT event_id FROM ${TABLES.billingLines} WHERE ${batchBounds(slice)}`,
    );
    for (const row of rows) stored.add(row.event_id);
  }
  return stored;
}

/**
 * The WHERE clause that finds a batch's lines: the sets of its days, keys, models and channels
 * and its time range (the table's sort key, so only those granules are read), and its event ids.
 */
function batchBounds(lines: ReadonlyArray<BillingLine>): string {
  let from = Number.POSITIVE_INFINITY;
  let to = 0;
  for (const line of lines) {
    from = Math.min(from, line.occurred_at);
    to = Math.max(to, line.occurred_at);
  }
  const setOf = (values: Iterable<string>): string => [...new Set(values)].map((value) => sqlLiteral(value)).join(',');
  return [
    `day IN (${[...new Set(lines.map((line) => line.day))].map((day) => `toDate(${sqlLiteral(day)})`).join(',')})`,
    `key_id IN (${setOf(lines.map((line) => line.key_id))})`,
    `upstream_model IN (${setOf(lines.map((line) => line.upstream_model))})`,
    `channel_id IN (${setOf(lines.map((line) => line.channel_id))})`,
    `occurred_at >= toDateTime(${sqlLiteral(from)}, 'UTC') AND occurred_at <= toDateTime(${sqlLiteral(to)}, 'UTC')`,
    `event_id IN (${setOf(lines.map((line) => line.event_id))})`,
  ].join(' AND ');
}

/** The strings a line adds to its lookup's sets, in batchBounds' order of sets. */
function lookupLiterals(line: BillingLine): ReadonlyArray<string> {
  return [line.day, line.key_id, line.upstream_model, line.channel_id, line.event_id];
}
