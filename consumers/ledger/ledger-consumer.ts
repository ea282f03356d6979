/**
 * The ledger consumer: RequestCompleted events (topic `tollgate.requests`) → `consumption_log`,
 * one row per request, one insert per batch, each row stamped with the time it was ingested.
 * Idempotent: consumption_log is a ReplacingMergeTree keyed by event_id, so a redelivered batch
 * replaces its own rows (counts read with FINAL).
 */
import type { AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import type { Price } from '../../schemas/billing/price-book.ts';
import type { RequestCompleted } from '../../schemas/events/traffic-events.ts';
import { TOPICS } from '../../schemas/topics.ts';
import type { TrafficConsumer } from '../traffic-consumer.ts';
import { reportUnpriced } from '../billing/report-unpriced.ts';
import { projectConsumptionRow } from './project-consumption-row.ts';

/** What the ledger needs. */
export interface LedgerConsumerDeps {
  /** Migrated analytics store (consumption_log exists). */
  readonly analytics: AnalyticsStore;
  /** The price book (USD/MTok parsed to nano-USD). */
  readonly prices: ReadonlyArray<Price>;
  /** Told, once per batch and cause, about requests that used tokens but had no price: `no price for model "m" on channel "c": 3 request(s) costed at 0`. */
  readonly onWarning?: (message: string) => void;
  /** Wall clock, ms since epoch (default Date.now): read once per batch for the rows' ingested_at_ms. */
  readonly now?: () => number;
}

/**
 * Creates the ledger consumer (name `ledger`, group `tollgate.ledger`). handleBatch stamps every
 * row of a batch with one ingested_at_ms (the clock when it builds the insert), ignores
 * events other than RequestCompleted and rejects with the store's error when the insert fails
 * (the runner then redelivers the batch).
 */
export function createLedgerConsumer(deps: LedgerConsumerDeps): TrafficConsumer {
  return {
    name: 'ledger',
    topics: [TOPICS.requests],
    async handleBatch(events) {
      const requests: RequestCompleted[] = [];
      for (const item of events) if (item.type === 'RequestCompleted') requests.push(item.event);
      if (requests.length === 0) return;
      const ingestedAt = (deps.now ?? Date.now)();
      const projections = requests.map((event) => projectConsumptionRow(event, deps.prices, ingestedAt));
      await deps.analytics.insert(
        'consumption_log',
        projections.map((projection) => projection.row),
      );
      reportUnpriced(
        projections.map((projection) => projection.warning),
        deps.onWarning,
      );
    },
  };
}
