/**
 * The Redis credential-cooldown store against a real Redis (REDIS_URL): the shared contract suite
 * and the key layout of REDIS-KEYS.md — one hash per channel whose expiry follows its latest
 * cooldown, a value that is not a cooldown read as none. Every run uses its own key prefix.
 */
import { describe, expect, it } from 'vitest';
import {
  createRedisCredentialCooldowns,
  redisCooldownKey,
} from '../../../infra/state-store/redis/redis-credential-cooldowns.ts';
import { describeCredentialCooldownContract } from '../../unit/state-store/credential-cooldowns-contract.ts';
import { useRedisTestKeys } from '../../support/redis-test-keys.ts';
import { withoutEngines } from '../../support/engines.ts';

const redisKeys = useRedisTestKeys('cooldowns');

describe.skipIf(withoutEngines)('redis adapter', () => {
  describeCredentialCooldownContract('redis', {
    sharedByNamespace: true,
    make: async (namespace) =>
      createRedisCredentialCooldowns({ url: redisKeys.url, keyPrefix: `${redisKeys.prefix}${namespace}:` }),
  });
});

describe.skipIf(withoutEngines)('redis credential cooldowns', () => {
  it('writes <prefix>cooldown:{channel:<id>} with one "<untilMs>:<reason>" field per credential, expiring with the latest', async () => {
    const prefix = `${redisKeys.prefix}layout:`;
    const store = createRedisCredentialCooldowns({ url: redisKeys.url, keyPrefix: prefix });
    try {
      const now = Date.now();
      await store.markCooling({ channelId: 'ch-1', credentialId: 'a', untilMs: now + 60_000, reason: 'rate-limited' });
      await store.markCooling({ channelId: 'ch-1', credentialId: 'b', untilMs: now + 600_000, reason: 'unauthorized' });
      await store.markCooling({ channelId: 'ch-1', credentialId: 'a', untilMs: now + 30_000, reason: 'forbidden' });
      const key = `${prefix}cooldown:{channel:ch-1}`;
      expect(redisCooldownKey(prefix, 'ch-1')).toBe(key);
      expect(await redisKeys.admin.hgetall(key)).toEqual({
        a: `${now + 60_000}:rate-limited`,
        b: `${now + 600_000}:unauthorized`,
      });
      const ttl = await redisKeys.admin.pttl(key);
      expect(ttl).toBeGreaterThan(500_000);
      expect(ttl).toBeLessThanOrEqual(600_000);
      await redisKeys.admin.hset(key, 'c', 'not a cooldown');
      const read = await store.readCooling(['ch-1'], now);
      expect(read.map((cooldown) => cooldown.credentialId).sort()).toEqual(['a', 'b']);
    } finally {
      await store.close();
    }
  });
});
