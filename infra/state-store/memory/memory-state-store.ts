/**
 * The in-process state store (embedded mode, no REDIS_URL), with the budget ledger of the same
 * process beside it (`budgets`, memory-budget-ledger.ts, so that one snapshot holds both) and its
 * in-flight registry (`inFlight`, memory-in-flight-registry.ts; never snapshotted): the
 * same semantics as the Redis adapter — the same pure fold (fold-channel-health.ts), the same window bounds, the same 64-bit
 * spend range and the same applied-offset watermarks per partition (applied-watermark.ts), so a
 * replay of any age changes nothing. State lives as long as the process; the embedded server
 * rebuilds it from the event log at start and snapshots it (infra/processes/open-rebuilt-memory-state.ts), through
 * `exportContent`, `markFolded` and a store created from a snapshot's content.
 */
import {
  channelHealthOf,
  foldChannelHealth,
  NEUTRAL_CHANNEL_HEALTH_STATE,
  type ChannelHealthState,
} from '../../../schemas/state-store/fold-channel-health.ts';
import { OutcomeWindow } from './outcome-window.ts';
import { addSpendChecked } from '../../../schemas/state-store/spend-increment.ts';
import { AppliedWatermarks, type WatermarkKind } from '../../../schemas/state-store/applied-watermark.ts';
import type { LogPosition, StateStore } from '../../../schemas/state-store/state-store.ts';
import { validatedStateStore } from '../../../schemas/state-store/validated-state-store.ts';
import { createMemoryBudgetLedger, type MemoryBudgetContent, type MemoryBudgetLedger } from './memory-budget-ledger.ts';
import { createMemoryInFlightRegistry } from './memory-in-flight-registry.ts';
import type { InFlightRegistry } from '../../../schemas/state-store/in-flight-registry.ts';

interface ChannelRecord {
  state: ChannelHealthState;
  windowMs: number;
  readonly window: OutcomeWindow;
}

/** One channel's health as held in memory: the folded state and its sliding window's [at ms, failed] pairs. */
export interface MemoryChannelContent {
  readonly channelId: string;
  readonly state: ChannelHealthState;
  /** The window length last folded with, ms. */
  readonly windowMs: number;
  readonly window: ReadonlyArray<readonly [number, boolean]>;
}

/** Everything the memory store holds: spend counters (nano-USD), channel health and the applied-offset watermarks. */
export interface MemoryStateContent {
  /** key id → spend, nano-USD */
  readonly keySpend: ReadonlyArray<readonly [string, bigint]>;
  /** user id → spend, nano-USD */
  readonly userSpend: ReadonlyArray<readonly [string, bigint]>;
  readonly channels: ReadonlyArray<MemoryChannelContent>;
  /** watermark name (`<kind>:<topic>:<partition>`, applied-watermark.ts) → highest applied offset */
  readonly watermarks: ReadonlyArray<readonly [string, number]>;
  /** The budget ledger's window counters (absent in snapshots written before budgets existed: none). */
  readonly budgets?: MemoryBudgetContent;
}

/** The memory StateStore, plus what rebuilding and snapshotting it need. */
export interface MemoryStateStore extends StateStore {
  /** The process's budget ledger (budget-ledger.ts), in memory beside the spend counters and snapshotted with them. */
  readonly budgets: MemoryBudgetLedger;
  /**
   * The process's in-flight registry (in-flight-registry.ts): the gateway nodes of this process
   * that share this store see each other's in-flight requests through it. Never snapshotted.
   */
  readonly inFlight: InFlightRegistry;
  /** A copy of everything held (taken synchronously, so consistent with the watermarks). */
  exportContent(): MemoryStateContent;
  /**
   * Moves the `kind` watermark of `position`'s partition to it (never back) without changing a
   * counter: the record there was folded and had no effect (an unpriced request, an event that
   * says nothing of a channel). @throws RangeError on a malformed position
   */
  markFolded(kind: WatermarkKind, position: LogPosition): void;
  /** The `kind` watermark of a partition (highest applied offset), or undefined when none. */
  watermarkOf(kind: WatermarkKind, topic: string, partition: number): number | undefined;
  /** How many writes changed something since the store was created (spend increments, observations, budget spend and alert marks applied). */
  changeCount(): number;
}

/**
 * Creates an in-process StateStore (see state-store.ts for the contract): empty, or holding
 * `initial` (a snapshot's content; trusted as given).
 */
export function createMemoryStateStore(initial?: MemoryStateContent): MemoryStateStore {
  const watermarks = new AppliedWatermarks(initial?.watermarks);
  const keySpend = new Map<string, bigint>(initial?.keySpend);
  const userSpend = new Map<string, bigint>(initial?.userSpend);
  const channels = new Map<string, ChannelRecord>(
    (initial?.channels ?? []).map((channel) => [
      channel.channelId,
      { state: channel.state, windowMs: channel.windowMs, window: OutcomeWindow.fromPairs(channel.window) },
    ]),
  );
  const budgets = createMemoryBudgetLedger(initial?.budgets);
  const inFlight = createMemoryInFlightRegistry();
  let changes = 0;

  const store = validatedStateStore({
    async addSpendBatch(increments) {
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
      changes += applied;
      return applied;
    },

    async getSpend(keyId, userId) {
      return {
        keyNanoUsd: keySpend.get(keyId) ?? 0n,
        userNanoUsd: userId === null ? 0n : (userSpend.get(userId) ?? 0n),
      };
    },

    async recordChannelObservation(observation, policy) {
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
      changes += 1;
      return true;
    },

    async getChannelHealth(channelIds, now) {
      return channelIds.map((channelId) => {
        const record = channels.get(channelId);
        if (!record) return channelHealthOf(channelId, NEUTRAL_CHANNEL_HEALTH_STATE, { count: 0, failures: 0 }, now);
        return channelHealthOf(channelId, record.state, record.window.countSince(now, record.windowMs), now);
      });
    },

    async close(): Promise<void> {},
  });

  return {
    ...store,
    budgets,
    inFlight,

    exportContent(): MemoryStateContent {
      return {
        keySpend: [...keySpend],
        userSpend: [...userSpend],
        channels: [...channels].map(([channelId, record]) => ({
          channelId,
          state: record.state,
          windowMs: record.windowMs,
          window: record.window.toPairs(),
        })),
        watermarks: watermarks.entries(),
        budgets: budgets.exportContent(),
      };
    },

    markFolded(kind: WatermarkKind, position: LogPosition): void {
      watermarks.advance(kind, position);
    },

    watermarkOf: (kind, topic, partition) => watermarks.get(kind, topic, partition),

    changeCount: () => changes + budgets.changeCount(),
  };
}
