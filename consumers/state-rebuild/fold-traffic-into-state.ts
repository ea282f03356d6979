/**
 * The state store as a projection of the traffic topics: the fold that rebuilds spend counters and
 * channel health from the log (the embedded server runs it at start, before it admits a request).
 * It runs the very code the live consumers run, so a rebuilt store equals the one the consumers
 * built, to the nano-USD and to the last IEEE-754 bit of the health arithmetic:
 * - spend: each UsageRecorded priced by `projectBillingLine` (billing's projection, with the price
 *   book as of the event's `priceRevision`, at its `occurredAt`), its non-zero cost added to the
 *   key's and user's counters through `addSpendBatch` with the record's log position, so the
 *   store's watermarks end where the billing consumer's would and its later increments for records
 *   already folded are no-ops;
 * - budgets: each event's budget windows (its `budgetCounters`) get its cost through
 *   `addBudgetSpendBatch` with the record's log position, as the billing consumer adds them;
 * - health: the health consumer itself (`createHealthConsumer`) on the same store.
 * Unlike the billing consumer it does not look up stored billing lines to drop an event id seen
 * twice: the embedded file log stores each published event once (it has no spool that could send
 * one again), so each record is one event.
 */
import type { UsageRecorded } from '../../schemas/events/traffic-events.ts';
import type { SpendIncrement } from '../../schemas/state-store/state-store.ts';
import type { BudgetLedger, BudgetSpendIncrement } from '../../schemas/state-store/budget-ledger.ts';
import { budgetSpendIncrements } from '../billing/budget-spend-increments.ts';
import type { HealthPolicy } from '../../schemas/state-store/state-store.ts';
import { byPartition } from '../apply-in-log-order.ts';
import { projectBillingLine } from '../billing/project-billing-line.ts';
import type { PriceSource } from '../control-plane/consumer-control-plane.ts';
import { createHealthConsumer } from '../health/health-consumer.ts';
import type { ConsumerStateStore } from '../start-consumer-pipeline.ts';
import type { ConsumedTrafficEvent } from '../traffic-consumer.ts';

/** What the fold writes to and prices with. */
export interface TrafficStateFoldDeps {
  /** The store being rebuilt (only addSpendBatch and the health writes are used). */
  readonly state: ConsumerStateStore;
  /** The budget windows being rebuilt (only addBudgetSpendBatch is used); none: not rebuilt. */
  readonly budgets?: Pick<BudgetLedger, 'addBudgetSpendBatch'>;
  /**
   * Prices as of each event's revision, from a control-plane fold that has read the whole config
   * topic; `priceRevision()` is how many PriceSet events it applied.
   */
  readonly prices: Pick<PriceSource, 'bookFor'> & { priceRevision(): number };
  /** As the health consumer's (default DEFAULT_HEALTH_POLICY). */
  readonly policy?: HealthPolicy;
  /** Told about skipped events (invalid observations, events naming a price revision the config topic does not hold). */
  readonly onWarning?: (message: string) => void;
}

/** Folds one batch of traffic events (any topics, each partition in offset order) into the store. */
export type TrafficStateFold = (events: ReadonlyArray<ConsumedTrafficEvent>) => Promise<void>;

/**
 * Creates the fold. Each call applies its batch's spend (one addSpendBatch per partition) and
 * health (the health consumer's handleBatch) and resolves once the store has them.
 * @throws the store's errors (a RangeError when a counter would overflow 64 bits)
 */
export function createTrafficStateFold(deps: TrafficStateFoldDeps): TrafficStateFold {
  let warnedRevision = false;
  const warnOnce = (message: string): void => {
    if (warnedRevision) return;
    warnedRevision = true;
    deps.onWarning?.(message);
  };
  const health = createHealthConsumer({
    state: deps.state,
    ...(deps.policy ? { policy: deps.policy } : {}),
    ...(deps.onWarning ? { onWarning: deps.onWarning } : {}),
  });
  return async (events) => {
    const increments: SpendIncrement[] = [];
    const budgetIncrements: BudgetSpendIncrement[] = [];
    for (const item of events) {
      if (item.type !== 'UsageRecorded') continue;
      const costNanoUsd = costOf(item.event, deps.prices, warnOnce);
      if (costNanoUsd > 0n)
        increments.push({ position: item.position, keyId: item.event.keyId, userId: item.event.userId, costNanoUsd });
      if (deps.budgets) budgetIncrements.push(...budgetSpendIncrements(item.event, item.position, costNanoUsd));
    }
    // Budget windows first, as the billing consumer does (the snapshot cuts at the spend watermark).
    const ledger = deps.budgets;
    if (ledger && budgetIncrements.length > 0) {
      const nowMs = Date.now();
      await Promise.all(
        [...byPartition(budgetIncrements).values()].map((partition) => ledger.addBudgetSpendBatch(partition, nowMs)),
      );
    }
    await Promise.all([...byPartition(increments).values()].map((partition) => deps.state.addSpendBatch(partition)));
    await health.handleBatch(events);
  };
}

/** The event's cost in nano-USD, as billing computes it; `warn` is told when its price revision is not in the config topic. */
function costOf(event: UsageRecorded, prices: TrafficStateFoldDeps['prices'], warn: (message: string) => void): bigint {
  if (event.priceRevision !== null && event.priceRevision > prices.priceRevision()) {
    warn(
      `state rebuild: event ${event.eventId} names price revision ${event.priceRevision}, the config topic holds ${prices.priceRevision()}: priced with the book it holds`,
    );
  }
  return projectBillingLine(event, prices.bookFor(event.priceRevision, event.occurredAt)).costNanoUsd;
}
