/**
 * The one error every state-store port (StateStore, RateLimiter, SessionStore, ResponseStore)
 * rejects with when its engine cannot answer in time: the Redis adapters raise it when Redis is
 * unreachable, does not answer within the command deadline, or has just failed often enough that
 * the adapter stops trying for a moment (circuit open). The memory adapters never raise it.
 * Callers apply their outage policy (fail open or closed) on it; any other rejection is a bug or
 * a refused input, not an outage.
 */

/** Why the store did not answer: no connection, no answer within the deadline, or not tried (circuit open). */
export type StoreUnavailableReason = 'unreachable' | 'timeout' | 'circuit-open';

/** A state-store call that could not be answered because the engine is down or too slow. */
export class StateStoreUnavailableError extends Error {
  /** Stable tag for callers that cannot use `instanceof` (another copy of this module). */
  readonly code = 'STATE_STORE_UNAVAILABLE';

  /**
   * @param store what could not answer, for messages (e.g. `rate limiter (Redis)`)
   * @param reason why (StoreUnavailableReason)
   * @param retryAfterMs when the store will be tried again at the earliest, ms from now (0: at once)
   */
  constructor(
    readonly store: string,
    readonly reason: StoreUnavailableReason,
    readonly retryAfterMs: number,
    options?: { cause?: unknown },
  ) {
    super(describeUnavailable(store, reason), options);
    this.name = 'StateStoreUnavailableError';
  }
}

function describeUnavailable(store: string, reason: StoreUnavailableReason): string {
  if (reason === 'timeout') return `the ${store} did not answer in time`;
  if (reason === 'circuit-open')
    return `the ${store} is unreachable (not retried for a moment after repeated failures)`;
  return `the ${store} is unreachable`;
}

/** Whether `error` is a StateStoreUnavailableError (by class or by its `code`). */
export function isStateStoreUnavailable(error: unknown): error is StateStoreUnavailableError {
  return (
    error instanceof StateStoreUnavailableError ||
    (typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'STATE_STORE_UNAVAILABLE')
  );
}
