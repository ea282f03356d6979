/**
 * The health consumer: folds RequestCompleted and FailoverOccurred events into per-channel health
 * in the state store (error rate over a sliding window, latency EWMA, consecutive failures,
 * cooldowns), which gateways read to skip or de-weight channels. Which event says what:
 * project-channel-observations.ts. Idempotent by construction: every observation carries its
 * record's log position and the store applies each position once (a watermark per partition), so
 * a redelivered batch or a replayed topic, however old, changes nothing.
 */
import { DEFAULT_HEALTH_POLICY, type HealthPolicy, type StateStore } from '../../schemas/state-store/state-store.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { applyInLogOrder } from '../apply-in-log-order.ts';
import type { ConsumedTrafficEvent, TrafficConsumer } from '../traffic-consumer.ts';
import { projectChannelObservations } from './project-channel-observations.ts';

/** What the health consumer writes to, and the policy it folds with (default DEFAULT_HEALTH_POLICY). */
export interface HealthConsumerDeps {
  readonly state: Pick<StateStore, 'recordChannelObservation'>;
  readonly policy?: HealthPolicy;
  /** Told about events skipped as invalid (the store's RangeError), so one bad event cannot block the topic. */
  readonly onWarning?: (message: string) => void;
}

/**
 * Creates the `health` consumer (group `tollgate.health`) on TOPICS.requests and TOPICS.failovers.
 * `handleBatch` rejects when the store fails (the batch is then redelivered; applied ids are
 * skipped); an invalid observation (RangeError) is skipped with a warning instead.
 */
export function createHealthConsumer(deps: HealthConsumerDeps): TrafficConsumer {
  const policy = deps.policy ?? DEFAULT_HEALTH_POLICY;
  return {
    sink: 'state',
    name: 'health',
    topics: [TOPICS.requests, TOPICS.failovers],
    async handleBatch(events: ReadonlyArray<ConsumedTrafficEvent>): Promise<void> {
      const observations = events.flatMap(projectChannelObservations);
      await applyInLogOrder(observations, (observation) => deps.state.recordChannelObservation(observation, policy).catch((error: unknown) => {
        if (!(error instanceof RangeError)) throw error;
        deps.onWarning?.(`health: skipped event ${observation.eventId}: ${error.message}`);
        return false;
      }));
    },
  };
}
