/**
 * The state-store port: spend counters for quota checks and channel health for
 * routing. Adapters: Redis (ioredis, Lua for atomic idempotent updates; used when REDIS_URL or
 * REDIS_CLUSTER_NODES is set) and in-process memory.
 *
 * Exactly-once effect without time windows: every write carries the log position of the record it
 * comes from (topic, partition, offset). Per partition the store keeps a watermark, the highest
 * offset applied (the Redis adapter keeps one per partition and entity, counter or channel, so
 * that each write stays in one Redis Cluster slot), in the same atomic step as the write; a write
 * at or below the watermark is a redelivery or a replay and changes nothing. Consumers read a
 * partition in offset order, so this is exact however old the replayed records are, and the
 * memory it takes is one small value per partition (and entity), not one per event.
 *
 * Outage: while its engine cannot answer in time, an adapter rejects with
 * StateStoreUnavailableError (state-store-unavailable.ts) within its deadline; the memory adapter never does.
 */

/**
 * Where a record sits in the event log: the topic, the partition and the offset (the adapter's
 * position as a decimal string: a Kafka offset, or a byte position in the embedded file log;
 * compared as numbers, exact below 2^53).
 */
export interface LogPosition {
  readonly topic: string;
  readonly partition: number;
  readonly offset: string;
}

/** Spend of one key or user, in nano-USD (1e-9 USD) as a bigint-safe decimal string. */
export interface SpendTotals {
  readonly keyNanoUsd: bigint;
  readonly userNanoUsd: bigint;
}

/** What one record adds to the spend counters: nano-USD for a key and, when it has one, its user. */
export interface SpendIncrement {
  readonly position: LogPosition;
  readonly keyId: string;
  readonly userId: string | null;
  /** nano-USD, 0..2^63 − 1 */
  readonly costNanoUsd: bigint;
}

/** One observation of a channel: a served request or a failed attempt. */
export interface ChannelObservation {
  readonly eventId: string;
  /** The record the observation comes from: applied once per position (see the module doc). */
  readonly position: LogPosition;
  readonly channelId: string;
  /** ms since epoch */
  readonly at: number;
  readonly ok: boolean;
  /**
   * The latency sample, ms: the time to first byte of a served request (its total time when no
   * byte came earlier than the whole answer), or the time a failed attempt took.
   */
  readonly latencyMs: number;
  /**
   * Total time of a completed request, ms, from its arrival to the end of the answer
   * (RequestCompleted.latencyMs); the sample of `totalLatencyEwmaMs`. Absent when the request did
   * not complete (a failure, a client that left): such an observation leaves that EWMA alone.
   */
  readonly totalMs?: number;
  readonly errorKind?: string;
  /** ms the upstream asked to wait (Retry-After) */
  readonly retryAfterMs?: number;
}

/** What routing knows of a channel. */
export interface ChannelHealth {
  readonly channelId: string;
  /** Failures / observations in the sliding window (0..1); 0 with no observations. */
  readonly errorRate: number;
  /** Observations in the window. */
  readonly windowCount: number;
  /**
   * Exponentially weighted time to first byte of successful calls, ms (0 if none yet): the
   * `latencyMs` samples, which are the time to first byte when the request had one.
   */
  readonly latencyEwmaMs: number;
  /**
   * Exponentially weighted total time of completed requests, ms (0 if none yet): the `totalMs`
   * samples, folded with the same alpha and rules as `latencyEwmaMs`.
   */
  readonly totalLatencyEwmaMs: number;
  readonly consecutiveFailures: number;
  /** Until when (ms since epoch) routing should skip the channel; 0 when not cooling down. */
  readonly cooldownUntil: number;
}

/** Health policy constants (shared by both adapters so they agree exactly). */
export interface HealthPolicy {
  /** Sliding window length, ms. */
  readonly windowMs: number;
  /** Consecutive failures that start a cooldown. */
  readonly failureThreshold: number;
  /** Cooldown length when no Retry-After is given, ms. */
  readonly cooldownMs: number;
  /** EWMA smoothing factor of both latency EWMAs, time to first byte and total (0..1). */
  readonly latencyAlpha: number;
}

export const DEFAULT_HEALTH_POLICY: HealthPolicy = {
  windowMs: 60_000,
  failureThreshold: 3,
  cooldownMs: 30_000,
  latencyAlpha: 0.2,
};

/** The state store. */
export interface StateStore {
  /**
   * Adds `costNanoUsd` to the key's and (when given) the user's spend, unless the spend
   * watermark of `position`'s partition is already at or past its offset; then moves the
   * watermark to it. Returns false for such a redelivered or replayed record, at any age.
   * Calls for one partition must be issued in offset order (both adapters apply them in issue order).
   * Counters are signed 64-bit nano-USD (max 2^63 − 1 ≈ 9.22e9 USD).
   * @throws RangeError when `costNanoUsd` is negative, an id or the offset is malformed, or a
   *   counter would overflow (nothing changes, the watermark included).
   */
  addSpend(position: LogPosition, keyId: string, userId: string | null, costNanoUsd: bigint): Promise<boolean>;
  /**
   * `addSpend` for the increments of ONE partition, in offset order, in one atomic step (one
   * round trip; on a Redis Cluster one atomic step per counter, sent together): each increment at or below the watermark is skipped, the others are added in
   * order and the watermark moves to the last one applied.
   * @returns how many increments were applied
   * @throws RangeError before anything changes when an increment is malformed or the increments
   *   span several partitions or go backwards; RangeError when a counter would overflow — the
   *   increments before that one stay applied (with the watermark at the last of them), the rest not
   */
  addSpendBatch(increments: ReadonlyArray<SpendIncrement>): Promise<number>;
  /** Current spend of a key and its user (0 when unknown). */
  getSpend(keyId: string, userId: string | null): Promise<SpendTotals>;
  /**
   * Folds one observation into the channel's health unless the health watermark of its
   * position's partition is already at or past its offset (then returns false: a redelivery or a
   * replay, at any age), and moves the watermark to it. Issue calls of one partition in offset order. Rules (window, EWMA, cooldowns, out-of-order observations): fold-channel-health.ts.
   * @throws RangeError on a non-finite or negative time/latency or an invalid policy.
   */
  recordChannelObservation(observation: ChannelObservation, policy?: HealthPolicy): Promise<boolean>;
  /**
   * Health of the given channels, in the order given (channels never observed get a neutral
   * record), in one round trip. `now` in ms since epoch (default Date.now()).
   */
  getChannelHealth(channelIds: ReadonlyArray<string>, now?: number): Promise<ChannelHealth[]>;
  close(): Promise<void>;
}
