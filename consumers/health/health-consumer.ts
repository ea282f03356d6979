/**
 * The health consumer: folds RequestCompleted and FailoverOccurred events into per-channel health
 * in the state store (error rate over a sliding window, latency EWMA, consecutive failures,
 * cooldowns), which gateways read to skip or de-weight channels. Which event says what:
 * project-channel-observations.ts. Idempotent by construction: every observation carries its
 * record's log position and the store applies each position once (a watermark per partition), so
 * a redelivered batch or a replayed topic, however old, changes nothing.
 */
import {
  DEFAULT_HEALTH_POLICY,
  type ChannelObservation,
  type HealthPolicy,
  type StateStore,
} from '../../schemas/state-store/state-store.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { applyInLogOrder, byPartition } from '../apply-in-log-order.ts';
import type { ConsumedTrafficEvent, TrafficConsumer } from '../traffic-consumer.ts';
import { projectChannelObservations } from './project-channel-observations.ts';

/** An observation skipped as invalid: the store's RangeError message. */
export interface SkippedObservation {
  readonly eventId: string;
  readonly message: string;
}

/**
 * One call for the observations of one partition, for a store reached through messages (the
 * embedded server's consumer thread, infra/processes/consumer-state-over-port.ts), where one
 * call per observation would cost a round trip each.
 */
export interface ObservationBatchWriter {
  /**
   * Applies `observations` (one partition's, in offset order) as recordChannelObservation would one
   * by one: an invalid one (RangeError) is skipped and returned; any other failure stops there (the
   * later ones are not applied) and rejects.
   */
  recordChannelObservationsInOrder(
    observations: ReadonlyArray<ChannelObservation>,
    policy: HealthPolicy,
  ): Promise<SkippedObservation[]>;
}

/** What the health consumer writes to, and the policy it folds with (default DEFAULT_HEALTH_POLICY). */
export interface HealthConsumerDeps {
  /** The store; its recordChannelObservationsInOrder, when it has one, is used instead of one call per observation. */
  readonly state: Pick<StateStore, 'recordChannelObservation'> & Partial<ObservationBatchWriter>;
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
      const warn = (skipped: SkippedObservation): void =>
        deps.onWarning?.(`health: skipped event ${skipped.eventId}: ${skipped.message}`);
      const { state } = deps;
      if (state.recordChannelObservationsInOrder) {
        const inOrder = state.recordChannelObservationsInOrder.bind(state);
        await Promise.all(
          [...byPartition(observations).values()].map(async (partition) =>
            (await inOrder(partition, policy)).forEach(warn),
          ),
        );
        return;
      }
      await applyInLogOrder(observations, async (observation) => {
        const skipped = await recordOrSkip(state, observation, policy);
        if (skipped) warn(skipped);
      });
    },
  };
}

/**
 * recordChannelObservation, with an invalid observation (the store's RangeError) skipped and
 * described instead of thrown. @throws any other error of the store
 */
async function recordOrSkip(
  state: Pick<StateStore, 'recordChannelObservation'>,
  observation: ChannelObservation,
  policy: HealthPolicy,
): Promise<SkippedObservation | undefined> {
  try {
    await state.recordChannelObservation(observation, policy);
    return undefined;
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    return { eventId: observation.eventId, message: error.message };
  }
}

/**
 * ObservationBatchWriter.recordChannelObservationsInOrder over one recordChannelObservation call per
 * observation, for a store without a batch call of its own (what the consumer thread's state port
 * serves). @throws the first error of the store that is not a RangeError; later observations are not applied
 */
export async function recordChannelObservationsOneByOne(
  state: Pick<StateStore, 'recordChannelObservation'>,
  observations: ReadonlyArray<ChannelObservation>,
  policy: HealthPolicy,
): Promise<SkippedObservation[]> {
  const skipped: SkippedObservation[] = [];
  for (const observation of observations) {
    const result = await recordOrSkip(state, observation, policy);
    if (result) skipped.push(result);
  }
  return skipped;
}
