/**
 * The ledger consumer: RequestCompleted events (topic `tollgate.requests`) → `consumption_log`,
 * one row per request, one insert per batch, each row stamped with the time it was ingested and
 * costed like billing: the price book as of the event's `priceRevision`, at its `occurredAt`.
 * Idempotent: consumption_log is a ReplacingMergeTree keyed by event_id, so a redelivered batch
 * replaces its own rows (counts read with FINAL).
 */
import type { AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import { TABLES } from '../../schemas/analytics/tables.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { analyticsConsumerOf, type TrafficConsumer } from '../traffic-consumer.ts';
import { awaitPriceRevisions } from '../billing/await-price-revisions.ts';
import { reportUnpriced } from '../billing/report-unpriced.ts';
import type { PriceSource } from '../control-plane/consumer-control-plane.ts';
import { projectConsumptionRow } from './project-consumption-row.ts';

/** What the ledger needs. */
export interface LedgerConsumerDeps {
  /** Migrated analytics store (consumption_log exists). */
  readonly analytics: AnalyticsStore;
  /** Prices as of each event's revision (the consumers' control-plane fold). */
  readonly prices: PriceSource;
  /** Longest wait for the config topic to reach an event's price revision, ms (default 10 000). */
  readonly priceWaitMs?: number;
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
  return analyticsConsumerOf('ledger', TOPICS.requests, 'RequestCompleted', async (completed) => {
    const requests = completed.map(({ event }) => event);
    await awaitPriceRevisions(deps.prices, requests, deps.priceWaitMs);
    const ingestedAt = (deps.now ?? Date.now)();
    const projections = requests.map((event) =>
      projectConsumptionRow(event, deps.prices.bookFor(event.priceRevision, event.occurredAt), ingestedAt),
    );
    await deps.analytics.insert(
      TABLES.consumptionLog,
      projections.map((projection) => projection.row),
    );
    reportUnpriced(
      projections.map((projection) => projection.warning),
      deps.onWarning,
    );
  });
}
