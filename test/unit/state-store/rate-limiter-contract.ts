/**
 * The RateLimiter contract (schemas/state-store/rate-limiter.ts), one suite every adapter runs
 * (memory and Redis in rate-limiter.test.ts, the Redis Cluster in
 * test/integration/state-store/redis-cluster.test.ts): GCRA with a one-minute burst,
 * all-or-nothing over scopes, settlement, exactness for limits that do not divide 60 000,
 * concurrency exactness across two limiter instances sharing one state, and, for an adapter other
 * than memory, identical admissions to the memory adapter on a pseudo-random history.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isNeverAdmissible } from '../../../schemas/state-store/gcra-rate-limit.ts';
import { createMemoryRateLimiter } from '../../../infra/state-store/memory/memory-rate-limiter.ts';
import type { LimitScope, RateLimiter } from '../../../schemas/state-store/rate-limiter.ts';

/** The instant the tests run at (ms since epoch). */
export const T0 = 1_700_000_000_000;

/** Makes `count` limiters sharing one fresh state (Redis: separate connections, like separate nodes) and the key prefix they use. */
export type LimiterFactory = (count: number) => { limiters: RateLimiter[]; prefix: string };

const key = (rpm: number | null, tpm: number | null = null, scope = 'key:k1'): LimitScope => ({ scope, rpm, tpm });

/** Registers the contract suite of one adapter; `make` is called inside the tests only. */
export function describeRateLimiterContract(adapter: string, make: LimiterFactory): void {
  describe(`RateLimiter contract: ${adapter}`, () => {
    const open: RateLimiter[] = [];
    const fresh = (count = 1): RateLimiter[] => {
      const { limiters } = make(count);
      open.push(...new Set(limiters));
      return limiters;
    };
    const one = (): RateLimiter => fresh(1)[0] as RateLimiter;
    afterEach(async () => {
      await Promise.all(open.splice(0).map((l) => l.close()));
    });

    it('admits a full burst of rpm at one instant, then refuses with the GCRA wait', async () => {
      const limiter = one();
      const states = [];
      for (let i = 0; i < 3; i++) {
        const admission = await limiter.admit([key(3)], 0, T0);
        expect(admission.allowed).toBe(true);
        states.push(admission.states[0]);
      }
      expect(states).toEqual([
        { scope: 'key:k1', kind: 'requests', limit: 3, remaining: 2, resetMs: 20_000 },
        { scope: 'key:k1', kind: 'requests', limit: 3, remaining: 1, resetMs: 40_000 },
        { scope: 'key:k1', kind: 'requests', limit: 3, remaining: 0, resetMs: 60_000 },
      ]);
      const refused = await limiter.admit([key(3)], 0, T0 + 5_000);
      expect(refused).toEqual({
        allowed: false,
        retryAfterMs: 15_000,
        refusedBy: { scope: 'key:k1', kind: 'requests', neverAdmissible: false },
        states: [{ scope: 'key:k1', kind: 'requests', limit: 3, remaining: 0, resetMs: 55_000 }],
      });
      expect((await limiter.admit([key(3)], 0, T0 + 19_999)).allowed).toBe(false);
      expect((await limiter.admit([key(3)], 0, T0 + 20_000)).allowed).toBe(true);
    });

    it('is exact when the limit does not divide a minute (rpm = 7)', async () => {
      const limiter = one();
      for (let i = 0; i < 7; i++) expect((await limiter.admit([key(7)], 0, T0)).allowed).toBe(true);
      const refused = await limiter.admit([key(7)], 0, T0);
      expect(refused.allowed).toBe(false);
      expect(refused.retryAfterMs).toBe(8_572); // ceil(60000 / 7)
      expect((await limiter.admit([key(7)], 0, T0 + 8_571)).retryAfterMs).toBe(1);
      const again = await limiter.admit([key(7)], 0, T0 + 8_572);
      expect(again.allowed).toBe(true);
      expect(again.states[0]).toMatchObject({ remaining: 0, resetMs: 60_000 });
    });

    it('charges every scope or none (a refusing user scope leaves the key scope untouched)', async () => {
      const limiter = one();
      const scopes = [key(null, null, 'user:u1'), key(10, 1_000), { scope: 'user:u1', rpm: 1, tpm: null }];
      expect((await limiter.admit(scopes, 100, T0)).allowed).toBe(true);
      const refused = await limiter.admit(scopes, 100, T0);
      expect(refused).toMatchObject({
        allowed: false,
        retryAfterMs: 60_000,
        refusedBy: { scope: 'user:u1', kind: 'requests' },
      });
      const keyOnly = await limiter.admit([key(10, 1_000)], 100, T0);
      expect(keyOnly.states).toEqual([
        { scope: 'key:k1', kind: 'requests', limit: 10, remaining: 8, resetMs: 12_000 },
        { scope: 'key:k1', kind: 'tokens', limit: 1_000, remaining: 800, resetMs: 12_000 },
      ]);
    });

    it('refuses on tokens with the longest wait among refusing scopes', async () => {
      const limiter = one();
      const scopes = [key(100, 1_000), key(100, 2_000, 'user:u1')];
      expect((await limiter.admit(scopes, 600, T0)).allowed).toBe(true);
      const refused = await limiter.admit(scopes, 600, T0);
      // key: 1200 tokens ahead of a 1000 burst → 200 tokens × 60 ms; the user (2000) admits.
      expect(refused).toMatchObject({
        allowed: false,
        retryAfterMs: 12_000,
        refusedBy: { scope: 'key:k1', kind: 'tokens' },
      });
      expect(refused.states.map((s) => s.remaining)).toEqual([99, 400, 99, 1_400]);
    });

    it('refuses a request larger than the whole burst as never admissible', async () => {
      const limiter = one();
      const refused = await limiter.admit([key(100, 1_000)], 1_001, T0);
      expect(refused).toMatchObject({
        allowed: false,
        retryAfterMs: 60_000,
        refusedBy: { scope: 'key:k1', kind: 'tokens', neverAdmissible: true },
      });
      expect(isNeverAdmissible(refused)).toBe(true);
      expect((await limiter.admit([key(0)], 0, T0)).allowed).toBe(false);
      const ok = await limiter.admit([key(100, 1_000)], 1_000, T0);
      expect(ok.allowed).toBe(true);
      expect(isNeverAdmissible(ok)).toBe(false);
    });

    it('settles: a release frees tokens, never more than a full burst; excess usage becomes debt', async () => {
      const limiter = one();
      const scopes = [key(100, 1_000)];
      expect((await limiter.admit(scopes, 800, T0)).allowed).toBe(true);
      expect((await limiter.admit(scopes, 800, T0)).allowed).toBe(false);
      await limiter.settle(scopes, 800, 100, T0);
      expect((await limiter.admit(scopes, 800, T0)).allowed).toBe(true); // 100 + 800 ≤ 1000
      await limiter.settle(scopes, 900, 0, T0); // releasing more than is held cannot bank credit
      expect((await limiter.admit(scopes, 1_000, T0)).allowed).toBe(true);
      expect((await limiter.admit(scopes, 1, T0)).allowed).toBe(false);
      // A replenished cell, then 1500 tokens used beyond the reservation: 90 s of debt.
      await limiter.settle(scopes, 0, 1_500, T0 + 60_000);
      expect(await limiter.admit(scopes, 0, T0 + 60_000)).toMatchObject({ allowed: false, retryAfterMs: 30_000 });
      expect(await limiter.admit(scopes, 600, T0 + 60_000)).toMatchObject({ allowed: false, retryAfterMs: 66_000 }); // (1500 + 600 − 1000) × 60 ms
      expect((await limiter.admit(scopes, 0, T0 + 90_000)).allowed).toBe(true);
    });

    it('treats null limits as unlimited and validates counts', async () => {
      const limiter = one();
      expect(await limiter.admit([key(null, null)], 10_000_000, T0)).toEqual({
        allowed: true,
        retryAfterMs: 0,
        states: [],
      });
      await expect(limiter.admit([key(1)], -1, T0)).rejects.toThrow(RangeError);
      await expect(limiter.admit([key(1.5)], 0, T0)).rejects.toThrow(RangeError);
      await expect(limiter.settle([key(1, 10)], 0, -3, T0)).rejects.toThrow(RangeError);
    });

    it('converts a cell when its limit changes (TAT rounded up to the next ms)', async () => {
      const limiter = one();
      await limiter.admit([key(7)], 0, T0);
      await limiter.admit([key(7)], 0, T0); // TAT = T0 + 17142.857…
      const after = await limiter.admit([key(3)], 0, T0);
      expect(after.states[0]).toEqual({ scope: 'key:k1', kind: 'requests', limit: 3, remaining: 1, resetMs: 37_143 });
    });

    it('admits exactly rpm of 200 concurrent admissions through two instances', async () => {
      const [a, b] = fresh(2) as [RateLimiter, RateLimiter];
      const results = await Promise.all(
        Array.from({ length: 200 }, (_, i) => (i % 2 === 0 ? a : b).admit([key(50, 1_000_000, 'key:hot')], 10, T0)),
      );
      expect(results.filter((r) => r.allowed)).toHaveLength(50);
      const remaining = results
        .filter((r) => r.allowed)
        .map((r) => r.states[0]?.remaining)
        .sort((x, y) => (x ?? 0) - (y ?? 0));
      expect(remaining).toEqual(Array.from({ length: 50 }, (_, i) => i)); // each admission saw a distinct state
    });
  });
  if (adapter === 'memory') return;

  describe(`RateLimiter ${adapter} agrees with memory`, () => {
    it(`memory and ${adapter} give identical admissions on a pseudo-random history`, async () => {
      const memory = createMemoryRateLimiter();
      const redis = make(1).limiters[0] as RateLimiter;
      let seed = 11;
      const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const limits = [7, 13, 60, 999];
      let now = T0;
      try {
        for (let i = 0; i < 150; i++) {
          now += Math.floor(random() * 3_000);
          const scopes = [0, 1].map((s) => ({
            scope: `s${s}`,
            rpm: limits[Math.floor(random() * 2)] as number,
            tpm: limits[2 + Math.floor(random() * 2)] as number,
          }));
          const tokens = Math.floor(random() * 400);
          if (random() < 0.3) {
            const actual = Math.floor(random() * 600);
            await Promise.all([memory.settle(scopes, tokens, actual, now), redis.settle(scopes, tokens, actual, now)]);
            continue;
          }
          expect(await redis.admit(scopes, tokens, now)).toEqual(await memory.admit(scopes, tokens, now));
        }
      } finally {
        await Promise.all([memory.close(), redis.close()]);
      }
    });
  });
}
