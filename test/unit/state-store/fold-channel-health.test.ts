/**
 * The pure health fold (fold-channel-health.ts) on its own: the two latency EWMAs — time to first
 * byte from `latencyMs`, total time from `totalMs` — their samples and their arithmetic, and state
 * stored before the total-time EWMA existed.
 */
import { describe, expect, it } from 'vitest';
import {
  channelHealthOf,
  foldChannelHealth,
  NEUTRAL_CHANNEL_HEALTH_STATE,
  type ChannelHealthState,
} from '../../../schemas/state-store/fold-channel-health.ts';
import type { ChannelObservation, HealthPolicy } from '../../../schemas/state-store/state-store.ts';

const POLICY: HealthPolicy = { windowMs: 60_000, failureThreshold: 3, cooldownMs: 30_000, latencyAlpha: 0.25 };
const T0 = 1_700_000_000_000;
let offset = 0;
const observation = (at: number, ok: boolean, extra: Partial<ChannelObservation> = {}): ChannelObservation => ({
  eventId: `e-${++offset}`,
  position: { topic: 'tollgate.requests', partition: 0, offset: String(offset) },
  channelId: 'ch',
  at,
  ok,
  latencyMs: 100,
  ...extra,
});
const foldAll = (observations: ChannelObservation[], from: ChannelHealthState = NEUTRAL_CHANNEL_HEALTH_STATE) =>
  observations.reduce((state, o) => foldChannelHealth(state, o, POLICY), from);

describe('foldChannelHealth: latency EWMAs', () => {
  it('folds time to first byte and total time apart, each set by its first sample', () => {
    const state = foldAll([
      observation(T0, true, { latencyMs: 200, totalMs: 4_000 }),
      observation(T0 + 1, true, { latencyMs: 100, totalMs: 2_000 }),
      observation(T0 + 2, true, { latencyMs: 300 }),
    ]);
    expect(state.latencyEwmaMs).toBe(0.25 * 300 + 0.75 * (0.25 * 100 + 0.75 * 200));
    expect(state.totalLatencyEwmaMs).toBe(0.25 * 2_000 + 0.75 * 4_000);
    expect(channelHealthOf('ch', state, { count: 3, failures: 0 }, T0 + 3)).toMatchObject({
      latencyEwmaMs: state.latencyEwmaMs,
      totalLatencyEwmaMs: 3_500,
    });
  });

  it('takes no sample from failures, ok observations carrying an errorKind, or out-of-order observations', () => {
    const start = foldAll([observation(T0 + 10, true, { latencyMs: 50, totalMs: 500 })]);
    const after = foldAll(
      [
        observation(T0 + 11, false, { latencyMs: 9_000, totalMs: 9_000 }),
        observation(T0 + 12, true, { latencyMs: 9_000, totalMs: 9_000, errorKind: 'upstream-rejected' }),
        observation(T0 + 5, true, { latencyMs: 9_000, totalMs: 9_000 }),
      ],
      start,
    );
    expect(after.latencyEwmaMs).toBe(50);
    expect(after.totalLatencyEwmaMs).toBe(500);
    // a failure's fold keeps the total EWMA too
    expect(foldAll([observation(T0 + 20, false)], after).totalLatencyEwmaMs).toBe(500);
  });

  it('reads state stored before the total-time EWMA existed as 0, and starts it from the next sample', () => {
    const stored: ChannelHealthState = {
      latencyEwmaMs: 80,
      consecutiveFailures: 0,
      failureCooldownUntil: 0,
      retryAfterUntil: 0,
      lastAt: T0,
    };
    expect(channelHealthOf('ch', stored, { count: 0, failures: 0 }, T0).totalLatencyEwmaMs).toBe(0);
    expect(foldAll([observation(T0 + 1, false)], stored).totalLatencyEwmaMs).toBe(0);
    const next = foldAll([observation(T0 + 2, true, { latencyMs: 40, totalMs: 1_200 })], stored);
    expect(next).toMatchObject({ latencyEwmaMs: 0.25 * 40 + 0.75 * 80, totalLatencyEwmaMs: 1_200 });
  });
});
