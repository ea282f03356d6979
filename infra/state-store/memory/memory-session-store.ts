/**
 * The in-process session store (embedded mode, no REDIS_URL): a Map with expiry times, the same
 * contract as the Redis adapter (session-store.ts). Sessions live as long as the process; expired
 * ones are dropped when read and swept every 256 writes.
 */
import { assertValidTtl, type ConsoleSession, type SessionStore } from '../../../schemas/state-store/session-store.ts';

/** Options of the memory store; `clock` (ms since epoch) is for tests. */
export interface MemorySessionStoreOptions {
  readonly clock?: () => number;
}

const SWEEP_EVERY_PUTS = 256;

/** Creates an empty in-process SessionStore. */
export function createMemorySessionStore(options: MemorySessionStoreOptions = {}): SessionStore {
  const clock = options.clock ?? Date.now;
  const sessions = new Map<string, { session: ConsoleSession; expiresAt: number }>();
  let puts = 0;
  const sweep = (now: number): void => {
    for (const [key, entry] of sessions) if (entry.expiresAt <= now) sessions.delete(key);
  };

  return {
    async put(sessionKey: string, session: ConsoleSession, ttlMs: number): Promise<void> {
      assertValidTtl(ttlMs, 'ttlMs');
      const now = clock();
      if (++puts % SWEEP_EVERY_PUTS === 0) sweep(now);
      sessions.set(sessionKey, {
        session: {
          userId: session.userId,
          csrfSecret: session.csrfSecret,
          createdAt: session.createdAt,
          credentialsStamp: session.credentialsStamp,
        },
        expiresAt: now + ttlMs,
      });
    },

    async get(sessionKey: string, slideTtlMs?: number): Promise<ConsoleSession | undefined> {
      if (slideTtlMs !== undefined) assertValidTtl(slideTtlMs, 'slideTtlMs');
      const now = clock();
      const entry = sessions.get(sessionKey);
      if (!entry) return undefined;
      if (entry.expiresAt <= now) {
        sessions.delete(sessionKey);
        return undefined;
      }
      if (slideTtlMs !== undefined) entry.expiresAt = now + slideTtlMs;
      return { ...entry.session };
    },

    async delete(sessionKey: string): Promise<void> {
      sessions.delete(sessionKey);
    },

    async close(): Promise<void> {
      sessions.clear();
    },
  };
}
