/**
 * The pure health arithmetic both state-store adapters share (the Redis Lua script in
 * redis-health-scripts.ts is a line-by-line transcription of `foldChannelHealth`, so the two
 * adapters agree to the last bit: same IEEE-754 operations in the same order).
 *
 * Rules (all times ms since epoch, from the observation's `at`, never from a local clock):
 * - Ordering (events of different requests arrive through different partitions, so out of order):
 *   failures count toward the cooldown when newer than the last success, whatever their arrival
 *   order; a success resets the count when newer than every counted failure. Only the latency
 *   EWMAs follow arrival order (samples older than the newest observation are skipped).
 * - Former rule, kept for the remaining fields: an observation is "in order" when `at >= lastAt`.
 *   Out-of-order observations still enter the sliding window (counted once per event id) and may
 *   extend a Retry-After cooldown (a max, so order does not matter), but they do NOT touch the
 *   latency EWMAs, the consecutive-failure count or the failure cooldown: those follow the newest
 *   observation only.
 * - Latency EWMAs: only in-order successes without an `errorKind` are latency samples (an ok
 *   observation carrying an errorKind — a request-fault 4xx, a client cancel — says the channel is
 *   fine but its latency says nothing). `latencyEwmaMs` (time to first byte) folds `latencyMs`;
 *   `totalLatencyEwmaMs` (total time) folds `totalMs` when the observation carries one. For each,
 *   the first sample sets the EWMA (while it is 0); later ones fold as
 *   `alpha * sample + (1 - alpha) * ewma`.
 * - Failure cooldown: an in-order failure increments `consecutiveFailures`; when it reaches
 *   `policy.failureThreshold` (and on every further failure) `failureCooldownUntil = max(it,
 *   at + cooldownMs)`. An in-order success resets `consecutiveFailures` to 0 and ends the failure
 *   cooldown (half-open breaker: the channel answered).
 * - Retry-After: any observation with `retryAfterMs > 0` sets `retryAfterUntil = max(it, at +
 *   retryAfterMs)`, even on the first failure; a success never shortens it (the upstream asked).
 * - Reported `cooldownUntil` = max(failureCooldownUntil, retryAfterUntil) when that is after
 *   `now`, else 0.
 * - Window: error rate = failures / observations with `at > now - windowMs` (0 when none).
 */
import { offsetOf } from './applied-watermark.ts';
import type { ChannelHealth, ChannelObservation, HealthPolicy } from './state-store.ts';

/** The per-channel folded state (everything but the sliding window). Times in ms since epoch. */
export interface ChannelHealthState {
  /** Exponentially weighted time to first byte of successful calls, ms (0 before the first sample). */
  readonly latencyEwmaMs: number;
  /**
   * Exponentially weighted total time of completed requests, ms (0 before the first sample; absent
   * in state stored before this field existed, which reads as 0).
   */
  readonly totalLatencyEwmaMs?: number;
  readonly consecutiveFailures: number;
  /** End of the cooldown started by `failureThreshold` consecutive failures; 0 when none. */
  readonly failureCooldownUntil: number;
  /** End of the cooldown an upstream asked for with Retry-After; 0 when none. */
  readonly retryAfterUntil: number;
  /** `at` of the newest observation applied; 0 before the first. */
  readonly lastAt: number;
  /** `at` of the newest success; 0 before the first. */
  readonly lastSuccessAt?: number;
  /** `at` of the newest failure counted since the last success; 0 when none. */
  readonly lastFailureAt?: number;
}

/** State of a channel never observed. */
export const NEUTRAL_CHANNEL_HEALTH_STATE: ChannelHealthState = {
  latencyEwmaMs: 0,
  totalLatencyEwmaMs: 0,
  consecutiveFailures: 0,
  failureCooldownUntil: 0,
  retryAfterUntil: 0,
  lastAt: 0,
  lastSuccessAt: 0,
  lastFailureAt: 0,
};

/** Observations and failures counted in a channel's sliding window at some `now`. */
export interface WindowCounts {
  readonly count: number;
  readonly failures: number;
}

/**
 * Folds one observation into a channel's state (pure; see the module doc for the rules).
 * The caller guarantees each event id is folded at most once and records the observation in the
 * sliding window itself.
 */
export function foldChannelHealth(
  state: ChannelHealthState,
  observation: ChannelObservation,
  policy: HealthPolicy,
): ChannelHealthState {
  const at = observation.at;
  let retryAfterUntil = state.retryAfterUntil;
  const retryAfterMs = observation.retryAfterMs ?? 0;
  if (retryAfterMs > 0) retryAfterUntil = Math.max(retryAfterUntil, at + retryAfterMs);
  const lastAt = Math.max(state.lastAt, at);
  const lastSuccessAt = state.lastSuccessAt ?? 0;
  const lastFailureAt = state.lastFailureAt ?? 0;
  if (observation.ok) {
    const isSample = at >= state.lastAt && (observation.errorKind === undefined || observation.errorKind === '');
    const latencyEwmaMs = isSample
      ? foldEwma(state.latencyEwmaMs, observation.latencyMs, policy.latencyAlpha)
      : state.latencyEwmaMs;
    const totalBefore = state.totalLatencyEwmaMs ?? 0;
    const totalLatencyEwmaMs =
      isSample && observation.totalMs !== undefined
        ? foldEwma(totalBefore, observation.totalMs, policy.latencyAlpha)
        : totalBefore;
    const successAt = Math.max(lastSuccessAt, at);
    // A success newer than every counted failure closes the breaker; an older one leaves the later failures standing.
    if (at >= lastFailureAt)
      return {
        latencyEwmaMs,
        totalLatencyEwmaMs,
        consecutiveFailures: 0,
        failureCooldownUntil: 0,
        retryAfterUntil,
        lastAt,
        lastSuccessAt: successAt,
        lastFailureAt: 0,
      };
    return {
      ...state,
      latencyEwmaMs,
      totalLatencyEwmaMs,
      retryAfterUntil,
      lastAt,
      lastSuccessAt: successAt,
      lastFailureAt,
    };
  }
  // Failures count when newer than the last success, in whatever order they arrive (partitions interleave).
  if (at <= lastSuccessAt) return { ...state, retryAfterUntil, lastAt, lastSuccessAt, lastFailureAt };
  const consecutiveFailures = state.consecutiveFailures + 1;
  const failureAt = Math.max(lastFailureAt, at);
  let failureCooldownUntil = state.failureCooldownUntil;
  if (consecutiveFailures >= policy.failureThreshold)
    failureCooldownUntil = Math.max(failureCooldownUntil, failureAt + policy.cooldownMs);
  return {
    latencyEwmaMs: state.latencyEwmaMs,
    totalLatencyEwmaMs: state.totalLatencyEwmaMs ?? 0,
    consecutiveFailures,
    failureCooldownUntil,
    retryAfterUntil,
    lastAt,
    lastSuccessAt,
    lastFailureAt: failureAt,
  };
}

/**
 * One EWMA step, ms: the first sample sets it (while it is 0), later ones fold as
 * `alpha * sample + (1 - alpha) * ewma` — in this order of IEEE-754 operations, which the Lua
 * script repeats.
 */
function foldEwma(ewma: number, sample: number, alpha: number): number {
  return ewma === 0 ? sample : alpha * sample + (1 - alpha) * ewma;
}

/** What routing sees of a channel at `now` (ms since epoch), from its state and window counts. */
export function channelHealthOf(
  channelId: string,
  state: ChannelHealthState,
  window: WindowCounts,
  now: number,
): ChannelHealth {
  const cooldownUntil = Math.max(state.failureCooldownUntil, state.retryAfterUntil);
  return {
    channelId,
    errorRate: window.count === 0 ? 0 : window.failures / window.count,
    windowCount: window.count,
    latencyEwmaMs: state.latencyEwmaMs,
    totalLatencyEwmaMs: state.totalLatencyEwmaMs ?? 0,
    consecutiveFailures: state.consecutiveFailures,
    cooldownUntil: cooldownUntil > now ? cooldownUntil : 0,
  };
}

/**
 * Checks an observation before it is stored.
 * @throws RangeError when `at`, `latencyMs`, `totalMs` or `retryAfterMs` is not a finite number ≥ 0 or an id is empty.
 */
export function assertValidObservation(observation: ChannelObservation): void {
  if (!observation.eventId || !observation.channelId)
    throw new RangeError('channel observation needs an eventId and a channelId');
  offsetOf(observation.position);
  const numbers: Array<[string, number | undefined]> = [
    ['at', observation.at],
    ['latencyMs', observation.latencyMs],
    ['totalMs', observation.totalMs],
    ['retryAfterMs', observation.retryAfterMs],
  ];
  for (const [name, value] of numbers) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0))
      throw new RangeError(`channel observation ${name} must be a finite number >= 0, got ${value}`);
  }
}

/**
 * Checks a health policy.
 * @throws RangeError when a field is out of range (windowMs, cooldownMs > 0; failureThreshold ≥ 1; alpha in (0, 1]).
 */
export function assertValidPolicy(policy: HealthPolicy): void {
  const ok =
    policy.windowMs > 0 &&
    policy.cooldownMs >= 0 &&
    policy.failureThreshold >= 1 &&
    policy.latencyAlpha > 0 &&
    policy.latencyAlpha <= 1;
  if (!ok) throw new RangeError(`invalid health policy ${JSON.stringify(policy)}`);
}
