/**
 * The Redis in-flight registry against a real Redis (REDIS_URL): the shared contract suite, the
 * key layout of REDIS-KEYS.md (one hash tag, both keys expiring with the longest-lived node), a
 * crashed node forgotten by the Redis server's clock, two gateway boards seeing each other through
 * it, and outage handling. Every run uses its own key prefix and deletes its keys afterwards.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { InFlightBoard } from '../../../gateway/routing/in-flight-board.ts';
import { engineSettingsFromEnv, openInFlightRegistry } from '../../../infra/open-adapters.ts';
import {
  createRedisInFlightRegistry,
  inFlightRegistryKeys,
} from '../../../infra/state-store/redis/redis-in-flight-registry.ts';
import { isStateStoreUnavailable } from '../../../schemas/state-store/state-store-unavailable.ts';
import { describeInFlightRegistryContract } from '../../unit/state-store/in-flight-registry-contract.ts';
import { withoutEngines } from '../../support/engines.ts';
import { freePort } from '../../support/free-port.ts';
import { useRedisTestKeys } from '../../support/redis-test-keys.ts';

describe.skipIf(withoutEngines)('redis in-flight registry', () => {
  const redisKeys = useRedisTestKeys('in-flight');
  let seq = 0;
  const prefix = (): string => `${redisKeys.prefix}${++seq}:`;

  describeInFlightRegistryContract('redis', (count) => {
    const shared = prefix();
    return Array.from({ length: count }, () => createRedisInFlightRegistry({ url: redisKeys.url, keyPrefix: shared }));
  });

  it('keeps the layout of REDIS-KEYS.md: one hash tag, keys expiring with the longest-lived node', async () => {
    const keyPrefix = prefix();
    const registry = createRedisInFlightRegistry({ url: redisKeys.url, keyPrefix });
    try {
      const keys = inFlightRegistryKeys(keyPrefix);
      expect(keys).toEqual({ counts: `${keyPrefix}{in-flight}:counts`, expiries: `${keyPrefix}{in-flight}:expiries` });
      await registry.publishAndReadOthers('node-a', new Map([['ch-1', 2]]), 60_000);
      await registry.publishAndReadOthers(
        'node-b',
        new Map([
          ['ch-1', 0],
          ['ch-2', 1],
        ]),
        30_000,
      );
      await registry.publishAndReadOthers('node-c', new Map(), 30_000);
      expect(await redisKeys.admin.hgetall(keys.counts)).toEqual({
        'node-a': JSON.stringify([['ch-1', 2]]),
        'node-b': JSON.stringify([['ch-2', 1]]),
      });
      const expiries = await redisKeys.admin.zrange(keys.expiries, '0', '-1', 'WITHSCORES');
      expect(expiries.filter((_, i) => i % 2 === 0).sort()).toEqual(['node-a', 'node-b', 'node-c']);
      for (const key of [keys.counts, keys.expiries]) {
        const ttl = await redisKeys.admin.pttl(key);
        expect(ttl).toBeGreaterThan(30_000);
        expect(ttl).toBeLessThanOrEqual(60_000);
      }
      expect((await redisKeys.admin.keys(`${keyPrefix}*`)).sort()).toEqual([keys.counts, keys.expiries].sort());
    } finally {
      await registry.close();
    }
  });

  it("forgets a crashed node by the Redis server's clock, and leaves no key once every node is gone", async () => {
    const keyPrefix = prefix();
    const crashed = createRedisInFlightRegistry({ url: redisKeys.url, keyPrefix });
    const survivor = createRedisInFlightRegistry({ url: redisKeys.url, keyPrefix });
    try {
      await crashed.publishAndReadOthers('crashed', new Map([['ch', 3]]), 200);
      await survivor.publishAndReadOthers('survivor', new Map([['ch', 1]]), 60_000);
      await sleep(400);
      expect(await survivor.publishAndReadOthers('observer', new Map(), 300)).toEqual(new Map([['ch', 1]]));
      expect(await redisKeys.admin.hkeys(inFlightRegistryKeys(keyPrefix).counts)).not.toContain('crashed');
      await survivor.withdraw('survivor');
      expect(await survivor.publishAndReadOthers('observer', new Map(), 300)).toEqual(new Map());
      await sleep(600); // past the observer's TTL, the longest left: the keys expire by themselves
      expect(await redisKeys.admin.keys(`${keyPrefix}*`)).toEqual([]);
    } finally {
      await Promise.all([crashed.close(), survivor.close()]);
    }
  });

  it('lets two gateway boards over REDIS_URL see each other after a refresh, and withdraws a stopped one', async () => {
    const settings = {
      ...engineSettingsFromEnv({ REDIS_URL: redisKeys.url, REDIS_KEY_PREFIX: prefix() }),
      dataDir: '/nonexistent',
    };
    const registryA = openInFlightRegistry(settings);
    const registryB = openInFlightRegistry(settings);
    const a = new InFlightBoard({ registry: registryA, nodeId: 'gw-a' });
    const b = new InFlightBoard({ registry: registryB, nodeId: 'gw-b' });
    try {
      const endA = a.begin('ch');
      a.begin('ch');
      b.begin('ch');
      expect(await a.refresh()).toBe(true);
      expect(await b.refresh()).toBe(true);
      expect(b.inFlight('ch')).toBe(3);
      endA();
      expect(await a.refresh()).toBe(true);
      expect(await b.refresh()).toBe(true);
      expect(b.inFlight('ch')).toBe(2);
      expect(a.inFlight('ch')).toBe(2);
      await a.stop();
      expect(await b.refresh()).toBe(true);
      expect(b.inFlight('ch')).toBe(1);
    } finally {
      await b.stop();
      await Promise.all([registryA.close(), registryB.close()]);
    }
  });

  it('rejects with StateStoreUnavailableError when Redis is unreachable', async () => {
    const port = await freePort();
    const registry = createRedisInFlightRegistry({
      url: `redis://127.0.0.1:${port}`,
      keyPrefix: prefix(),
      outage: { commandTimeoutMs: 50 },
    });
    try {
      const error = await registry.publishAndReadOthers('n', new Map([['ch', 1]]), 3_000).catch((e: unknown) => e);
      expect(isStateStoreUnavailable(error)).toBe(true);
      await expect(registry.publishAndReadOthers('', new Map(), 3_000)).rejects.toThrow(RangeError);
    } finally {
      await registry.close();
    }
  });
});
