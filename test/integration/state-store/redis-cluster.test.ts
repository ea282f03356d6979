/**
 * Every Redis adapter on a real 3-master Redis Cluster started for this file
 * (infra/redis-cluster/start-redis-cluster.ts): the contract suites of the state store, the rate
 * limiter, the in-flight registry, the session store and the response store; the hash-tag layout (each script's keys in
 * one slot, entities spread over the nodes); a refused multi-scope admission that releases the
 * scopes it charged on other slots; and the REDIS_CLUSTER_NODES path through open-adapters.ts.
 * Needs redis-server and redis-cli only (skipped without them, failing with CI=true).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  engineSettingsFromEnv,
  openRateLimiter,
  openResponseStore,
  openSessionStore,
  openStateStore,
} from '../../../infra/open-adapters.ts';
import {
  createRedisInFlightRegistry,
  inFlightRegistryKeys,
} from '../../../infra/state-store/redis/redis-in-flight-registry.ts';
import { createRedisRateLimiter, rateLimitKey } from '../../../infra/state-store/redis/redis-rate-limiter.ts';
import { createRedisResponseStore } from '../../../infra/state-store/redis/redis-response-store.ts';
import { createRedisSessionStore } from '../../../infra/state-store/redis/redis-session-store.ts';
import { createRedisStateStore, redisStateKeys } from '../../../infra/state-store/redis/redis-state-store.ts';
import { describeInFlightRegistryContract } from '../../unit/state-store/in-flight-registry-contract.ts';
import { describeRateLimiterContract, T0 } from '../../unit/state-store/rate-limiter-contract.ts';
import { describeResponseStoreContract, sampleRecord } from '../../unit/state-store/response-store-contract.ts';
import { describeSessionStoreContract } from '../../unit/state-store/session-store-contract.ts';
import { describeStateStoreContract, pos } from '../../unit/state-store/state-store-contract.ts';
import { redisClusterSkipReason, useRedisCluster } from '../../support/redis-cluster-for-tests.ts';

describe.skipIf(redisClusterSkipReason !== undefined)(redisClusterSkipReason ?? 'on a 3-master Redis Cluster', () => {
  const cluster = useRedisCluster('cluster');
  let seq = 0;
  const prefix = (): string => `${cluster.prefix}${++seq}:`;

  describeStateStoreContract('redis cluster', async () =>
    createRedisStateStore({ cluster: cluster.settings, keyPrefix: prefix() }),
  );
  describeRateLimiterContract('redis cluster', (count) => {
    const shared = prefix();
    return {
      limiters: Array.from({ length: count }, () =>
        createRedisRateLimiter({ cluster: cluster.settings, keyPrefix: shared }),
      ),
      prefix: shared,
    };
  });
  describeInFlightRegistryContract('redis cluster', (count) => {
    const shared = prefix();
    return Array.from({ length: count }, () =>
      createRedisInFlightRegistry({ cluster: cluster.settings, keyPrefix: shared }),
    );
  });
  describeSessionStoreContract('redis cluster', {
    sharedByNamespace: true,
    make: async (namespace) =>
      createRedisSessionStore({ cluster: cluster.settings, keyPrefix: `${cluster.prefix}${namespace}:` }),
    advance: (ms) => sleep(ms),
  });
  describeResponseStoreContract('redis cluster', {
    sharedByNamespace: true,
    make: async (namespace, options) =>
      createRedisResponseStore({ cluster: cluster.settings, keyPrefix: `${cluster.prefix}${namespace}:`, ...options }),
    advance: (ms) => sleep(ms),
  });

  describe('hash tags', () => {
    /** The slot of `key` as the cluster computes it (CLUSTER KEYSLOT). */
    const slotOf = (key: string): Promise<number> => cluster.admin.cluster('KEYSLOT', key);

    it('keeps each entity in one slot and spreads entities over every master', async () => {
      const keyPrefix = prefix();
      const keys = redisStateKeys(keyPrefix);
      const entities = [
        [keys.keySpend('k-1'), keys.keySpendApplied('k-1')],
        [keys.userSpend('u-1'), keys.userSpendApplied('u-1')],
        [keys.healthState('c-1'), keys.healthOk('c-1'), keys.healthFail('c-1'), keys.healthApplied('c-1')],
        [rateLimitKey('p:', 'key:k-1', 'requests'), rateLimitKey('p:', 'key:k-1', 'tokens')],
        [inFlightRegistryKeys(keyPrefix).counts, inFlightRegistryKeys(keyPrefix).expiries],
        // an id with braces: the tag ends at its first '}', the same for every key of the entity
        [keys.keySpend('a}b{c'), keys.keySpendApplied('a}b{c')],
      ];
      for (const names of entities) expect(new Set(await Promise.all(names.map(slotOf))).size).toBe(1);
      const store = createRedisStateStore({ cluster: cluster.settings, keyPrefix: keyPrefix });
      await store.addSpendBatch(
        Array.from({ length: 30 }, (_, i) => ({
          position: pos(i + 1),
          keyId: `key-${i}`,
          userId: null,
          costNanoUsd: 1n,
        })),
      );
      await store.close();
      const masters = cluster.admin.nodes('master');
      expect(masters).toHaveLength(3);
      for (const node of masters) expect((await node.keys(`${keyPrefix}spend:*`)).length).toBeGreaterThan(0);
    });

    it('applies a batch spanning many keys and users exactly once, however often it is delivered', async () => {
      const store = createRedisStateStore({ cluster: cluster.settings, keyPrefix: prefix() });
      const batch = Array.from({ length: 40 }, (_, i) => ({
        position: pos(i + 1),
        keyId: `key-${i % 10}`,
        userId: i % 3 === 0 ? null : `user-${i % 4}`,
        costNanoUsd: BigInt(i + 1),
      }));
      expect(await store.addSpendBatch(batch)).toBe(40);
      expect(await store.addSpendBatch(batch)).toBe(0);
      expect(await store.addSpendBatch(batch.slice(20))).toBe(0);
      const expectedKey = batch.filter((b) => b.keyId === 'key-3').reduce((sum, b) => sum + b.costNanoUsd, 0n);
      const expectedUser = batch.filter((b) => b.userId === 'user-1').reduce((sum, b) => sum + b.costNanoUsd, 0n);
      expect(await store.getSpend('key-3', 'user-1')).toEqual({ keyNanoUsd: expectedKey, userNanoUsd: expectedUser });
      await store.close();
    });

    it('releases the scopes a refused admission charged on other slots', async () => {
      const limiter = createRedisRateLimiter({ cluster: cluster.settings, keyPrefix: prefix() });
      const scopes = [
        { scope: 'key:k1', rpm: 10, tpm: 1_000 },
        { scope: 'user:u1', rpm: 1, tpm: null },
      ];
      expect((await limiter.admit(scopes, 100, T0)).allowed).toBe(true);
      expect(await limiter.admit(scopes, 100, T0)).toMatchObject({
        allowed: false,
        refusedBy: { scope: 'user:u1', kind: 'requests' },
      });
      const keyOnly = await limiter.admit([{ scope: 'key:k1', rpm: 10, tpm: 1_000 }], 100, T0);
      expect(keyOnly.states.map((state) => state.remaining)).toEqual([8, 800]);
      await limiter.close();
    });
  });

  it('REDIS_CLUSTER_NODES opens every Redis adapter on the cluster', async () => {
    const keyPrefix = prefix();
    const settings = {
      ...engineSettingsFromEnv({ REDIS_CLUSTER_NODES: cluster.seedNodes, REDIS_KEY_PREFIX: keyPrefix }),
      dataDir: '/nonexistent',
    };
    const [state, limiter, sessions, responses] = [
      openStateStore(settings),
      openRateLimiter(settings),
      openSessionStore(settings),
      openResponseStore(settings),
    ];
    try {
      expect(await state.addSpend(pos(1), 'k', 'u', 5n)).toBe(true);
      expect((await limiter.admit([{ scope: 'key:k', rpm: 1, tpm: null }], 0)).allowed).toBe(true);
      await sessions.put('s', { userId: 'u', csrfSecret: 'c', createdAt: 1, credentialsStamp: 'x' }, 60_000);
      const record = sampleRecord();
      await responses.put(record);
      expect(await cluster.admin.get(redisStateKeys(keyPrefix).keySpend('k'))).toBe('5');
      expect(await cluster.admin.exists(`${keyPrefix}console:session:s`)).toBe(1);
      expect((await responses.getMany(record.keyId, [record.id, 'missing']))[0]?.id).toBe(record.id);
    } finally {
      await Promise.all([state.close(), limiter.close(), sessions.close(), responses.close()]);
    }
  });
});
