/**
 * The Redis session store against a real Redis (REDIS_URL): the shared contract suite (real
 * time), the key layout of REDIS-KEYS.md with its TTL and sliding, and a corrupt value read as
 * no session. Every run uses its own key prefix and deletes its keys afterwards.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { openSessionStore } from '../../../infra/open-adapters.ts';
import { createRedisSessionStore, redisSessionKey } from '../../../infra/state-store/redis/redis-session-store.ts';
import { describeSessionStoreContract } from '../../unit/state-store/session-store-contract.ts';
import { useRedisTestKeys } from '../../support/redis-test-keys.ts';
import { withoutEngines } from '../../support/engines.ts';

const redisKeys = useRedisTestKeys('session');

describe.skipIf(withoutEngines)('redis adapter', () => {
  describeSessionStoreContract('redis', {
    sharedByNamespace: true,
    make: async (namespace) =>
      createRedisSessionStore({ url: redisKeys.url, keyPrefix: `${redisKeys.prefix}${namespace}:` }),
    advance: (ms) => sleep(ms),
  });
});

describe.skipIf(withoutEngines)('redis session store', () => {
  it('writes <prefix>console:session:<sessionKey> as JSON with a PX ttl that get slides', async () => {
    const prefix = `${redisKeys.prefix}layout:`;
    const store = createRedisSessionStore({ url: redisKeys.url, keyPrefix: prefix });
    const sessionKey = 'a'.repeat(64);
    await store.put(
      sessionKey,
      { userId: 'usr_1', csrfSecret: 'secret', createdAt: 5, credentialsStamp: 'stamp' },
      60_000,
    );
    const key = `${prefix}console:session:${sessionKey}`;
    expect(redisSessionKey(prefix, sessionKey)).toBe(key);
    expect(JSON.parse((await redisKeys.admin.get(key))!)).toEqual({
      userId: 'usr_1',
      csrfSecret: 'secret',
      createdAt: 5,
      credentialsStamp: 'stamp',
    });
    const ttl = await redisKeys.admin.pttl(key);
    expect(ttl).toBeGreaterThan(59_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await store.get(sessionKey);
    expect(await redisKeys.admin.pttl(key)).toBeLessThanOrEqual(ttl);
    await store.get(sessionKey, 3_600_000);
    expect(await redisKeys.admin.pttl(key)).toBeGreaterThan(3_599_000);
    await store.delete(sessionKey);
    expect(await redisKeys.admin.exists(key)).toBe(0);
    await store.close();
  });

  it('reads a value that is not a session as no session', async () => {
    const prefix = `${redisKeys.prefix}corrupt:`;
    const store = createRedisSessionStore({ url: redisKeys.url, keyPrefix: prefix });
    await redisKeys.admin.set(redisSessionKey(prefix, 'bad-json'), '{not json', 'PX', 60_000);
    await redisKeys.admin.set(
      redisSessionKey(prefix, 'bad-shape'),
      '{"userId":1,"csrfSecret":"s","createdAt":1}',
      'PX',
      60_000,
    );
    expect(await store.get('bad-json')).toBeUndefined();
    expect(await store.get('bad-shape', 60_000)).toBeUndefined();
    await store.close();
  });

  it('openSessionStore: Redis with a redisUrl (under redisKeyPrefix), else in-process memory', async () => {
    const prefix = `${redisKeys.prefix}open:`;
    const shared = openSessionStore({ dataDir: '/nonexistent', redisUrl: redisKeys.url, redisKeyPrefix: prefix });
    const local = openSessionStore({ dataDir: '/nonexistent' });
    const session = { userId: 'usr_1', csrfSecret: 's', createdAt: 1, credentialsStamp: 'stamp' };
    await shared.put('k1', session, 60_000);
    await local.put('k2', session, 60_000);
    expect(await redisKeys.admin.exists(redisSessionKey(prefix, 'k1'))).toBe(1);
    expect(await redisKeys.admin.exists(redisSessionKey(prefix, 'k2'))).toBe(0);
    expect(await local.get('k2')).toEqual(session);
    await Promise.all([shared.close(), local.close()]);
  });
});
