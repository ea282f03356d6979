/**
 * The one behaviour suite every StateStore adapter must pass (memory in test/unit, Redis in
 * test/integration). `makeStore` returns a fresh, empty store per test.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { foldChannelHealth, NEUTRAL_CHANNEL_HEALTH_STATE } from '../../../schemas/state-store/fold-channel-health.ts';
import type {
  ChannelObservation,
  HealthPolicy,
  LogPosition,
  StateStore,
} from '../../../schemas/state-store/state-store.ts';

const POLICY: HealthPolicy = { windowMs: 60_000, failureThreshold: 3, cooldownMs: 30_000, latencyAlpha: 0.2 };
const T0 = 1_700_000_000_000;

/** The log position of offset `offset` in `partition` of `topic` (default tollgate.usage, partition 0). */
export function pos(offset: number, partition = 0, topic = 'tollgate.usage'): LogPosition {
  return { topic, partition, offset: String(offset) };
}

let eventSeq = 0;
/** An observation with a fresh event id and the next offset of tollgate.requests partition 0 (unless given). */
export function obs(
  channelId: string,
  at: number,
  ok: boolean,
  extra: Partial<ChannelObservation> = {},
): ChannelObservation {
  eventSeq += 1;
  return {
    eventId: `ev-${eventSeq}-${Math.random().toString(36).slice(2)}`,
    position: pos(eventSeq, 0, 'tollgate.requests'),
    channelId,
    at,
    ok,
    latencyMs: 100,
    ...extra,
  };
}

/** Registers the shared suite for one adapter. */
export function describeStateStoreContract(adapter: string, makeStore: () => Promise<StateStore>): void {
  describe(`StateStore contract: ${adapter}`, () => {
    const open: StateStore[] = [];
    const fresh = async (): Promise<StateStore> => {
      const store = await makeStore();
      open.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });

    describe('spend', () => {
      it('counts the same record once', async () => {
        const store = await fresh();
        expect(await store.addSpend(pos(1), 'k1', 'u1', 1_500n)).toBe(true);
        expect(await store.addSpend(pos(1), 'k1', 'u1', 1_500n)).toBe(false);
        expect(await store.getSpend('k1', 'u1')).toEqual({ keyNanoUsd: 1_500n, userNanoUsd: 1_500n });
      });

      it('ignores a replay of any earlier offset of the partition, and keeps partitions and topics apart', async () => {
        const store = await fresh();
        for (const offset of [10, 11, 12]) expect(await store.addSpend(pos(offset), 'k1', 'u1', 100n)).toBe(true);
        // a consumer group reset to the earliest offset replays everything, however old
        for (const offset of [10, 11, 12]) expect(await store.addSpend(pos(offset), 'k1', 'u1', 100n)).toBe(false);
        expect(await store.addSpend(pos(3), 'k1', 'u1', 100n)).toBe(false);
        expect(await store.addSpend(pos(3, 1), 'k1', 'u1', 7n)).toBe(true);
        expect(await store.addSpend(pos(3, 0, 'staging.tollgate.usage'), 'k1', 'u1', 1n)).toBe(true);
        expect(await store.addSpend(pos(13), 'k1', 'u1', 100n)).toBe(true);
        expect(await store.getSpend('k1', 'u1')).toEqual({ keyNanoUsd: 408n, userNanoUsd: 408n });
      });

      it('applies a batch of one partition in one step, skipping what it applied before', async () => {
        const store = await fresh();
        const inc = (offset: number, keyId = 'k1', costNanoUsd = 10n) => ({
          position: pos(offset),
          keyId,
          userId: 'u1',
          costNanoUsd,
        });
        expect(await store.addSpendBatch([inc(1), inc(2, 'k2'), inc(5)])).toBe(3);
        expect(await store.addSpendBatch([inc(2), inc(5), inc(6), inc(7, 'k2', 1n)])).toBe(2);
        expect(await store.addSpend(pos(7), 'k2', 'u1', 1n)).toBe(false);
        expect(await store.getSpend('k1', 'u1')).toEqual({ keyNanoUsd: 30n, userNanoUsd: 41n });
        expect(await store.getSpend('k2', null)).toEqual({ keyNanoUsd: 11n, userNanoUsd: 0n });
        expect(await store.addSpendBatch([])).toBe(0);
      });

      it('stops a batch at an overflow, keeping what came before it (and its watermark) and nothing after', async () => {
        const store = await fresh();
        await store.addSpend(pos(1), 'full', null, 2n ** 63n - 1n);
        const batch = [
          { position: pos(2), keyId: 'k1', userId: null, costNanoUsd: 5n },
          { position: pos(3), keyId: 'full', userId: null, costNanoUsd: 1n },
          { position: pos(4), keyId: 'k1', userId: null, costNanoUsd: 7n },
        ];
        await expect(store.addSpendBatch(batch)).rejects.toThrow(RangeError);
        expect((await store.getSpend('k1', null)).keyNanoUsd).toBe(5n);
        // redelivered once the cause is gone: the first is not counted again, the rest are
        await expect(store.addSpendBatch(batch)).rejects.toThrow(RangeError);
        expect(await store.addSpendBatch([batch[0]!, { ...batch[1]!, keyId: 'k3' }, batch[2]!])).toBe(2);
        expect((await store.getSpend('k1', null)).keyNanoUsd).toBe(12n);
      });

      it('refuses a batch that spans partitions or goes backwards, changing nothing', async () => {
        const store = await fresh();
        await expect(
          store.addSpendBatch([
            { position: pos(1), keyId: 'k', userId: null, costNanoUsd: 1n },
            { position: pos(2, 1), keyId: 'k', userId: null, costNanoUsd: 1n },
          ]),
        ).rejects.toThrow(RangeError);
        await expect(
          store.addSpendBatch([
            { position: pos(2), keyId: 'k', userId: null, costNanoUsd: 1n },
            { position: pos(1), keyId: 'k', userId: null, costNanoUsd: 1n },
          ]),
        ).rejects.toThrow(RangeError);
        expect((await store.getSpend('k', null)).keyNanoUsd).toBe(0n);
      });

      it('refuses a malformed log position', async () => {
        const store = await fresh();
        await expect(
          store.addSpend({ topic: 'tollgate.usage', partition: 0, offset: 'x' }, 'k1', null, 1n),
        ).rejects.toThrow(RangeError);
        await expect(store.addSpend({ topic: '', partition: 0, offset: '1' }, 'k1', null, 1n)).rejects.toThrow(
          RangeError,
        );
        await expect(store.addSpend({ topic: 't', partition: -1, offset: '1' }, 'k1', null, 1n)).rejects.toThrow(
          RangeError,
        );
        expect(await store.getSpend('k1', null)).toEqual({ keyNanoUsd: 0n, userNanoUsd: 0n });
      });

      it('sums a user over keys and keeps keys apart', async () => {
        const store = await fresh();
        await store.addSpend(pos(1), 'k1', 'u1', 100n);
        await store.addSpend(pos(2), 'k2', 'u1', 250n);
        await store.addSpend(pos(3), 'k3', null, 7n);
        await store.addSpend(pos(4), 'k1', 'u2', 1n);
        expect(await store.getSpend('k1', 'u1')).toEqual({ keyNanoUsd: 101n, userNanoUsd: 350n });
        expect(await store.getSpend('k2', 'u2')).toEqual({ keyNanoUsd: 250n, userNanoUsd: 1n });
        expect(await store.getSpend('k3', null)).toEqual({ keyNanoUsd: 7n, userNanoUsd: 0n });
        expect(await store.getSpend('nobody', 'none')).toEqual({ keyNanoUsd: 0n, userNanoUsd: 0n });
      });

      it('is exact beyond 2^53 and refuses a 64-bit overflow without changing anything', async () => {
        const store = await fresh();
        await store.addSpend(pos(1), 'k1', 'u1', 2n ** 53n + 1n);
        await store.addSpend(pos(2), 'k1', 'u1', 2n);
        expect(await store.getSpend('k1', 'u1')).toEqual({ keyNanoUsd: 2n ** 53n + 3n, userNanoUsd: 2n ** 53n + 3n });
        await store.addSpend(pos(3), 'k2', 'big', 2n ** 63n - 1n);
        await expect(store.addSpend(pos(4), 'k3', 'big', 1n)).rejects.toThrow(RangeError);
        expect(await store.getSpend('k3', 'big')).toEqual({ keyNanoUsd: 0n, userNanoUsd: 2n ** 63n - 1n });
        // the failed event was not marked applied: it can still count once the cause is gone
        expect(await store.addSpend(pos(4), 'k3', null, 1n)).toBe(true);
        await expect(store.addSpend(pos(5), 'k1', 'u1', -1n)).rejects.toThrow(RangeError);
      });
    });

    describe('channel health', () => {
      it('reports a neutral record for unknown channels, in the order asked', async () => {
        const store = await fresh();
        await store.recordChannelObservation(obs('b', T0, false), POLICY);
        const health = await store.getChannelHealth(['x', 'b'], T0 + 1);
        expect(health).toEqual([
          {
            channelId: 'x',
            errorRate: 0,
            windowCount: 0,
            latencyEwmaMs: 0,
            totalLatencyEwmaMs: 0,
            consecutiveFailures: 0,
            cooldownUntil: 0,
          },
          {
            channelId: 'b',
            errorRate: 1,
            windowCount: 1,
            latencyEwmaMs: 0,
            totalLatencyEwmaMs: 0,
            consecutiveFailures: 1,
            cooldownUntil: 0,
          },
        ]);
        expect(await store.getChannelHealth([], T0)).toEqual([]);
      });

      it('computes the window error rate', async () => {
        const store = await fresh();
        for (const [i, ok] of [true, false, true, true].entries())
          await store.recordChannelObservation(obs('a', T0 + i, ok), POLICY);
        const [a] = await store.getChannelHealth(['a'], T0 + 10);
        expect(a).toMatchObject({ errorRate: 0.25, windowCount: 4, consecutiveFailures: 0 });
      });

      it('folds latency of successes into the EWMA (first sample sets it; ok-with-errorKind and failures do not count)', async () => {
        const store = await fresh();
        await store.recordChannelObservation(obs('a', T0, true, { latencyMs: 100 }), POLICY);
        await store.recordChannelObservation(obs('a', T0 + 1, true, { latencyMs: 200 }), POLICY);
        await store.recordChannelObservation(obs('a', T0 + 2, false, { latencyMs: 9_000 }), POLICY);
        await store.recordChannelObservation(
          obs('a', T0 + 3, true, { latencyMs: 9_000, errorKind: 'upstream-rejected' }),
          POLICY,
        );
        await store.recordChannelObservation(obs('a', T0 + 4, true, { latencyMs: 333.3 }), POLICY);
        const expected = 0.2 * 333.3 + (1 - 0.2) * (0.2 * 200 + (1 - 0.2) * 100);
        const [a] = await store.getChannelHealth(['a'], T0 + 5);
        expect(a?.latencyEwmaMs).toBe(expected);
        expect(a?.latencyEwmaMs).toBeCloseTo(162.66, 9);
      });

      it('folds total times into their own EWMA by the same rules (only successes carrying totalMs count)', async () => {
        const store = await fresh();
        await store.recordChannelObservation(obs('a', T0, true, { latencyMs: 100 }), POLICY); // no totalMs: a ttfb sample only
        await store.recordChannelObservation(obs('a', T0 + 1, true, { latencyMs: 90, totalMs: 2_000 }), POLICY);
        await store.recordChannelObservation(obs('a', T0 + 2, false, { latencyMs: 9_000, totalMs: 9_000 }), POLICY);
        await store.recordChannelObservation(
          obs('a', T0 + 3, true, { latencyMs: 9_000, totalMs: 9_000, errorKind: 'upstream-rejected' }),
          POLICY,
        );
        await store.recordChannelObservation(obs('a', T0 - 50, true, { latencyMs: 1, totalMs: 1 }), POLICY); // out of order
        await store.recordChannelObservation(obs('a', T0 + 4, true, { latencyMs: 110, totalMs: 3_000.5 }), POLICY);
        const [a] = await store.getChannelHealth(['a'], T0 + 5);
        expect(a?.totalLatencyEwmaMs).toBe(0.2 * 3_000.5 + (1 - 0.2) * 2_000);
        expect(a?.latencyEwmaMs).toBe(0.2 * 110 + (1 - 0.2) * (0.2 * 90 + (1 - 0.2) * 100));
        await expect(store.recordChannelObservation(obs('a', T0 + 6, true, { totalMs: -1 }), POLICY)).rejects.toThrow(
          RangeError,
        );
      });

      it('starts a cooldown after failureThreshold consecutive failures, which ends on time', async () => {
        const store = await fresh();
        await store.recordChannelObservation(obs('a', T0, false), POLICY);
        await store.recordChannelObservation(obs('a', T0 + 1, false), POLICY);
        expect((await store.getChannelHealth(['a'], T0 + 2))[0]).toMatchObject({
          consecutiveFailures: 2,
          cooldownUntil: 0,
        });
        await store.recordChannelObservation(obs('a', T0 + 2, false), POLICY);
        expect((await store.getChannelHealth(['a'], T0 + 3))[0]).toMatchObject({
          consecutiveFailures: 3,
          cooldownUntil: T0 + 2 + 30_000,
        });
        await store.recordChannelObservation(obs('a', T0 + 100, false), POLICY);
        expect((await store.getChannelHealth(['a'], T0 + 101))[0]?.cooldownUntil).toBe(T0 + 100 + 30_000);
        expect((await store.getChannelHealth(['a'], T0 + 100 + 30_000))[0]?.cooldownUntil).toBe(0);
      });

      it('counts failures that arrive out of order (events of different requests cross partitions)', async () => {
        const store = await fresh();
        await store.recordChannelObservation(obs('a', T0, true), POLICY);
        for (const at of [T0 + 30, T0 + 10, T0 + 20]) await store.recordChannelObservation(obs('a', at, false), POLICY);
        expect((await store.getChannelHealth(['a'], T0 + 40))[0]).toMatchObject({
          consecutiveFailures: 3,
          cooldownUntil: T0 + 30 + 30_000,
        });
        // A failure older than the last success is history, not a new failure.
        await store.recordChannelObservation(obs('a', T0 - 5, false), POLICY);
        expect((await store.getChannelHealth(['a'], T0 + 40))[0]?.consecutiveFailures).toBe(3);
        // A success older than the newest failure leaves the breaker open; a newer one closes it.
        await store.recordChannelObservation(obs('a', T0 + 25, true), POLICY);
        expect((await store.getChannelHealth(['a'], T0 + 40))[0]?.cooldownUntil).toBe(T0 + 30 + 30_000);
        await store.recordChannelObservation(obs('a', T0 + 35, true), POLICY);
        expect((await store.getChannelHealth(['a'], T0 + 40))[0]).toMatchObject({
          consecutiveFailures: 0,
          cooldownUntil: 0,
        });
      });

      it('honours Retry-After on the first failure, and a success does not end it', async () => {
        const store = await fresh();
        await store.recordChannelObservation(
          obs('a', T0, false, { retryAfterMs: 5_000, errorKind: 'upstream-rate-limited' }),
          POLICY,
        );
        expect((await store.getChannelHealth(['a'], T0 + 1))[0]).toMatchObject({
          consecutiveFailures: 1,
          cooldownUntil: T0 + 5_000,
        });
        await store.recordChannelObservation(obs('a', T0 + 10, true), POLICY);
        expect((await store.getChannelHealth(['a'], T0 + 11))[0]).toMatchObject({
          consecutiveFailures: 0,
          cooldownUntil: T0 + 5_000,
        });
        await store.recordChannelObservation(obs('a', T0 + 20, false, { retryAfterMs: 1_000 }), POLICY);
        expect((await store.getChannelHealth(['a'], T0 + 21))[0]?.cooldownUntil).toBe(T0 + 5_000);
        expect((await store.getChannelHealth(['a'], T0 + 5_000))[0]?.cooldownUntil).toBe(0);
      });

      it('a success resets consecutive failures and ends a failure cooldown', async () => {
        const store = await fresh();
        for (let i = 0; i < 3; i++) await store.recordChannelObservation(obs('a', T0 + i, false), POLICY);
        expect((await store.getChannelHealth(['a'], T0 + 3))[0]?.cooldownUntil).toBe(T0 + 2 + 30_000);
        await store.recordChannelObservation(obs('a', T0 + 5, true), POLICY);
        await store.recordChannelObservation(obs('a', T0 + 6, false), POLICY);
        expect((await store.getChannelHealth(['a'], T0 + 7))[0]).toMatchObject({
          consecutiveFailures: 1,
          cooldownUntil: 0,
          windowCount: 5,
        });
      });

      it('ignores a replay of an observation older than the partition watermark', async () => {
        const store = await fresh();
        const first = obs('a', T0, false);
        const second = obs('a', T0 + 1, false);
        expect(await store.recordChannelObservation(first, POLICY)).toBe(true);
        expect(await store.recordChannelObservation(second, POLICY)).toBe(true);
        expect(await store.recordChannelObservation(first, POLICY)).toBe(false);
        expect((await store.getChannelHealth(['a'], T0 + 2))[0]).toMatchObject({
          windowCount: 2,
          consecutiveFailures: 2,
        });
      });

      it('ignores a duplicate record', async () => {
        const store = await fresh();
        const failure = obs('a', T0, false, { retryAfterMs: 1_000 });
        expect(await store.recordChannelObservation(failure, POLICY)).toBe(true);
        expect(await store.recordChannelObservation(failure, POLICY)).toBe(false);
        expect(await store.recordChannelObservation({ ...failure, at: T0 + 5, retryAfterMs: 99_000 }, POLICY)).toBe(
          false,
        );
        expect((await store.getChannelHealth(['a'], T0 + 1))[0]).toMatchObject({
          windowCount: 1,
          consecutiveFailures: 1,
          cooldownUntil: T0 + 1_000,
        });
      });

      it('lets window entries expire (strictly older than now - windowMs)', async () => {
        const store = await fresh();
        await store.recordChannelObservation(obs('a', T0, false), POLICY);
        await store.recordChannelObservation(obs('a', T0 + 30_000, true), POLICY);
        expect((await store.getChannelHealth(['a'], T0 + 59_999))[0]).toMatchObject({ windowCount: 2, errorRate: 0.5 });
        expect((await store.getChannelHealth(['a'], T0 + 60_000))[0]).toMatchObject({ windowCount: 1, errorRate: 0 });
        expect((await store.getChannelHealth(['a'], T0 + 90_000))[0]).toMatchObject({
          windowCount: 0,
          errorRate: 0,
          latencyEwmaMs: 100,
        });
        await store.recordChannelObservation(obs('a', T0 + 200_000, false), POLICY);
        expect((await store.getChannelHealth(['a'], T0 + 59_999))[0]?.windowCount).toBe(1); // earlier entries trimmed on write
      });

      it('applies an out-of-order observation to the window only (and to Retry-After)', async () => {
        const store = await fresh();
        await store.recordChannelObservation(obs('a', T0 + 10, false), POLICY);
        await store.recordChannelObservation(obs('a', T0 + 5, true, { latencyMs: 50 }), POLICY);
        expect((await store.getChannelHealth(['a'], T0 + 11))[0]).toMatchObject({
          windowCount: 2,
          errorRate: 0.5,
          consecutiveFailures: 1,
          latencyEwmaMs: 0,
        });
        await store.recordChannelObservation(obs('a', T0 + 1, false, { retryAfterMs: 60_000 }), POLICY);
        await store.recordChannelObservation(obs('a', T0 + 2, false), POLICY);
        expect((await store.getChannelHealth(['a'], T0 + 11))[0]).toMatchObject({
          windowCount: 4,
          consecutiveFailures: 1,
          cooldownUntil: T0 + 1 + 60_000,
        });
      });

      it('uses the policy given with the observation', async () => {
        const store = await fresh();
        const strict: HealthPolicy = { windowMs: 1_000, failureThreshold: 1, cooldownMs: 500, latencyAlpha: 1 };
        await store.recordChannelObservation(obs('a', T0, true, { latencyMs: 10 }), strict);
        await store.recordChannelObservation(obs('a', T0 + 1, true, { latencyMs: 30 }), strict);
        await store.recordChannelObservation(obs('a', T0 + 2, false), strict);
        expect((await store.getChannelHealth(['a'], T0 + 3))[0]).toMatchObject({
          latencyEwmaMs: 30,
          cooldownUntil: T0 + 502,
          windowCount: 3,
        });
        expect((await store.getChannelHealth(['a'], T0 + 1_000))[0]?.windowCount).toBe(2);
        await expect(
          store.recordChannelObservation(obs('a', T0, true), { ...strict, failureThreshold: 0 }),
        ).rejects.toThrow(RangeError);
        await expect(store.recordChannelObservation(obs('a', Number.NaN, true), strict)).rejects.toThrow(RangeError);
      });

      it('agrees with the pure fold', async () => {
        const store = await fresh();
        const sequence = [
          obs('a', T0, true, { latencyMs: 80, totalMs: 812.25 }),
          obs('a', T0 + 3, false, { retryAfterMs: 700 }),
          obs('a', T0 + 2, true, { latencyMs: 1, totalMs: 3 }),
          obs('a', T0 + 4, true, { latencyMs: 95.5, totalMs: 1_000.1 }),
        ];
        let state = NEUTRAL_CHANNEL_HEALTH_STATE;
        for (const o of sequence) {
          state = foldChannelHealth(state, o, POLICY);
          await store.recordChannelObservation(o, POLICY);
        }
        const [a] = await store.getChannelHealth(['a'], T0 + 5);
        expect(state.totalLatencyEwmaMs).toBe(0.2 * 1_000.1 + (1 - 0.2) * 812.25);
        expect(a).toEqual({
          channelId: 'a',
          errorRate: 0.25,
          windowCount: 4,
          latencyEwmaMs: state.latencyEwmaMs,
          totalLatencyEwmaMs: state.totalLatencyEwmaMs,
          consecutiveFailures: 0,
          cooldownUntil: T0 + 703,
        });
      });
    });
  });
}
