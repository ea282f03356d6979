/**
 * The runners every consumer pipeline starts with (consumers/start-consumer-pipeline.ts): the
 * ClickHouse migrations (infra/analytics/migrate.ts) and the config-topic follower
 * (infra/control-plane/config-follower.ts). The composition roots hand them to the pipeline,
 * metered, through startMeteredConsumerPipeline.
 */
import type { ConsumerMetrics } from '../../consumers/metrics/consumer-metrics.ts';
import {
  startConsumerPipeline,
  type ConsumerPipelineDeps,
  type ConsumerPipelineRunners,
  type RunningConsumerPipeline,
} from '../../consumers/start-consumer-pipeline.ts';
import { migrate } from '../analytics/migrate.ts';
import { startConfigFollower } from '../control-plane/config-follower.ts';

/** The real migrations and config follower. */
export const CONSUMER_PIPELINE_RUNNERS: ConsumerPipelineRunners = {
  migrate: (analytics) => migrate(analytics),
  startConfigFollower,
};

/**
 * Starts the consumer pipeline (consumers/start-consumer-pipeline.ts) with CONSUMER_PIPELINE_RUNNERS
 * over `deps`, counting every newly billed cost in `metrics` and watching there the lag of the
 * consumer groups it runs.
 * @throws as startConsumerPipeline: the store's error when a migration fails, the event log's when
 *   it cannot subscribe, Error when the config topic's history is not applied in time
 */
export async function startMeteredConsumerPipeline(
  deps: Omit<ConsumerPipelineDeps, 'runners' | 'onCost'>,
  metrics: ConsumerMetrics,
): Promise<RunningConsumerPipeline> {
  const pipeline = await startConsumerPipeline({
    runners: CONSUMER_PIPELINE_RUNNERS,
    ...deps,
    onCost: metrics.recordCost,
  });
  metrics.watchConsumerGroups(deps.eventLog, pipeline.groups);
  return pipeline;
}
