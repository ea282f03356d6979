/**
 * The Redis affinity store against a real Redis (REDIS_URL): the shared contract suite (real
 * time), the key layout of REDIS-KEYS.md with its TTL, a corrupt value read as no pin, and an
 * unreachable Redis answered with StateStoreUnavailableError. Every run uses its own key prefix and
 * deletes its keys afterwards.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { createRedisAffinityStore, redisAffinityKey } from '../../../infra/state-store/redis/redis-affinity-store.ts';
import { isStateStoreUnavailable } from '../../../schemas/state-store/state-store-unavailable.ts';
import { describeAffinityStoreContract } from '../../unit/state-store/affinity-store-contract.ts';
import { useRedisTestKeys } from '../../support/redis-test-keys.ts';
import { withoutEngines } from '../../support/engines.ts';
import { freePort } from '../../support/free-port.ts';

const redisKeys = useRedisTestKeys('affinity');

describe.skipIf(withoutEngines)('redis adapter', () => {
  describeAffinityStoreContract('redis', {
    sharedByNamespace: true,
    make: async (namespace) =>
      createRedisAffinityStore({ url: redisKeys.url, keyPrefix: `${redisKeys.prefix}${namespace}:` }),
    advance: (ms) => sleep(ms),
  });
});

describe.skipIf(withoutEngines)('redis affinity store', () => {
  it('writes <prefix>affinity:<key> as JSON with a PX ttl, and reads a corrupt value as no pin', async () => {
    const prefix = `${redisKeys.prefix}layout:`;
    const store = createRedisAffinityStore({ url: redisKeys.url, keyPrefix: prefix });
    const affinityKey = 'f'.repeat(40);
    await store.put(affinityKey, { channelId: 'anthropic-1', credentialId: 'k2' }, 300_000);
    const key = `${prefix}affinity:${affinityKey}`;
    expect(redisAffinityKey(prefix, affinityKey)).toBe(key);
    expect(JSON.parse((await redisKeys.admin.get(key))!)).toEqual({ channelId: 'anthropic-1', credentialId: 'k2' });
    const ttl = await redisKeys.admin.pttl(key);
    expect(ttl).toBeGreaterThan(299_000);
    expect(ttl).toBeLessThanOrEqual(300_000);
    await redisKeys.admin.set(key, '{"channelId":5}');
    expect(await store.get(affinityKey)).toBeUndefined();
    await redisKeys.admin.set(key, 'not json');
    expect(await store.get(affinityKey)).toBeUndefined();
    await store.close();
  });

  it('rejects with StateStoreUnavailableError while Redis is unreachable', async () => {
    const store = createRedisAffinityStore({ url: `redis://127.0.0.1:${await freePort()}`, keyPrefix: 'x:' });
    const failure = await store.get('k').catch((error: unknown) => error);
    expect(isStateStoreUnavailable(failure)).toBe(true);
    await store.close();
  });
});
