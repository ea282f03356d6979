/**
 * The billing consumer: UsageRecorded events (topic `tollgate.usage`) → the per-key and per-user
 * spend counters in the state store (quota checks), the budget windows the event names (its
 * `budgetCounters`: the billed cost added, the request's hold dropped; budget-spend-increments.ts)
 * and `billing_lines` in the analytics store (the spend tables follow them). Each event is priced with the price book as of its `priceRevision`
 * (the PriceSets its gateway node had applied), at its `occurredAt`.
 * Exactly-once effect under redelivery, replay and duplicated events: an event whose line is
 * stored already is neither billed nor inserted again (find-stored-billing-lines.ts), and the
 * state store applies each log position once (one addSpendBatch per partition and batch,
 * partitions concurrently).
 */
import type { AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import { TABLES } from '../../schemas/analytics/tables.ts';
import type { SpendIncrement, StateStore } from '../../schemas/state-store/state-store.ts';
import type { BudgetLedger, BudgetSpendIncrement, BudgetWindowUse } from '../../schemas/state-store/budget-ledger.ts';
import { budgetSpendIncrements } from './budget-spend-increments.ts';
import { TOPICS } from '../../schemas/topics.ts';
import type { PriceSource } from '../control-plane/consumer-control-plane.ts';
import { byPartition } from '../apply-in-log-order.ts';
import { analyticsConsumerOf, type TrafficConsumer } from '../traffic-consumer.ts';
import { findStoredBillingLines } from './find-stored-billing-lines.ts';
import { projectBillingLine } from './project-billing-line.ts';
import { awaitPriceRevisions } from './await-price-revisions.ts';
import { reportUnpriced } from './report-unpriced.ts';

/** What billing needs. */
export interface BillingConsumerDeps {
  /** Migrated analytics store (billing_lines exists). */
  readonly analytics: AnalyticsStore;
  /** Only `addSpendBatch` is used. */
  readonly state: Pick<StateStore, 'addSpendBatch'>;
  /** Budget windows (only `addBudgetSpendBatch` is used); none: events' budget counters are not applied. */
  readonly budgets?: Pick<BudgetLedger, 'addBudgetSpendBatch'>;
  /**
   * Told the use of every budget window a batch touched, after it was applied and before the
   * batch's offsets commit (threshold alerts); a rejection fails the batch (it is redelivered).
   */
  readonly onBudgetUses?: (uses: ReadonlyArray<BudgetWindowUse>) => Promise<void>;
  /** Clock deciding which holds expired, ms since epoch (default Date.now). */
  readonly now?: () => number;
  /** Prices as of each event's revision (the consumers' control-plane fold). */
  readonly prices: PriceSource;
  /** Longest wait for the config topic to reach an event's price revision, ms (default 10 000). */
  readonly priceWaitMs?: number;
  /** Told, once per batch and cause, about requests that used tokens but had no price (costed at 0). */
  readonly onWarning?: (message: string) => void;
  /** Told the cost of each line billed for the first time with a known price (metrics); not told again on redelivery. */
  readonly onCost?: CostListener;
}

/** Receives the cost of one newly billed line: the priced upstream model and nano-USD (1e-9 USD, > 0). */
export type CostListener = (upstreamModel: string, costNanoUsd: bigint) => void;

/**
 * Creates the billing consumer (name `billing`, group `tollgate.billing`). handleBatch ignores
 * other event types; it waits for the batch's price revisions, finds which lines are stored
 * already, adds the others' non-zero costs to the spend counters, then inserts their lines. A
 * failure at any step rejects; the redelivered batch finds the same lines missing, its spend
 * skipped by the watermark where it was added, and completes the rest without counting twice.
 */
export function createBillingConsumer(deps: BillingConsumerDeps): TrafficConsumer {
  return analyticsConsumerOf('billing', TOPICS.usage, 'UsageRecorded', async (usage) => {
    await awaitPriceRevisions(
      deps.prices,
      usage.map((u) => u.event),
      deps.priceWaitMs,
    );
    const projections = usage.map(({ event }) =>
      projectBillingLine(event, deps.prices.bookFor(event.priceRevision, event.occurredAt)),
    );
    const stored = await findStoredBillingLines(
      deps.analytics,
      projections.map((projection) => projection.line),
    );
    const fresh: number[] = [];
    usage.forEach(({ event }, i) => {
      if (stored.has(event.eventId)) return;
      stored.add(event.eventId); // an event twice in one batch counts once
      fresh.push(i);
    });
    const increments: SpendIncrement[] = [];
    const budgetIncrements: BudgetSpendIncrement[] = [];
    for (const i of fresh) {
      const { event, position } = usage[i]!;
      const costNanoUsd = projections[i]!.costNanoUsd;
      if (costNanoUsd > 0n) increments.push({ position, keyId: event.keyId, userId: event.userId, costNanoUsd });
      if (deps.budgets) budgetIncrements.push(...budgetSpendIncrements(event, position, costNanoUsd));
    }
    // Budget windows before the spend counters: the embedded snapshot cuts at the spend
    // watermark, so a record whose spend is counted has its budget spend counted too.
    let uses: BudgetWindowUse[] = [];
    if (deps.budgets && budgetIncrements.length > 0) {
      const ledger = deps.budgets;
      const nowMs = (deps.now ?? Date.now)();
      const perPartition = await Promise.all(
        [...byPartition(budgetIncrements).values()].map((partition) => ledger.addBudgetSpendBatch(partition, nowMs)),
      );
      uses = perPartition.flat();
    }
    await Promise.all([...byPartition(increments).values()].map((partition) => deps.state.addSpendBatch(partition)));
    if (uses.length > 0) await deps.onBudgetUses?.(uses);
    if (fresh.length > 0)
      await deps.analytics.insert(
        TABLES.billingLines,
        fresh.map((i) => projections[i]!.line),
      );
    if (deps.onCost)
      reportCosts(
        deps.onCost,
        fresh.map((i) => projections[i]!),
      );
    reportUnpriced(
      projections.map((projection) => projection.warning),
      deps.onWarning,
    );
  });
}

/** Tells `onCost` each stored line's cost where a price applied (the price's model names it). */
function reportCosts(onCost: CostListener, billed: ReadonlyArray<ReturnType<typeof projectBillingLine>>): void {
  for (const { line, costNanoUsd } of billed)
    if (costNanoUsd > 0n && line.price_model !== '') onCost(line.price_model, costNanoUsd);
}
