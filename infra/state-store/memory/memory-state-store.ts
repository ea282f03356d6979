/**
 * The in-process state store (embedded mode, no REDIS_URL): the same semantics as the Redis
 * adapter — the same pure fold (fold-channel-health.ts), the same window bounds, the same 64-bit
 * spend range and the same applied-offset watermarks per partition (applied-watermark.ts), so a
 * replay of any age changes nothing. State lives as long as the process.
 */
import {
  assertValidObservation,
  assertValidPolicy,
  channelHealthOf,
  foldChannelHealth,
  NEUTRAL_CHANNEL_HEALTH_STATE,
  type ChannelHealthState,
} from '../../../schemas/state-store/fold-channel-health.ts';
import { OutcomeWindow } from './outcome-window.ts';
import { addSpendChecked, assertSpendBatch } from '../../../schemas/state-store/spend-increment.ts';
import { AppliedWatermarks } from '../../../schemas/state-store/applied-watermark.ts';
import { DEFAULT_HEALTH_POLICY, type ChannelHealth, type ChannelObservation, type HealthPolicy, type LogPosition, type SpendIncrement, type SpendTotals, type StateStore } from '../../../schemas/state-store/state-store.ts';

interface ChannelRecord {
  state: ChannelHealthState;
  windowMs: number;
  readonly window: OutcomeWindow;
}

/** Creates an empty in-process StateStore (see state-store.ts for the contract). */
export function createMemoryStateStore(): StateStore {
  const watermarks = new AppliedWatermarks();
  const keySpend = new Map<string, bigint>();
  const userSpend = new Map<string, bigint>();
  const channels = new Map<string, ChannelRecord>();

  const addSpendBatch = async (increments: ReadonlyArray<SpendIncrement>): Promise<number> => {
    assertSpendBatch(increments);
    let applied = 0;
    for (const { position, keyId, userId, costNanoUsd } of increments) {
      if (!watermarks.isNew('spend', position)) continue;
      const keyTotal = addSpendChecked(keySpend.get(keyId) ?? 0n, costNanoUsd);
      const userTotal = userId === null ? 0n : addSpendChecked(userSpend.get(userId) ?? 0n, costNanoUsd);
      watermarks.advance('spend', position);
      keySpend.set(keyId, keyTotal);
      if (userId !== null) userSpend.set(userId, userTotal);
      applied += 1;
    }
    return applied;
  };

  return {
    async addSpend(position: LogPosition, keyId: string, userId: string | null, costNanoUsd: bigint): Promise<boolean> {
      return (await addSpendBatch([{ position, keyId, userId, costNanoUsd }])) === 1;
    },

    addSpendBatch,

    async getSpend(keyId: string, userId: string | null): Promise<SpendTotals> {
      return { keyNanoUsd: keySpend.get(keyId) ?? 0n, userNanoUsd: userId === null ? 0n : (userSpend.get(userId) ?? 0n) };
    },

    async recordChannelObservation(observation: ChannelObservation, policy: HealthPolicy = DEFAULT_HEALTH_POLICY): Promise<boolean> {
      assertValidObservation(observation);
      assertValidPolicy(policy);
      if (!watermarks.isNew('health', observation.position)) return false;
      watermarks.advance('health', observation.position);
      let record = channels.get(observation.channelId);
      if (!record) {
        record = { state: NEUTRAL_CHANNEL_HEALTH_STATE, windowMs: policy.windowMs, window: new OutcomeWindow() };
        channels.set(observation.channelId, record);
      }
      record.state = foldChannelHealth(record.state, observation, policy);
      record.windowMs = policy.windowMs;
      record.window.add(observation.at, !observation.ok, policy.windowMs);
      return true;
    },

    async getChannelHealth(channelIds: ReadonlyArray<string>, now: number = Date.now()): Promise<ChannelHealth[]> {
      return channelIds.map((channelId) => {
        const record = channels.get(channelId);
        if (!record) return channelHealthOf(channelId, NEUTRAL_CHANNEL_HEALTH_STATE, { count: 0, failures: 0 }, now);
        return channelHealthOf(channelId, record.state, record.window.countSince(now, record.windowMs), now);
      });
    },

    async close(): Promise<void> {},
  };
}
