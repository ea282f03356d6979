/**
 * The Redis prompt-cache affinity store (REDIS_URL or REDIS_CLUSTER_NODES): one string key per
 * conversation holding its pin as JSON, with a PX expiry — `GET` reads it, `SET … PX` pins (and,
 * after every served request, slides the lifetime). Key layout: REDIS-KEYS.md. Every gateway node sharing the
 * Redis and the prefix sees the same pins.
 */
import {
  assertValidTtl,
  parseStoredPin,
  storedPin,
  type AffinityPin,
  type AffinityStore,
} from '../../../schemas/state-store/affinity-store.ts';
import { openRedisAdapter, type RedisAdapterOptions } from './guarded-redis.ts';

/** Options of the Redis affinity store: the endpoint, key prefix and outage behaviour (guarded-redis.ts). */
export type RedisAffinityStoreOptions = RedisAdapterOptions;

/** The key of a conversation's pin: `<prefix>affinity:<affinityKey>`. */
export function redisAffinityKey(prefix: string, affinityKey: string): string {
  return `${prefix}affinity:${affinityKey}`;
}

/**
 * Connects to Redis (reconnecting on its own) and returns the AffinityStore over it. While Redis
 * is unreachable or slower than the deadline (`outage`, default 100 ms) calls reject with
 * StateStoreUnavailableError within that deadline (guarded-redis.ts); a stored value that is not
 * a pin reads as undefined.
 */
export function createRedisAffinityStore(options: RedisAffinityStoreOptions): AffinityStore {
  const { guarded, prefix } = openRedisAdapter(options, 'affinity store', { hashTagged: false });
  return {
    async get(affinityKey: string): Promise<AffinityPin | undefined> {
      const text = await guarded.run((redis) => redis.get(redisAffinityKey(prefix, affinityKey)));
      return text === null ? undefined : parseStoredPin(text);
    },

    async put(affinityKey: string, pin: AffinityPin, ttlMs: number): Promise<void> {
      assertValidTtl(ttlMs, 'ttlMs');
      await guarded.run((redis) => redis.set(redisAffinityKey(prefix, affinityKey), storedPin(pin), 'PX', ttlMs));
    },

    close: () => guarded.close(),
  };
}
