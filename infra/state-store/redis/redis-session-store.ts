/**
 * The Redis session store (REDIS_URL): one string key per session holding the session as JSON,
 * with a PX expiry — `SET … PX` to store, `GETEX … PX` to read and slide in one command (Redis ≥
 * 6.2), `DEL` to sign out. Key layout: REDIS-KEYS.md. Every gateway node sharing the Redis and the
 * prefix sees the same sessions.
 */
import { Redis } from 'ioredis';
import { assertValidTtl, parseStoredSession, type ConsoleSession, type SessionStore } from '../../../schemas/state-store/session-store.ts';

/** Options of the Redis session store. `keyPrefix` (default `tollgate:`) starts every key. */
export interface RedisSessionStoreOptions {
  /** `redis://[user:password@]host:port[/db]`; never logged. */
  readonly url: string;
  readonly keyPrefix?: string;
}

/** The key of a session: `<prefix>console:session:<sessionKey>`. */
export function redisSessionKey(prefix: string, sessionKey: string): string {
  return `${prefix}console:session:${sessionKey}`;
}

/**
 * Connects to Redis (reconnecting on its own) and returns the SessionStore over it. Calls reject
 * while Redis is unreachable (after 3 retries); a stored value that is not a session reads as
 * undefined.
 */
export function createRedisSessionStore(options: RedisSessionStoreOptions): SessionStore {
  const prefix = options.keyPrefix ?? 'tollgate:';
  const redis = new Redis(options.url, { maxRetriesPerRequest: 3 });
  redis.on('error', () => {}); // commands reject with the cause; without a listener ioredis prints to stderr

  return {
    async put(sessionKey: string, session: ConsoleSession, ttlMs: number): Promise<void> {
      assertValidTtl(ttlMs, 'ttlMs');
      const value = JSON.stringify({ userId: session.userId, csrfSecret: session.csrfSecret, createdAt: session.createdAt, credentialsStamp: session.credentialsStamp });
      await redis.set(redisSessionKey(prefix, sessionKey), value, 'PX', ttlMs);
    },

    async get(sessionKey: string, slideTtlMs?: number): Promise<ConsoleSession | undefined> {
      const key = redisSessionKey(prefix, sessionKey);
      if (slideTtlMs !== undefined) assertValidTtl(slideTtlMs, 'slideTtlMs');
      const text = slideTtlMs === undefined ? await redis.get(key) : await redis.getex(key, 'PX', slideTtlMs);
      return text === null ? undefined : parseStoredSession(text);
    },

    async delete(sessionKey: string): Promise<void> {
      await redis.del(redisSessionKey(prefix, sessionKey));
    },

    async close(): Promise<void> {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
