/**
 * The Redis session store (REDIS_URL or REDIS_CLUSTER_NODES): one string key per session holding the session as JSON,
 * with a PX expiry — `SET … PX` to store, `GETEX … PX` to read and slide in one command (Redis ≥
 * 6.2), `DEL` to sign out. Key layout: REDIS-KEYS.md. Every gateway node sharing the Redis and the
 * prefix sees the same sessions.
 */
import {
  assertValidTtl,
  parseStoredSession,
  type ConsoleSession,
  type SessionStore,
} from '../../../schemas/state-store/session-store.ts';
import { openRedisAdapter, type RedisAdapterOptions } from './guarded-redis.ts';

/** Options of the Redis session store: the endpoint, key prefix and outage behaviour (guarded-redis.ts). */
export type RedisSessionStoreOptions = RedisAdapterOptions;

/** The key of a session: `<prefix>console:session:<sessionKey>`. */
export function redisSessionKey(prefix: string, sessionKey: string): string {
  return `${prefix}console:session:${sessionKey}`;
}

/**
 * Connects to Redis (reconnecting on its own) and returns the SessionStore over it. While Redis is
 * unreachable or slower than the deadline (`outage`, default 100 ms) calls reject with
 * StateStoreUnavailableError within that deadline, at once while the circuit breaker is open
 * (guarded-redis.ts); a stored value that is not a session reads as undefined.
 */
export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const { guarded, prefix } = openRedisAdapter(options, 'session store', { hashTagged: false });

  return {
    async put(sessionKey: string, session: ConsoleSession, ttlMs: number): Promise<void> {
      assertValidTtl(ttlMs, 'ttlMs');
      const value = JSON.stringify({
        userId: session.userId,
        csrfSecret: session.csrfSecret,
        createdAt: session.createdAt,
        credentialsStamp: session.credentialsStamp,
      });
      await guarded.run((redis) => redis.set(redisSessionKey(prefix, sessionKey), value, 'PX', ttlMs));
    },

    async get(sessionKey: string, slideTtlMs?: number): Promise<ConsoleSession | undefined> {
      const key = redisSessionKey(prefix, sessionKey);
      if (slideTtlMs !== undefined) assertValidTtl(slideTtlMs, 'slideTtlMs');
      const text = await guarded.run((redis) =>
        slideTtlMs === undefined ? redis.get(key) : redis.getex(key, 'PX', slideTtlMs),
      );
      return text === null ? undefined : parseStoredSession(text);
    },

    async delete(sessionKey: string): Promise<void> {
      await guarded.run((redis) => redis.del(redisSessionKey(prefix, sessionKey)));
    },

    close: () => guarded.close(),
  };
}
