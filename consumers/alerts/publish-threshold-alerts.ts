/**
 * Budget threshold alerts, the publishing half: after the billing consumer added a batch's spend to
 * the budget windows it names, every threshold of a touched window that its billed spend has
 * reached, and that was not published for that window yet, becomes one BudgetThresholdCrossed on
 * the alerts topic (`tollgate.alerts`, keyed by budget id). Only billed spend counts, never the
 * holds of requests still running: an alert says money was spent, not that it might be.
 *
 * Order: append the alerts, wait until the log acknowledged them (EventLog.flush), then mark each
 * threshold alerted in the budget ledger. A crash between the two publishes an alert again on the
 * redelivered batch, with the same `eventId` (the alert id `<budgetId>@<windowStartMs>:<percent>`):
 * the notifier (notify-alert-webhooks.ts) delivers each alert id once per webhook anyway.
 */
import type { BudgetRecord } from '../../schemas/control-plane/control-plane-records.ts';
import type { EventLog } from '../../schemas/event-log/event-log.ts';
import { encodeTrafficEvent, trafficEventKey } from '../../schemas/events/traffic-event-codec.ts';
import type { BudgetThresholdCrossed } from '../../schemas/events/traffic-events.ts';
import {
  REQUEST_COUNTER_PREFIX,
  TOKEN_COUNTER_PREFIX,
  type BudgetCounter,
  type BudgetLedger,
  type BudgetWindowUse,
} from '../../schemas/state-store/budget-ledger.ts';
import { TOPICS } from '../../schemas/topics.ts';

/** The budgets as the consumers' control-plane fold knows them. */
export interface BudgetSource {
  /** The budget of that id, or undefined when unknown or removed. */
  budget(budgetId: string): BudgetRecord | undefined;
}

/** What publishing alerts needs. */
export interface ThresholdAlertDeps {
  /** Where the alerts go (topic TOPICS.alerts); `flush` must resolve only once they are acknowledged. */
  readonly eventLog: Pick<EventLog, 'publish' | 'flush'>;
  /** Records the thresholds published per window. */
  readonly budgets: Pick<BudgetLedger, 'markThresholdAlerted'>;
  /** The budgets' thresholds, limits and names. */
  readonly controlPlane: BudgetSource;
  /** Clock of `occurredAt`, ms since epoch (default Date.now). */
  readonly now?: () => number;
}

/** The alert id of a threshold of a window: `<budgetId>@<windowStartMs>:<percent>`, the same however often it is computed. */
export function thresholdAlertId(counter: Pick<BudgetCounter, 'budgetId' | 'windowStartMs'>, percent: number): string {
  return `${counter.budgetId}@${counter.windowStartMs}:${percent}`;
}

/** Whether the counter is a daily request or token cap of a key or team (no alerts), not a budget. */
export function isDailyCapCounter(budgetId: string): boolean {
  return budgetId.startsWith(REQUEST_COUNTER_PREFIX) || budgetId.startsWith(TOKEN_COUNTER_PREFIX);
}

/**
 * The thresholds (percent, ascending as the budget lists them) that the window's billed spend has
 * reached on either limit and that are not in `use.alertedPercents`. Exact: USD reached when
 * spentNanoUsd × 100 ≥ percent × limitNanoUsd (bigint), tokens when spentTokens × 100 ≥ percent ×
 * limitTokens. Holds are ignored.
 */
export function reachedThresholds(
  budget: Pick<BudgetRecord, 'thresholds' | 'limitNanoUsd' | 'limitTokens'>,
  use: Pick<BudgetWindowUse, 'spentNanoUsd' | 'spentTokens' | 'alertedPercents'>,
): number[] {
  const alerted = new Set(use.alertedPercents);
  return budget.thresholds.filter((percent) => {
    if (alerted.has(percent)) return false;
    const byUsd = budget.limitNanoUsd !== null && use.spentNanoUsd * 100n >= BigInt(percent) * budget.limitNanoUsd;
    const byTokens =
      budget.limitTokens !== null && BigInt(use.spentTokens) * 100n >= BigInt(percent) * BigInt(budget.limitTokens);
    return byUsd || byTokens;
  });
}

/**
 * The alerts the uses call for: for each window of a known budget (daily caps and removed budgets
 * skipped), one BudgetThresholdCrossed per threshold reachedThresholds returns; a window met twice
 * in `uses` counts once (its last use).
 */
export function thresholdAlerts(
  uses: ReadonlyArray<BudgetWindowUse>,
  controlPlane: BudgetSource,
  occurredAt: number,
): BudgetThresholdCrossed[] {
  const lastUse = new Map<string, BudgetWindowUse>();
  for (const use of uses) lastUse.set(`${use.counter.budgetId}@${use.counter.windowStartMs}`, use);
  const alerts: BudgetThresholdCrossed[] = [];
  for (const use of lastUse.values()) {
    const { counter } = use;
    if (isDailyCapCounter(counter.budgetId)) continue;
    const budget = controlPlane.budget(counter.budgetId);
    if (!budget) continue;
    for (const percent of reachedThresholds(budget, use))
      alerts.push({
        eventId: thresholdAlertId(counter, percent),
        occurredAt,
        budgetId: budget.budgetId,
        budgetName: budget.name,
        scope: budget.scope,
        scopeId: budget.scopeId,
        windowStartMs: counter.windowStartMs,
        windowEndMs: counter.windowEndMs,
        thresholdPercent: percent,
        limitNanoUsd: budget.limitNanoUsd === null ? null : budget.limitNanoUsd.toString(),
        limitTokens: budget.limitTokens,
        spentNanoUsd: use.spentNanoUsd.toString(),
        spentTokens: use.spentTokens,
      });
  }
  return alerts;
}

/**
 * Publishes the alerts `uses` call for (thresholdAlerts), waits for the log's acknowledgement,
 * then marks each threshold alerted. Resolves to the alerts published (none: nothing was done).
 * @throws the event log's error when the flush fails, the ledger's when a mark fails (the
 *   caller's batch is then redelivered; alerts already published come again with the same id)
 */
export async function publishThresholdAlerts(
  deps: ThresholdAlertDeps,
  uses: ReadonlyArray<BudgetWindowUse>,
): Promise<BudgetThresholdCrossed[]> {
  const alerts = thresholdAlerts(uses, deps.controlPlane, (deps.now ?? Date.now)());
  if (alerts.length === 0) return alerts;
  for (const alert of alerts) {
    const event = { type: 'BudgetThresholdCrossed' as const, event: alert };
    deps.eventLog.publish({ topic: TOPICS.alerts, key: trafficEventKey(event), value: encodeTrafficEvent(event) });
  }
  await deps.eventLog.flush();
  for (const alert of alerts)
    await deps.budgets.markThresholdAlerted(
      { budgetId: alert.budgetId, windowStartMs: alert.windowStartMs, windowEndMs: alert.windowEndMs },
      alert.thresholdPercent,
    );
  return alerts;
}
