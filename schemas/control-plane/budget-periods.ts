/**
 * Budget windows: which window of a budget an instant falls in, and when it resets. The same
 * function runs at admission (the gateway reserves in the window of the request's arrival) and
 * names the counters a UsageRecorded event carries, so the consumers add each request's cost to
 * the window it was admitted in, however late they read it.
 *
 * - `lifetime`: one window for all time, [0, never).
 * - `day`, `week`, `month`: calendar windows in the budget's IANA time zone, from local midnight to
 *   local midnight (weeks start on Monday, ISO 8601), so a day is 23 or 25 hours across a DST
 *   change. Computed with Luxon (https://moment.github.io/luxon/#/zones, "Changing zones";
 *   https://moment.github.io/luxon/api-docs/index.html#datetimestartof).
 * - `rolling`: consecutive windows of `rollingMs` each, the first starting at the budget's
 *   `createdAt` (the reset-every-N behaviour of budget durations).
 */
import { DateTime, IANAZone } from 'luxon';
import type { BudgetPeriod, BudgetRecord } from './control-plane-records.ts';

/** One window of a budget: [startMs, endMs), ms since epoch; endMs null = never resets. */
export interface BudgetWindow {
  readonly startMs: number;
  readonly endMs: number | null;
}

/** The fields of a budget its windows depend on. */
export type BudgetWindowRule = Pick<BudgetRecord, 'period' | 'rollingMs' | 'timeZone' | 'createdAt'>;

/** Shortest `rolling` window, ms (one minute). */
export const MIN_ROLLING_MS = 60_000;

/** Calendar unit of each calendar period. */
const CALENDAR_UNIT: Partial<Record<BudgetPeriod, 'day' | 'week' | 'month'>> = {
  day: 'day',
  week: 'week',
  month: 'month',
};

/** Whether `zone` is an IANA time zone name this runtime knows (`UTC`, `Asia/Shanghai`). */
export function isKnownTimeZone(zone: string): boolean {
  return IANAZone.isValidZone(zone);
}

/**
 * The window of `rule` that holds the instant `atMs` (ms since epoch).
 * @throws RangeError for an unknown time zone, a rolling period without `rollingMs` ≥ 60 000 ms,
 *   or a non-finite instant
 */
export function budgetWindowAt(rule: BudgetWindowRule, atMs: number): BudgetWindow {
  if (!Number.isFinite(atMs)) throw new RangeError(`budget window of a non-finite instant: ${atMs}`);
  if (rule.period === 'lifetime') return { startMs: 0, endMs: null };
  if (rule.period === 'rolling') {
    const length = rule.rollingMs;
    if (length === null || !Number.isSafeInteger(length) || length < MIN_ROLLING_MS)
      throw new RangeError(`a rolling budget needs rollingMs ≥ ${MIN_ROLLING_MS}, got ${String(length)}`);
    const index = Math.floor((atMs - rule.createdAt) / length);
    const startMs = rule.createdAt + index * length;
    return { startMs, endMs: startMs + length };
  }
  const unit = CALENDAR_UNIT[rule.period];
  if (!unit) throw new RangeError(`unknown budget period: ${String(rule.period)}`);
  // Luxon takes ~100 µs per window; the current window of each (period, zone) is kept until it ends.
  const cacheKey = `${unit} ${rule.timeZone}`;
  const cached = calendarWindows.get(cacheKey);
  if (cached && cached.startMs <= atMs && atMs < cached.endMs) return cached;
  if (!isKnownTimeZone(rule.timeZone)) throw new RangeError(`unknown time zone: ${rule.timeZone}`);
  const local = DateTime.fromMillis(atMs, { zone: rule.timeZone });
  const start = local.startOf(unit);
  const end = start.plus({ [`${unit}s`]: 1 }).startOf(unit);
  const window = { startMs: start.toMillis(), endMs: end.toMillis() };
  if (calendarWindows.size >= MAX_CACHED_WINDOWS && !calendarWindows.has(cacheKey)) calendarWindows.clear();
  calendarWindows.set(cacheKey, window);
  return window;
}

/** The last calendar window computed per `<unit> <zone>`. */
const calendarWindows = new Map<string, { readonly startMs: number; readonly endMs: number }>();

/** Most (unit, zone) pairs kept; three units × the zones in use, cleared beyond (zones are bounded by budgets). */
const MAX_CACHED_WINDOWS = 1024;

/** The counter id of a budget's window, `<budgetId>@<startMs>`: the key of its spend in the state store and in events. */
export function budgetCounterId(budgetId: string, window: BudgetWindow): string {
  return `${budgetId}@${window.startMs}`;
}
