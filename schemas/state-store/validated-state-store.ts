/**
 * The part of the StateStore contract (state-store.ts) that is the same for every engine: input
 * checks, defaults, and `addSpend` as a batch of one. An adapter implements a StateStoreEngine
 * — the writes and reads on its engine, handed only inputs that passed the checks — and
 * `validatedStateStore` turns it into the StateStore.
 */
import { assertValidObservation, assertValidPolicy } from './fold-channel-health.ts';
import { assertSpendBatch } from './spend-increment.ts';
import {
  DEFAULT_HEALTH_POLICY,
  type ChannelHealth,
  type ChannelObservation,
  type HealthPolicy,
  type SpendIncrement,
  type StateStore,
} from './state-store.ts';

/** An engine's side of a StateStore: the methods of the contract with their inputs already checked and defaulted. */
export interface StateStoreEngine extends Pick<StateStore, 'getSpend' | 'close'> {
  /** StateStore.addSpendBatch for increments that passed assertSpendBatch (one partition, in offset order). */
  addSpendBatch(increments: ReadonlyArray<SpendIncrement>): Promise<number>;
  /** StateStore.recordChannelObservation for a valid observation and policy (assertValidObservation, assertValidPolicy). */
  recordChannelObservation(observation: ChannelObservation, policy: HealthPolicy): Promise<boolean>;
  /** StateStore.getChannelHealth with `now` given, ms since epoch. */
  getChannelHealth(channelIds: ReadonlyArray<string>, now: number): Promise<ChannelHealth[]>;
}

/**
 * The StateStore over `engine`: rejects malformed spend batches, observations and policies with
 * RangeError before the engine sees them, defaults the health policy to DEFAULT_HEALTH_POLICY
 * and `now` to Date.now(), and applies `addSpend` as a batch of one (true when it was applied).
 */
export function validatedStateStore(engine: StateStoreEngine): StateStore {
  const addSpendBatch = async (increments: ReadonlyArray<SpendIncrement>): Promise<number> => {
    assertSpendBatch(increments);
    return engine.addSpendBatch(increments);
  };
  return {
    addSpend: async (position, keyId, userId, costNanoUsd) =>
      (await addSpendBatch([{ position, keyId, userId, costNanoUsd }])) === 1,
    addSpendBatch,
    getSpend: (keyId, userId) => engine.getSpend(keyId, userId),
    async recordChannelObservation(observation, policy = DEFAULT_HEALTH_POLICY) {
      assertValidObservation(observation);
      assertValidPolicy(policy);
      return engine.recordChannelObservation(observation, policy);
    },
    getChannelHealth: (channelIds, now = Date.now()) => engine.getChannelHealth(channelIds, now),
    close: () => engine.close(),
  };
}
