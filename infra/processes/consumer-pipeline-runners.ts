/**
 * The runners every consumer pipeline starts with (consumers/start-consumer-pipeline.ts): the
 * ClickHouse migrations (infra/analytics/migrate.ts) and the config-topic follower
 * (infra/control-plane/config-follower.ts). The composition roots hand them to the pipeline.
 */
import type { ConsumerPipelineRunners } from '../../consumers/start-consumer-pipeline.ts';
import { migrate } from '../analytics/migrate.ts';
import { startConfigFollower } from '../control-plane/config-follower.ts';

/** The real migrations and config follower. */
export const CONSUMER_PIPELINE_RUNNERS: ConsumerPipelineRunners = {
  migrate: (analytics) => migrate(analytics),
  startConfigFollower,
};
