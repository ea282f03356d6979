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
  assertStorableRecord,
  assertValidRetention,
  DEFAULT_MAX_RESPONSE_RECORD_BYTES,
  DEFAULT_RESPONSE_RETENTION_MS,
  parseStoredResponse,
  serializeStoredResponse,
  type ResponsePutResult,
  type ResponseStore,
  type StoredResponse,
} from '../../../schemas/state-store/response-store.ts';
import { openGuardedRedis, type RedisOutageSettings, type StateStoreLog } from './guarded-redis.ts';
import { isClusterClient, redisEndpointOf, type RedisEndpoint } from './redis-connection.ts';

/** Deadline of storing one record (up to `maxRecordBytes` of JSON), ms: longer than a lookup's. */
const PUT_TIMEOUT_MS = 2000;

/** Options of the Redis response store. Times in ms, sizes in bytes. */
export interface RedisResponseStoreOptions extends RedisEndpoint {
  /** Starts every key (default `tollgate:`). */
  readonly keyPrefix?: string;
  /** Record lifetime, ms (default 30 days). */
  readonly retentionMs?: number;
  /** Largest record accepted (default 8 MiB of JSON). */
  readonly maxRecordBytes?: number;
  /** Deadline and circuit breaker while Redis is down (guarded-redis.ts; default: 100 ms, open after 3 failures for 1000 ms). */
  readonly outage?: RedisOutageSettings;
  /** Where the outage transitions are logged (once per transition). */
  readonly log?: StateStoreLog;
}

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
  const prefix = options.keyPrefix ?? 'tollgate:';
  const retentionMs = options.retentionMs ?? DEFAULT_RESPONSE_RETENTION_MS;
  assertValidRetention(retentionMs);
  const maxRecordBytes = options.maxRecordBytes ?? DEFAULT_MAX_RESPONSE_RECORD_BYTES;
  const guarded = openGuardedRedis({
    ...redisEndpointOf(options),
    role: 'response store',
    ...(options.outage ? { outage: options.outage } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  const cluster = isClusterClient(guarded.client);
  const parse = (keyId: string, id: string, text: string | null): StoredResponse | undefined => {
    const record = text === null ? undefined : parseStoredResponse(text);
    return record && record.keyId === keyId && record.id === id ? record : undefined;
  };

  return {
    retentionMs,
    maxRecordBytes,

    async put(record: StoredResponse): Promise<ResponsePutResult> {
      assertStorableRecord(record);
      const text = serializeStoredResponse(record);
      if (Buffer.byteLength(text, 'utf8') > maxRecordBytes) return 'too-large';
      await guarded.run(
        (redis) => redis.set(redisResponseKey(prefix, record.keyId, record.id), text, 'PX', retentionMs),
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
