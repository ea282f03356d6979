/**
 * The billing consumer: UsageRecorded events (topic `tollgate.usage`) → `billing_lines` in the
 * analytics store (the spend views read them), then the per-key and per-user spend counters in
 * the state store (quota checks). Exactly-once effect under redelivery: billing_lines is a
 * ReplacingMergeTree keyed by event_id (read with FINAL) and `addSpend` applies an event id once.
 */
import type { AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import type { Price } from '../../schemas/billing/price-book.ts';
import type { UsageRecorded } from '../../schemas/events/traffic-events.ts';
import type { StateStore } from '../../schemas/state-store/state-store.ts';
import { TOPICS } from '../../schemas/topics.ts';
import type { TrafficConsumer } from '../traffic-consumer.ts';
import { projectBillingLine } from './project-billing-line.ts';
import { reportUnpriced } from './report-unpriced.ts';

/** What billing needs. */
export interface BillingConsumerDeps {
  /** Migrated analytics store (billing_lines exists). */
  readonly analytics: AnalyticsStore;
  /** Only `addSpend` is used. */
  readonly state: Pick<StateStore, 'addSpend'>;
  /** The price book (USD/MTok parsed to nano-USD). */
  readonly prices: ReadonlyArray<Price>;
  /** Told, once per batch and cause, about requests that used tokens but had no price (costed at 0). */
  readonly onWarning?: (message: string) => void;
}

/**
 * Creates the billing consumer (name `billing`, group `tollgate.billing`). handleBatch ignores
 * other event types; it inserts the batch's lines first and only then adds each non-zero cost to
 * the spend counters, so a failure at either step rejects and the redelivered batch completes
 * the rest without counting anything twice.
 */
export function createBillingConsumer(deps: BillingConsumerDeps): TrafficConsumer {
  return {
    name: 'billing',
    topics: [TOPICS.usage],
    async handleBatch(events) {
      const usage: UsageRecorded[] = [];
      for (const item of events) if (item.type === 'UsageRecorded') usage.push(item.event);
      if (usage.length === 0) return;
      const projections = usage.map((event) => projectBillingLine(event, deps.prices));
      await deps.analytics.insert(
        'billing_lines',
        projections.map((projection) => projection.line),
      );
      // Concurrent: the Redis adapter pipelines them; each is idempotent by event id, so order is irrelevant.
      await Promise.all(
        usage.map((event, i) => {
          const cost = projections[i]?.costNanoUsd ?? 0n;
          return cost > 0n ? deps.state.addSpend(event.eventId, event.keyId, event.userId, cost) : false;
        }),
      );
      reportUnpriced(
        projections.map((projection) => projection.warning),
        deps.onWarning,
      );
    },
  };
}
