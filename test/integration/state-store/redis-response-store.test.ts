/**
 * The Redis response store against a real Redis (REDIS_URL): the shared contract suite (real
 * time), the key layout of REDIS-KEYS.md with its retention TTL, a corrupt or misplaced value read
 * as missing, and openResponseStore's choice of adapter and retention. Every run uses its own key
 * prefix and deletes its keys afterwards.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { engineSettingsFromEnv, openResponseStore } from '../../../infra/open-adapters.ts';
import { createRedisResponseStore, redisResponseKey } from '../../../infra/state-store/redis/redis-response-store.ts';
import { parseStoredResponse } from '../../../schemas/state-store/response-store.ts';
import { describeResponseStoreContract, sampleRecord } from '../../unit/state-store/response-store-contract.ts';
import { useRedisTestKeys } from '../../support/redis-test-keys.ts';
import { withoutEngines } from '../../support/engines.ts';

const redisKeys = useRedisTestKeys('responses');

describe.skipIf(withoutEngines)('redis adapter', () => {
  describeResponseStoreContract('redis', {
    sharedByNamespace: true,
    make: async (namespace, options) =>
      createRedisResponseStore({ url: redisKeys.url, keyPrefix: `${redisKeys.prefix}${namespace}:`, ...options }),
    advance: (ms) => sleep(ms),
  });
});

describe.skipIf(withoutEngines)('redis response store', () => {
  it('writes <prefix>response:<keyId>:<responseId> as JSON with a PX ttl of the retention', async () => {
    const prefix = `${redisKeys.prefix}layout:`;
    const store = createRedisResponseStore({ url: redisKeys.url, keyPrefix: prefix, retentionMs: 60_000 });
    const record = sampleRecord();
    await store.put(record);
    const key = `${prefix}response:${record.keyId}:${record.id}`;
    expect(redisResponseKey(prefix, record.keyId, record.id)).toBe(key);
    expect(parseStoredResponse((await redisKeys.admin.get(key))!)).toEqual(record);
    const ttl = await redisKeys.admin.pttl(key);
    expect(ttl).toBeGreaterThan(59_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
    await store.get(record.keyId, record.id);
    expect(await redisKeys.admin.pttl(key)).toBeLessThanOrEqual(ttl); // reads do not slide
    await store.close();
  });

  it("reads a value that is not a record, or another key's record under this key, as missing", async () => {
    const prefix = `${redisKeys.prefix}corrupt:`;
    const store = createRedisResponseStore({ url: redisKeys.url, keyPrefix: prefix });
    const record = sampleRecord();
    await redisKeys.admin.set(redisResponseKey(prefix, record.keyId, 'resp_badjson'), '{not json', 'PX', 60_000);
    await redisKeys.admin.set(
      redisResponseKey(prefix, record.keyId, record.id),
      JSON.stringify({ ...record, keyId: 'key_someoneelse' }),
      'PX',
      60_000,
    );
    expect(await store.get(record.keyId, 'resp_badjson')).toBeUndefined();
    expect(await store.getMany(record.keyId, [record.id, 'resp_badjson'])).toEqual([undefined, undefined]);
    await store.close();
  });

  it('openResponseStore: Redis with a redisUrl (under redisKeyPrefix, retention in days), else memory', async () => {
    const prefix = `${redisKeys.prefix}open:`;
    const shared = openResponseStore({
      dataDir: '/nonexistent',
      redisUrl: redisKeys.url,
      redisKeyPrefix: prefix,
      responseRetentionDays: 2,
    });
    const local = openResponseStore({ dataDir: '/nonexistent' });
    expect(shared.retentionMs).toBe(2 * 86_400_000);
    expect(local.retentionMs).toBe(30 * 86_400_000);
    const [a, b] = [sampleRecord(), sampleRecord()];
    await shared.put(a);
    await local.put(b);
    expect(await redisKeys.admin.exists(redisResponseKey(prefix, a.keyId, a.id))).toBe(1);
    expect(await redisKeys.admin.exists(redisResponseKey(prefix, b.keyId, b.id))).toBe(0);
    expect(await local.get(b.keyId, b.id)).toEqual(b);
    await Promise.all([shared.close(), local.close()]);
  });

  it('reads TOLLGATE_RESPONSE_RETENTION_DAYS and refuses a bad value', () => {
    expect(engineSettingsFromEnv({ TOLLGATE_RESPONSE_RETENTION_DAYS: '7' }).responseRetentionDays).toBe(7);
    expect(engineSettingsFromEnv({}).responseRetentionDays).toBeUndefined();
    for (const bad of ['0', '-3', 'forever'])
      expect(() => engineSettingsFromEnv({ TOLLGATE_RESPONSE_RETENTION_DAYS: bad })).toThrow(
        /TOLLGATE_RESPONSE_RETENTION_DAYS/,
      );
  });
});
