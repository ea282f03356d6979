/**
 * The in-process state store (embedded mode, no REDIS_URL): the same semantics as the Redis
 * adapter — the same pure fold (fold-channel-health.ts), the same window bounds, the same 64-bit
 * spend range and the same 7-day memory of applied event ids. State lives as long as the process.
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
import { addSpendChecked, assertSpendIncrement } from '../../../schemas/state-store/spend-increment.ts';
import { DEFAULT_HEALTH_POLICY, type ChannelHealth, type ChannelObservation, type HealthPolicy, type SpendTotals, type StateStore } from '../../../schemas/state-store/state-store.ts';

/** How long an applied event id is remembered, ms (the Redis guard's `EX 604800`). */
export const APPLIED_EVENT_TTL_MS = 604_800_000;

/** Options of the memory store; `clock` (ms since epoch) only ages the applied-event memory. */
export interface MemoryStateStoreOptions {
  readonly clock?: () => number;
}

interface ChannelRecord {
  state: ChannelHealthState;
  windowMs: number;
  readonly window: OutcomeWindow;
}

/** Event ids applied within the last 7 days; Map order is insertion order, so pruning is from the front. */
class AppliedEvents {
  private readonly expiresAt = new Map<string, number>();

  constructor(private readonly clock: () => number) {}

  /** True (and remembered) the first time `eventId` is seen within its TTL. */
  claim(eventId: string): boolean {
    const now = this.clock();
    this.prune(now);
    const expires = this.expiresAt.get(eventId);
    if (expires !== undefined && expires > now) return false;
    this.expiresAt.delete(eventId);
    this.expiresAt.set(eventId, now + APPLIED_EVENT_TTL_MS);
    return true;
  }

  private prune(now: number): void {
    for (const [id, expires] of this.expiresAt) {
      if (expires > now) return;
      this.expiresAt.delete(id);
    }
  }
}

/** Creates an empty in-process StateStore (see state-store.ts for the contract). */
export function createMemoryStateStore(options: MemoryStateStoreOptions = {}): StateStore {
  const clock = options.clock ?? Date.now;
  const appliedSpend = new AppliedEvents(clock);
  const appliedHealth = new AppliedEvents(clock);
  const keySpend = new Map<string, bigint>();
  const userSpend = new Map<string, bigint>();
  const channels = new Map<string, ChannelRecord>();

  return {
    async addSpend(eventId: string, keyId: string, userId: string | null, costNanoUsd: bigint): Promise<boolean> {
      assertSpendIncrement(eventId, keyId, costNanoUsd);
      const keyTotal = addSpendChecked(keySpend.get(keyId) ?? 0n, costNanoUsd);
      const userTotal = userId === null ? 0n : addSpendChecked(userSpend.get(userId) ?? 0n, costNanoUsd);
      if (!appliedSpend.claim(eventId)) return false;
      keySpend.set(keyId, keyTotal);
      if (userId !== null) userSpend.set(userId, userTotal);
      return true;
    },

    async getSpend(keyId: string, userId: string | null): Promise<SpendTotals> {
      return { keyNanoUsd: keySpend.get(keyId) ?? 0n, userNanoUsd: userId === null ? 0n : (userSpend.get(userId) ?? 0n) };
    },

    async recordChannelObservation(observation: ChannelObservation, policy: HealthPolicy = DEFAULT_HEALTH_POLICY): Promise<boolean> {
      assertValidObservation(observation);
      assertValidPolicy(policy);
      if (!appliedHealth.claim(observation.eventId)) return false;
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
