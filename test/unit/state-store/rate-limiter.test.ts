/**
 * The RateLimiter contract (rate-limiter-contract.ts) on memory and on Redis from REDIS_URL
 * (unique key prefix per run, deleted afterwards; skipped without engines), and the Redis key layout.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryRateLimiter } from '../../../infra/state-store/memory/memory-rate-limiter.ts';
import { describeRateLimiterContract, T0, type LimiterFactory } from './rate-limiter-contract.ts';
import { createRedisRateLimiter } from '../../../infra/state-store/redis/redis-rate-limiter.ts';
import { useRedisTestKeys } from '../../support/redis-test-keys.ts';
import { runnableCases, withoutEngines } from '../../support/engines.ts';

const redisKeys = useRedisTestKeys('rl');
let prefixSeq = 0;

const ADAPTERS: Array<[string, LimiterFactory]> = runnableCases<[string, LimiterFactory]>(
  [
    [
      'memory',
      (count) => {
        const shared = createMemoryRateLimiter({ clock: () => T0 });
        return { limiters: Array.from({ length: count }, () => shared), prefix: '' };
      },
    ],
    [
      'redis',
      (count) => {
        const prefix = `${redisKeys.prefix}${++prefixSeq}:`;
        return {
          limiters: Array.from({ length: count }, () =>
            createRedisRateLimiter({ url: redisKeys.url, keyPrefix: prefix }),
          ),
          prefix,
        };
      },
    ],
  ],
  ([name]) => name === 'redis',
);

for (const [name, make] of ADAPTERS) describeRateLimiterContract(name, make);

describe.skipIf(withoutEngines)('RateLimiter Redis key layout', () => {
  it('Redis keys follow <prefix>rl:{<scope>}:<kind> with a TTL of about two minutes; no `now` uses the server clock', async () => {
    const prefix = `${redisKeys.prefix}${++prefixSeq}:`;
    const limiter = createRedisRateLimiter({ url: redisKeys.url, keyPrefix: prefix });
    try {
      const admission = await limiter.admit([{ scope: 'channel:c1', rpm: 2, tpm: 100 }], 10);
      expect(admission.allowed).toBe(true);
      expect(admission.states.map((s) => s.resetMs)).toEqual([30_000, 6_000]);
      const ttl = await redisKeys.admin.pttl(`${prefix}rl:{channel:c1}:requests`);
      expect(ttl).toBeGreaterThan(85_000);
      expect(ttl).toBeLessThanOrEqual(90_001);
      expect(await redisKeys.admin.get(`${prefix}rl:{channel:c1}:tokens`)).toMatch(/^\d+:0:100$/);
    } finally {
      await limiter.close();
    }
  });
});
