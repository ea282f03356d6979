/**
 * The failovers consumer: FailoverOccurred events (topic `tollgate.failovers`) → the `failovers`
 * table, one row per failed attempt: a failover when `next_channel_id` names the channel tried
 * next, the request's last attempt when it is NULL (README, For analysts: failover rate per channel).
 * Idempotent: the table is a ReplacingMergeTree keyed by event id (read with FINAL).
 */
import type { AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import { TABLES } from '../../schemas/analytics/tables.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { analyticsConsumerOf, type TrafficConsumer } from '../traffic-consumer.ts';
import { projectFailoverRow } from './project-failover-row.ts';

/**
 * Creates the `failovers` consumer (group `tollgate.failovers`); one insert per batch; rejects
 * with the store's error when the insert fails (the batch is redelivered).
 */
export function createFailoverConsumer(deps: { readonly analytics: AnalyticsStore }): TrafficConsumer {
  return analyticsConsumerOf('failovers', TOPICS.failovers, 'FailoverOccurred', (failovers) =>
    deps.analytics.insert(
      TABLES.failovers,
      failovers.map(({ event }) => projectFailoverRow(event)),
    ),
  );
}
