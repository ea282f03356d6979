/**
 * Inserts the billing lines of a batch whose event ids are not in `billing_lines` yet. The spend
 * tables are materialized views fed by every insert into billing_lines
 * (schemas/analytics/migrations), so a line inserted twice would be summed twice there even though
 * `billing_lines FINAL` shows it once; checking first keeps them exact. One billing consumer owns
 * a partition at a time and a ClickHouse insert is visible once acknowledged, so a redelivered
 * batch finds the lines its first delivery wrote, whole or in part, and inserts only the rest.
 */
import { sqlLiteral, type AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import type { BillingLine } from './project-billing-line.ts';

/**
 * Inserts the lines whose `event_id` is not already stored; returns how many were inserted.
 * The lookup is bounded by the batch's days, keys, models, channels and time range: the table's
 * sort key, so it reads the granules of those groups and times, not the day's whole table.
 * @throws the store's error when the lookup or the insert fails (nothing or only part inserted;
 *   the redelivered batch completes it)
 */
export async function insertNewBillingLines(analytics: AnalyticsStore, lines: ReadonlyArray<BillingLine>): Promise<number> {
  if (lines.length === 0) return 0;
  const stored = await analytics.query<{ event_id: string }>(`SELECT event_id FROM billing_lines WHERE ${batchBounds(lines)}`);
  const seen = new Set(stored.map((row) => row.event_id));
  const fresh: BillingLine[] = [];
  for (const line of lines) {
    if (seen.has(line.event_id)) continue;
    seen.add(line.event_id);
    fresh.push(line);
  }
  if (fresh.length > 0) await analytics.insert('billing_lines', fresh);
  return fresh.length;
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
