/**
 * The Redis response store (REDIS_URL or REDIS_CLUSTER_NODES): one string key per stored response holding the record as
 * JSON (response-store.ts `serializeStoredResponse`), with a PX expiry of the retention —
 * `SET … PX` to store, `MGET` to read one or a whole chain in one round trip (on a Redis Cluster,
 * where a chain's records sit on several slots, one GET per record, sent together), `DEL` to delete.
 * The key names the owning API key's id, so another key's lookups never reach the record. Key
 * layout: REDIS-KEYS.md. Every gateway node sharing the Redis and the prefix sees the same records,
 * so any node can continue a chain another node started.
 */
import {
  parseStoredResponse,
  responseStoreLimits,
  storableRecordText,
  type ResponsePutResult,
  type ResponseStore,
  type ResponseStoreLimits,
  type StoredResponse,
} from '../../../schemas/state-store/response-store.ts';
import { openRedisAdapter, type RedisAdapterOptions } from './guarded-redis.ts';

/** Deadline of storing one record (up to `maxRecordBytes` of JSON), ms: longer than a lookup's. */
const PUT_TIMEOUT_MS = 2000;

/** Options of the Redis response store: the endpoint, key prefix and outage behaviour (guarded-redis.ts), and the record limits (response-store.ts). */
export interface RedisResponseStoreOptions extends RedisAdapterOptions, ResponseStoreLimits {}

/** The key of a stored response: `<prefix>response:<keyId>:<responseId>`. */
export function redisResponseKey(prefix: string, keyId: string, responseId: string): string {
  return `${prefix}response:${keyId}:${responseId}`;
}

/**
 * Connects to Redis (reconnecting on its own) and returns the ResponseStore over it. While Redis is
 * unreachable or slow, calls reject with StateStoreUnavailableError within their deadline (reads
 * and deletes: `outage.commandTimeoutMs`, default 100 ms; `put`: 2000 ms), at once while the
 * circuit breaker is open (guarded-redis.ts); a stored value that is not a record, or whose
 * `keyId`/`id` do not match its key, reads as missing.
 * @throws RangeError when `retentionMs` is not a positive integer
 */
export function createRedisResponseStore(options: RedisResponseStoreOptions): ResponseStore {
  const { retentionMs, maxRecordBytes } = responseStoreLimits(options);
  const { guarded, prefix, cluster } = openRedisAdapter(options, 'response store', { hashTagged: false });
  const parse = (keyId: string, id: string, text: string | null): StoredResponse | undefined => {
    const record = text === null ? undefined : parseStoredResponse(text);
    return record && record.keyId === keyId && record.id === id ? record : undefined;
  };

  return {
    retentionMs,
    maxRecordBytes,

    async put(record: StoredResponse): Promise<ResponsePutResult> {
      const stored = storableRecordText(record, maxRecordBytes);
      if (!stored) return 'too-large';
      await guarded.run(
        (redis) => redis.set(redisResponseKey(prefix, record.keyId, record.id), stored.text, 'PX', retentionMs),
        Math.max(PUT_TIMEOUT_MS, guarded.commandTimeoutMs),
      );
      return 'stored';
    },

    async get(keyId: string, id: string): Promise<StoredResponse | undefined> {
      return parse(keyId, id, await guarded.run((redis) => redis.get(redisResponseKey(prefix, keyId, id))));
    },

    async getMany(keyId: string, ids: ReadonlyArray<string>): Promise<Array<StoredResponse | undefined>> {
      if (ids.length === 0) return [];
      const names = ids.map((id) => redisResponseKey(prefix, keyId, id));
      const texts = await guarded.run((redis) =>
        cluster ? Promise.all(names.map((name) => redis.get(name))) : redis.mget(...names),
      );
      return ids.map((id, i) => parse(keyId, id, texts[i] ?? null));
    },

    async delete(keyId: string, id: string): Promise<boolean> {
      return (await guarded.run((redis) => redis.del(redisResponseKey(prefix, keyId, id)))) > 0;
    },

    close: () => guarded.close(),
  };
}
