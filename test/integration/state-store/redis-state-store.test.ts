/**
 * The Redis adapter against a real Redis (REDIS_URL): the shared contract suite, bit-for-bit
 * agreement of the Lua fold with the memory adapter on a random history, the key layout of
 * REDIS-KEYS.md, and the migration from the untagged layout. Every run uses its own key prefix and deletes its keys afterwards.
 */
import { describe, expect, it } from 'vitest';
import { createMemoryStateStore } from '../../../infra/state-store/memory/memory-state-store.ts';
import { createRedisStateStore } from '../../../infra/state-store/redis/redis-state-store.ts';
import type { ChannelObservation, HealthPolicy } from '../../../schemas/state-store/state-store.ts';
import { describeStateStoreContract, pos } from '../../unit/state-store/state-store-contract.ts';
import { useRedisTestKeys } from '../../support/redis-test-keys.ts';
import { withoutEngines } from '../../support/engines.ts';

const redisKeys = useRedisTestKeys('state');
let storeSeq = 0;

describe.skipIf(withoutEngines)('redis adapter', () => {
  describeStateStoreContract('redis', async () =>
    createRedisStateStore({ url: redisKeys.url, keyPrefix: `${redisKeys.prefix}${++storeSeq}:` }),
  );
});

/** A deterministic pseudo-random history: 3 channels, in- and out-of-order times, mixed outcomes. */
function randomHistory(count: number, t0: number): ChannelObservation[] {
  let seed = 7;
  const random = (): number => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  return Array.from({ length: count }, (_, i) => {
    const ok = random() > 0.35;
    const retry = !ok && random() < 0.2 ? Math.floor(random() * 20_000) : undefined;
    const errorKind = ok ? (random() < 0.1 ? 'upstream-rejected' : undefined) : 'upstream-unavailable';
    const totalMs = ok && random() < 0.7 ? Math.round(random() * 30_000 * 1000) / 1000 : undefined;
    return {
      eventId: `h-${i}`,
      position: { topic: 'tollgate.requests', partition: 0, offset: String(i) },
      channelId: ['a', 'b', 'c'][Math.floor(random() * 3)] as string,
      at: t0 + i * 400 - Math.floor(random() * 3_000),
      ok,
      latencyMs: Math.round(random() * 2_000 * 1000) / 1000,
      ...(errorKind ? { errorKind } : {}),
      ...(retry === undefined ? {} : { retryAfterMs: retry }),
      ...(totalMs === undefined ? {} : { totalMs }),
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
      const [fromRedis, fromMemory] = await Promise.all([
        redis.recordChannelObservation(observation, policy),
        memory.recordChannelObservation(observation, policy),
      ]);
      expect(fromRedis).toBe(fromMemory);
    }
    for (const now of [t0 + 30_000, t0 + 60_000, t0 + 115_000, t0 + 119_600, t0 + 125_000, t0 + 200_000]) {
      const channels = ['a', 'b', 'c', 'never'];
      const [fromRedis, fromMemory] = await Promise.all([
        redis.getChannelHealth(channels, now),
        memory.getChannelHealth(channels, now),
      ]);
      expect(fromRedis).toEqual(fromMemory);
    }
    const late = await redis.getChannelHealth(['a', 'b', 'c'], t0 + 119_700);
    expect(late.some((h) => h.errorRate > 0 && h.errorRate < 1)).toBe(true);
    expect(late.every((h) => h.latencyEwmaMs > 0 && h.totalLatencyEwmaMs > 0)).toBe(true);
    await redis.close();
  });

  it('reads health stored before totalLatencyEwmaMs existed as 0, and folds the next total time from there', async () => {
    const prefix = `${redisKeys.prefix}before-total:`;
    const admin = redisKeys.admin;
    const at = Date.now();
    await admin.hset(`${prefix}health:{ch-old}:state`, {
      latencyEwmaMs: '250',
      consecutiveFailures: '0',
      failureCooldownUntil: '0',
      retryAfterUntil: '0',
      lastAt: String(at),
      lastSuccessAt: String(at),
      lastFailureAt: '0',
      windowMs: '60000',
    });
    await admin.set(`${prefix}layout`, '2');
    const store = createRedisStateStore({ url: redisKeys.url, keyPrefix: prefix });
    expect((await store.getChannelHealth(['ch-old'], at))[0]).toMatchObject({
      latencyEwmaMs: 250,
      totalLatencyEwmaMs: 0,
    });
    const next = { eventId: 'n1', position: pos(1, 0, 'tollgate.requests'), channelId: 'ch-old', ok: true };
    await store.recordChannelObservation({ ...next, at: at + 1, latencyMs: 50, totalMs: 1_500 });
    expect((await store.getChannelHealth(['ch-old'], at + 2))[0]).toMatchObject({
      latencyEwmaMs: 0.2 * 50 + 0.8 * 250,
      totalLatencyEwmaMs: 1_500,
    });
    expect(await admin.hget(`${prefix}health:{ch-old}:state`, 'totalLatencyEwmaMs')).toBe('1500');
    await store.close();
  });

  it('writes the keys REDIS-KEYS.md documents, with their TTLs', async () => {
    const prefix = `${redisKeys.prefix}layout:`;
    const store = createRedisStateStore({ url: redisKeys.url, keyPrefix: prefix });
    await store.addSpend({ topic: 'tollgate.usage', partition: 0, offset: '1' }, 'key-1', 'user-1', 123_456_789_012n);
    await store.recordChannelObservation({
      eventId: 'o1',
      position: { topic: 'tollgate.requests', partition: 0, offset: String(1) },
      channelId: 'ch-1',
      at: Date.now(),
      ok: false,
      latencyMs: 12,
      errorKind: 'upstream-timeout',
    });
    expect(await redisKeys.admin.get(`${prefix}spend:{key:key-1}`)).toBe('123456789012');
    expect(await redisKeys.admin.get(`${prefix}spend:{user:user-1}`)).toBe('123456789012');
    expect(await redisKeys.admin.ttl(`${prefix}spend:{key:key-1}`)).toBe(-1);
    // one watermark per counter (or channel) and partition, kept without a TTL; no key per event
    expect(await redisKeys.admin.hgetall(`${prefix}spend:{key:key-1}:applied`)).toEqual({ 'tollgate.usage:0': '1' });
    expect(await redisKeys.admin.hgetall(`${prefix}spend:{user:user-1}:applied`)).toEqual({ 'tollgate.usage:0': '1' });
    expect(await redisKeys.admin.ttl(`${prefix}spend:{key:key-1}:applied`)).toBe(-1);
    expect(await redisKeys.admin.hgetall(`${prefix}health:{ch-1}:applied`)).toEqual({ 'tollgate.requests:0': '1' });
    await store.addSpend({ topic: 'tollgate.usage', partition: 0, offset: '2' }, 'key-1', null, 1n);
    expect(await redisKeys.admin.hgetall(`${prefix}spend:{key:key-1}:applied`)).toEqual({ 'tollgate.usage:0': '2' });
    expect(await redisKeys.admin.hgetall(`${prefix}spend:{user:user-1}:applied`)).toEqual({ 'tollgate.usage:0': '1' });
    expect((await redisKeys.admin.keys(`${prefix}*applied*`)).sort()).toEqual([
      `${prefix}health:{ch-1}:applied`,
      `${prefix}spend:{key:key-1}:applied`,
      `${prefix}spend:{user:user-1}:applied`,
    ]);
    expect(await redisKeys.admin.hgetall(`${prefix}health:{ch-1}:state`)).toMatchObject({
      consecutiveFailures: '1',
      latencyEwmaMs: '0',
      totalLatencyEwmaMs: '0',
      windowMs: '60000',
    });
    expect(await redisKeys.admin.zrange(`${prefix}health:{ch-1}:fail`, '0', '-1')).toEqual(['o1']);
    expect(await redisKeys.admin.type(`${prefix}health:{ch-1}:ok`)).toBe('none');
    expect(await redisKeys.admin.pttl(`${prefix}health:{ch-1}:fail`)).toBeGreaterThan(119_000);
    expect(await redisKeys.admin.get(`${prefix}layout`)).toBe('2');
    await store.close();
  });

  it('migrates the untagged layout on open: counters, health and watermarks move; redeliveries still change nothing', async () => {
    const prefix = `${redisKeys.prefix}untagged:`;
    const admin = redisKeys.admin;
    const at = Date.now();
    await admin.mset(`${prefix}spend:key:k1`, '500', `${prefix}spend:user:u1`, '700', `${prefix}spend:key:k2`, '200');
    await admin.mset(
      `${prefix}applied:spend:tollgate.usage:0`,
      '41',
      `${prefix}applied:spend:tollgate.usage:1`,
      '9',
      `${prefix}applied:health:tollgate.requests:0`,
      '77',
    );
    await admin.hset(`${prefix}health:state:ch-1`, {
      latencyEwmaMs: '250',
      consecutiveFailures: '2',
      failureCooldownUntil: '0',
      retryAfterUntil: '0',
      lastAt: String(at),
      lastSuccessAt: '0',
      lastFailureAt: String(at),
      windowMs: '60000',
    });
    await admin.pexpire(`${prefix}health:state:ch-1`, 600_000);
    await admin.zadd(`${prefix}health:fail:ch-1`, at, 'old-1', at, 'old-2');
    const store = createRedisStateStore({ url: redisKeys.url, keyPrefix: prefix });
    // a redelivered record at the old watermark: applied before the upgrade, so nothing changes
    expect(await store.addSpend(pos(41), 'k1', 'u1', 1_000n)).toBe(false);
    expect(await store.getSpend('k1', 'u1')).toEqual({ keyNanoUsd: 500n, userNanoUsd: 700n });
    expect(await store.addSpend(pos(9, 1), 'k2', 'u1', 1_000n)).toBe(false);
    expect(await store.addSpend(pos(42), 'k2', 'u1', 5n)).toBe(true);
    expect(await store.getSpend('k2', 'u1')).toEqual({ keyNanoUsd: 205n, userNanoUsd: 705n });
    expect(
      await store.recordChannelObservation({
        eventId: 'old-2',
        position: pos(77, 0, 'tollgate.requests'),
        channelId: 'ch-1',
        at,
        ok: false,
        latencyMs: 5,
      }),
    ).toBe(false);
    const [health] = await store.getChannelHealth(['ch-1'], at);
    expect(health).toMatchObject({ consecutiveFailures: 2, latencyEwmaMs: 250, windowCount: 2, errorRate: 1 });
    expect(await admin.pttl(`${prefix}health:{ch-1}:state`)).toBeGreaterThan(500_000);
    expect(await admin.hgetall(`${prefix}spend:{key:k1}:applied`)).toEqual({
      'tollgate.usage:0': '41',
      'tollgate.usage:1': '9',
    });
    expect(
      (await admin.keys(`${prefix}*`)).filter((name) =>
        /:(applied|spend|health):(spend|key|user|health|state|ok|fail):/.test(name.slice(prefix.length - 1)),
      ),
    ).toEqual([]);
    expect(await admin.get(`${prefix}layout`)).toBe('2');
    await store.close();
    // a second open finds the marker and moves nothing again
    await admin.set(`${prefix}spend:key:k1`, '1');
    const reopened = createRedisStateStore({ url: redisKeys.url, keyPrefix: prefix });
    expect(await reopened.getSpend('k1', null)).toEqual({ keyNanoUsd: 500n, userNanoUsd: 0n });
    await reopened.close();
  });
});
