/**
 * The consumer side of Tollgate in one call: applies ClickHouse migrations, then runs the
 * ledger (consumption_log), billing (billing_lines, spend views, spend counters) and health
 * (channel health in the state store) consumers. Used by `npm run consumers` and, in embedded
 * mode, inside the gateway process.
 */
import type { AnalyticsStore } from '../schemas/analytics/analytics-store.ts';
import { migrate } from '../schemas/analytics/migrate.ts';
import type { Price } from '../schemas/billing/price-book.ts';
import type { EventLog } from '../schemas/event-log/event-log.ts';
import type { StateStore } from '../schemas/state-store/state-store.ts';
import { createBillingConsumer } from './billing/billing-consumer.ts';
import { createHealthConsumer } from './health/health-consumer.ts';
import { createLedgerConsumer } from './ledger/ledger-consumer.ts';
import { runConsumers, type ConsumerLog, type RunningConsumers } from './run-consumers.ts';

/** What the pipeline runs on. */
export interface ConsumerPipelineDeps {
  readonly eventLog: EventLog;
  readonly state: StateStore;
  readonly analytics: AnalyticsStore;
  readonly prices: ReadonlyArray<Price>;
  readonly log: ConsumerLog;
  /** Max records per batch (default 500). */
  readonly maxBatchSize?: number;
  /** Consumer group prefix (default `tollgate.`); a fresh one replays every topic. */
  readonly groupPrefix?: string;
}

/** Migrates, then starts the three consumers. */
export async function startConsumerPipeline(deps: ConsumerPipelineDeps): Promise<RunningConsumers> {
  const applied = await migrate(deps.analytics);
  if (applied.length > 0) deps.log('info', 'applied ClickHouse migrations', { applied });
  const onWarning = (message: string): void => deps.log('warn', message);
  const prices = [...deps.prices];
  return runConsumers(deps.eventLog, [
    createLedgerConsumer({ analytics: deps.analytics, prices, onWarning }),
    createBillingConsumer({ analytics: deps.analytics, state: deps.state, prices, onWarning }),
    createHealthConsumer({ state: deps.state }),
  ], deps.log, deps.maxBatchSize, deps.groupPrefix);
}
