/**
 * The Redis budget ledger against a real Redis (REDIS_URL) and a real 3-master Redis Cluster
 * started for this file: the shared contract suite on both, the key layout of REDIS-KEYS.md (one
 * hash tag per window counter, the holds hash and expiry set, the TTL of 35 days after a window's
 * end and none for a lifetime window), a cluster reservation refused on one slot releasing the
 * hold it took on another (and restoring a hold it had replaced), and outage handling. Every run
 * uses its own key prefix and deletes its keys afterwards.
 */
import { describe, expect, it } from 'vitest';
import { createRedisBudgetLedger, budgetCounterKeys } from '../../../infra/state-store/redis/redis-budget-ledger.ts';
import { BUDGET_COUNTER_RETENTION_MS } from '../../../infra/state-store/budget-ledger-input.ts';
import { isStateStoreUnavailable } from '../../../schemas/state-store/state-store-unavailable.ts';
import { dayCounter, describeBudgetLedgerContract, T0 } from '../../unit/state-store/budget-ledger-contract.ts';
import { useRedisTestKeys } from '../../support/redis-test-keys.ts';
import { withoutEngines } from '../../support/engines.ts';
import { redisClusterSkipReason, useRedisCluster } from '../../support/redis-cluster-for-tests.ts';
import { freePort } from '../../support/free-port.ts';
import { openBudgetLedger } from '../../../infra/open-adapters.ts';

const claim = (
  budgetId: string,
  reserveNanoUsd: bigint,
  limitNanoUsd: bigint | null,
  endMs: number | null = T0 + 86_400_000,
) => ({
  counter: dayCounter(budgetId, endMs === null ? 0 : T0, endMs),
  limitNanoUsd,
  limitTokens: null,
  reserveNanoUsd,
  reserveTokens: 1,
});

describe.skipIf(withoutEngines)('redis budget ledger (single Redis)', () => {
  const redisKeys = useRedisTestKeys('budget');
  let seq = 0;
  const prefix = (): string => `${redisKeys.prefix}${++seq}:`;

  describeBudgetLedgerContract('redis', (count) => {
    const shared = prefix();
    return Array.from({ length: count }, () => createRedisBudgetLedger({ url: redisKeys.url, keyPrefix: shared }));
  });

  it('keeps the layout of REDIS-KEYS.md, with a TTL of 35 days after the window end', async () => {
    const keyPrefix = prefix();
    const ledger = createRedisBudgetLedger({ url: redisKeys.url, keyPrefix });
    try {
      const now = Date.now();
      const day = dayCounter('b-layout', now, now + 86_400_000);
      const life = dayCounter('b-life', 0, null);
      const keys = budgetCounterKeys(keyPrefix, day);
      expect(keys).toEqual({
        counter: `${keyPrefix}{budget:b-layout@${now}}`,
        holds: `${keyPrefix}{budget:b-layout@${now}}:holds`,
        expiries: `${keyPrefix}{budget:b-layout@${now}}:expiries`,
      });
      const reservation = { limitNanoUsd: null, limitTokens: null, reserveNanoUsd: 123n, reserveTokens: 4 };
      await ledger.reserve(
        'r1',
        [
          { counter: day, ...reservation },
          { counter: life, ...reservation },
        ],
        now + 5000,
        now,
      );
      await ledger.addBudgetSpendBatch(
        [
          {
            position: { topic: 'tollgate.usage', partition: 2, offset: '17' },
            requestId: 'r0',
            counter: day,
            costNanoUsd: 5n,
            tokens: 6,
          },
        ],
        now,
      );
      await ledger.markThresholdAlerted(day, 50);
      const admin = redisKeys.admin;
      expect(await admin.hgetall(keys.counter)).toEqual({
        spent: '5',
        tokens: '6',
        'w:tollgate.usage:2': '17',
        'a:50': '1',
      });
      expect(await admin.hgetall(keys.holds)).toEqual({ 'h:r1': `123:4:${now + 5000}`, n: '123', t: '4' });
      expect(await admin.zrange(keys.expiries, '0', '-1', 'WITHSCORES')).toEqual(['r1', String(now + 5000)]);
      const expireAt = now + 86_400_000 + BUDGET_COUNTER_RETENTION_MS;
      for (const key of [keys.counter, keys.holds, keys.expiries]) expect(await admin.pexpiretime(key)).toBe(expireAt);
      const lifeKeys = budgetCounterKeys(keyPrefix, life);
      expect(await admin.pttl(lifeKeys.holds)).toBe(-1);
      expect(await admin.pttl(lifeKeys.expiries)).toBe(-1);
      // an ended hold leaves the hash and the set at the next call
      await ledger.readBudgetUse([day], now + 5000);
      expect(await admin.hgetall(keys.holds)).toEqual({ n: '0', t: '0' });
      expect(await admin.zcard(keys.expiries)).toBe(0);
    } finally {
      await ledger.close();
    }
  });

  it('is what open-adapters.ts opens with REDIS_URL', async () => {
    const keyPrefix = prefix();
    const ledger = openBudgetLedger({ dataDir: '/nonexistent', redisUrl: redisKeys.url, redisKeyPrefix: keyPrefix });
    try {
      const counter = dayCounter('b-open');
      await ledger.markThresholdAlerted(counter, 90);
      expect(await redisKeys.admin.hget(budgetCounterKeys(keyPrefix, counter).counter, 'a:90')).toBe('1');
    } finally {
      await ledger.close();
    }
  });

  it('rejects with StateStoreUnavailableError within its deadline when Redis is unreachable', async () => {
    const port = await freePort();
    const ledger = createRedisBudgetLedger({
      url: `redis://127.0.0.1:${port}`,
      keyPrefix: prefix(),
      outage: { commandTimeoutMs: 50 },
    });
    try {
      const started = performance.now();
      const error = await ledger.reserve('r', [claim('b-down', 1n, 10n)], T0 + 1000, T0).catch((e: unknown) => e);
      expect(isStateStoreUnavailable(error)).toBe(true);
      expect(performance.now() - started).toBeLessThan(2500);
    } finally {
      await ledger.close();
    }
  });
});

describe.skipIf(redisClusterSkipReason !== undefined)(
  redisClusterSkipReason ?? 'redis budget ledger (Redis Cluster)',
  () => {
    const cluster = useRedisCluster('budget');
    let seq = 0;
    const prefix = (): string => `${cluster.prefix}${++seq}:`;

    describeBudgetLedgerContract('redis cluster', (count) => {
      const shared = prefix();
      return Array.from({ length: count }, () =>
        createRedisBudgetLedger({ cluster: cluster.settings, keyPrefix: shared }),
      );
    });

    it('keeps each counter in one slot and spreads counters over the masters', async () => {
      const keyPrefix = prefix();
      const slotOf = (key: string): Promise<number> => cluster.admin.cluster('KEYSLOT', key);
      const slots = new Set<number>();
      for (let i = 0; i < 30; i++) {
        const keys = budgetCounterKeys(keyPrefix, dayCounter(`b-${i}`));
        const own = new Set(await Promise.all([keys.counter, keys.holds, keys.expiries].map(slotOf)));
        expect(own.size).toBe(1);
        slots.add([...own][0] as number);
      }
      expect(slots.size).toBeGreaterThan(3);
    });

    it('releases the holds taken on other slots when one claim is refused, restoring a replaced hold', async () => {
      const keyPrefix = prefix();
      const ledger = createRedisBudgetLedger({ cluster: cluster.settings, keyPrefix });
      try {
        // b-full is at its limit; r1 already held 7 in b-open (a first attempt) and reserves again
        await ledger.reserve('r0', [claim('b-full', 100n, null)], T0 + 60_000, T0);
        await ledger.reserve('r1', [claim('b-open', 7n, null)], T0 + 30_000, T0);
        const refused = await ledger.reserve(
          'r1',
          [claim('b-open', 50n, 1000n), claim('b-free', 50n, 1000n), claim('b-full', 50n, 100n)],
          T0 + 60_000,
          T0,
        );
        expect(refused).toMatchObject({
          ok: false,
          refusedBy: 2,
          uses: [{ heldNanoUsd: 7n }, { heldNanoUsd: 0n }, { heldNanoUsd: 100n }],
        });
        const uses = await ledger.readBudgetUse(
          [claim('b-open', 0n, null).counter, claim('b-free', 0n, null).counter],
          T0,
        );
        expect(uses.map((use) => [use.heldNanoUsd, use.heldTokens])).toEqual([
          [7n, 1],
          [0n, 0],
        ]);
        // the restored hold keeps its own end
        expect((await ledger.readBudgetUse([claim('b-open', 0n, null).counter], T0 + 30_000))[0]?.heldNanoUsd).toBe(0n);
      } finally {
        await ledger.close();
      }
    });
  },
);
