/**
 * The Redis adapter against a real Redis (REDIS_URL): the shared contract suite, bit-for-bit
 * agreement of the Lua fold with the memory adapter on a random history, and the key layout of
 * REDIS-KEYS.md. Every run uses its own key prefix and deletes its keys afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryStateStore } from '../../../infra/state-store/memory/memory-state-store.ts';
import { createRedisStateStore } from '../../../infra/state-store/redis/redis-state-store.ts';
import type { ChannelObservation, HealthPolicy } from '../../../schemas/state-store/state-store.ts';
import { describeStateStoreContract } from '../../unit/state-store/state-store-contract.ts';
import { useRedisTestKeys } from '../../support/redis-test-keys.ts';
import { withoutEngines } from '../../support/engines.ts';

const redisKeys = useRedisTestKeys('state');
let storeSeq = 0;

describe.skipIf(withoutEngines)('redis adapter', () => {
  describeStateStoreContract('redis', async () => createRedisStateStore({ url: redisKeys.url, keyPrefix: `${redisKeys.prefix}${++storeSeq}:` }));
});

/** A deterministic pseudo-random history: 3 channels, in- and out-of-order times, mixed outcomes. */
function randomHistory(count: number, t0: number): ChannelObservation[] {
  let seed = 7;
  const random = (): number => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  return Array.from({ length: count }, (_, i) => {
    const ok = random() > 0.35;
    const retry = !ok && random() < 0.2 ? Math.floor(random() * 20_000) : undefined;
    const errorKind = ok ? (random() < 0.1 ? 'upstream-rejected' : undefined) : 'upstream-unavailable';
    return {
      eventId: `h-${i}`,
      position: { topic: 'tollgate.requests', partition: 0, offset: String(i) },
      channelId: ['a', 'b', 'c'][Math.floor(random() * 3)] as string,
      at: t0 + i * 400 - Math.floor(random() * 3_000),
      ok,
      latencyMs: Math.round(random() * 2_000 * 1000) / 1000,
      ...(errorKind ? { errorKind } : {}),
      ...(retry === undefined ? {} : { retryAfterMs: retry }),
    };
  });
}

describe.skipIf(withoutEngines)('redis state store', () => {
  it('folds a random history exactly like the memory adapter (Lua = foldChannelHealth)', async () => {
    const policy: HealthPolicy = { windowMs: 10_000, failureThreshold: 3, cooldownMs: 5_000, latencyAlpha: 0.3 };
    const t0 = 1_700_000_000_000;
    const redis = createRedisStateStore({ url: redisKeys.url, keyPrefix: `${redisKeys.prefix}parity:` });
    const memory = createMemoryStateStore();
    const history = randomHistory(300, t0);
    for (const observation of history) {
      const [fromRedis, fromMemory] = await Promise.all([redis.recordChannelObservation(observation, policy), memory.recordChannelObservation(observation, policy)]);
      expect(fromRedis).toBe(fromMemory);
    }
    for (const now of [t0 + 30_000, t0 + 60_000, t0 + 115_000, t0 + 119_600, t0 + 125_000, t0 + 200_000]) {
      const channels = ['a', 'b', 'c', 'never'];
      const [fromRedis, fromMemory] = await Promise.all([redis.getChannelHealth(channels, now), memory.getChannelHealth(channels, now)]);
      expect(fromRedis).toEqual(fromMemory);
    }
    const late = await redis.getChannelHealth(['a', 'b', 'c'], t0 + 119_700);
    expect(late.some((h) => h.errorRate > 0 && h.errorRate < 1)).toBe(true);
    expect(late.every((h) => h.latencyEwmaMs > 0)).toBe(true);
    await redis.close();
  });

  it('writes the keys REDIS-KEYS.md documents, with their TTLs', async () => {
    const prefix = `${redisKeys.prefix}layout:`;
    const store = createRedisStateStore({ url: redisKeys.url, keyPrefix: prefix });
    await store.addSpend({ topic: 'tollgate.usage', partition: 0, offset: '1' }, 'key-1', 'user-1', 123_456_789_012n);
    await store.recordChannelObservation({ eventId: 'o1', position: { topic: 'tollgate.requests', partition: 0, offset: String(1) }, channelId: 'ch-1', at: Date.now(), ok: false, latencyMs: 12, errorKind: 'upstream-timeout' });
    expect(await redisKeys.admin.get(`${prefix}spend:key:key-1`)).toBe('123456789012');
    expect(await redisKeys.admin.get(`${prefix}spend:user:user-1`)).toBe('123456789012');
    expect(await redisKeys.admin.ttl(`${prefix}spend:key:key-1`)).toBe(-1);
    // one watermark per kind and partition, kept without a TTL; no key per event
    expect(await redisKeys.admin.get(`${prefix}applied:spend:tollgate.usage:0`)).toBe('1');
    expect(await redisKeys.admin.ttl(`${prefix}applied:spend:tollgate.usage:0`)).toBe(-1);
    expect(await redisKeys.admin.get(`${prefix}applied:health:tollgate.requests:0`)).toBe('1');
    await store.addSpend({ topic: 'tollgate.usage', partition: 0, offset: '2' }, 'key-1', null, 1n);
    expect(await redisKeys.admin.get(`${prefix}applied:spend:tollgate.usage:0`)).toBe('2');
    expect((await redisKeys.admin.keys(`${prefix}applied:*`)).sort()).toEqual([`${prefix}applied:health:tollgate.requests:0`, `${prefix}applied:spend:tollgate.usage:0`]);
    expect(await redisKeys.admin.hgetall(`${prefix}health:state:ch-1`)).toMatchObject({ consecutiveFailures: '1', latencyEwmaMs: '0', windowMs: '60000' });
    expect(await redisKeys.admin.zrange(`${prefix}health:fail:ch-1`, '0', '-1')).toEqual(['o1']);
    expect(await redisKeys.admin.type(`${prefix}health:ok:ch-1`)).toBe('none');
    expect(await redisKeys.admin.pttl(`${prefix}health:fail:ch-1`)).toBeGreaterThan(119_000);
    await store.close();
  });
});
