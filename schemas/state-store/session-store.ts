/**
 * The console session store port: who is signed in, keyed by a digest of the session
 * cookie's random token (sha256 hex — never the token itself, so a dump of the store signs nobody
 * in). Adapters: Redis (REDIS_URL or REDIS_CLUSTER_NODES; every gateway node sees the same sessions; key layout in
 * REDIS-KEYS.md) and in-process memory (embedded mode). Chosen by `openSessionStore`
 * (infra/open-adapters.ts).
 *
 * Outage: while its engine cannot answer in time, an adapter rejects with
 * StateStoreUnavailableError (state-store-unavailable.ts) within its deadline; the memory adapter never does.
 */
import { parseStoredJson } from './stored-value.ts';

/** Rejects a TTL that is not a positive integer number of ms (stored-value.ts). @throws RangeError naming the argument */
export { assertValidTtl } from './stored-value.ts';

/** A console session: the signed-in user and the CSRF secret. */
export interface ConsoleSession {
  readonly userId: string;
  /** Secret from which the session's CSRF tokens are made. */
  readonly csrfSecret: string;
  /** ms since epoch */
  readonly createdAt: number;
  /**
   * A digest of the user's credentials when the session was opened: a session whose user has
   * changed password since (on any node) is no longer accepted.
   */
  readonly credentialsStamp: string;
}

/** Where console sessions live. Times in ms. */
export interface SessionStore {
  /**
   * Stores `session` under `sessionKey` for `ttlMs` (replacing any).
   * @throws RangeError when `ttlMs` is not a positive integer
   */
  put(sessionKey: string, session: ConsoleSession, ttlMs: number): Promise<void>;
  /**
   * The session, or undefined when unknown or expired; extends its life to `slideTtlMs` from now
   * when given (sliding).
   * @throws RangeError when `slideTtlMs` is given and not a positive integer
   */
  get(sessionKey: string, slideTtlMs?: number): Promise<ConsoleSession | undefined>;
  /** Forgets the session (nothing happens when it is unknown). */
  delete(sessionKey: string): Promise<void>;
  close(): Promise<void>;
}

/** A stored session value back to a ConsoleSession; undefined when it is not one (never throws). */
export function parseStoredSession(text: string): ConsoleSession | undefined {
  const value = parseStoredJson(text);
  if (typeof value !== 'object' || value === null) return undefined;
  const { userId, csrfSecret, createdAt, credentialsStamp } = value as Record<string, unknown>;
  if (
    typeof userId !== 'string' ||
    typeof csrfSecret !== 'string' ||
    typeof createdAt !== 'number' ||
    typeof credentialsStamp !== 'string'
  )
    return undefined;
  return { userId, csrfSecret, createdAt, credentialsStamp };
}
