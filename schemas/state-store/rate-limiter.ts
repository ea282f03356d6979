/**
 * The rate-limit port: RPM and TPM at user, key and channel level, enforced atomically
 * and exactly across gateway nodes (Redis Lua; in-process memory in embedded mode). Algorithm:
 * GCRA per (scope, kind) with a one-minute burst: `limit` units per 60 000 ms.
 * TPM reserves the request's estimated tokens at admission and is settled with the actual usage
 * afterwards (a failure settles to 0, releasing the reservation).
 *
 * Outage: while its engine cannot answer in time, an adapter rejects with
 * StateStoreUnavailableError (state-store-unavailable.ts) within its deadline; the memory adapter never does.
 */

/** One scope to check, e.g. `{ scope: 'key:key_123', rpm: 60, tpm: 100000 }`; null = unlimited. */
export interface LimitScope {
  readonly scope: string;
  readonly rpm: number | null;
  readonly tpm: number | null;
}

/** The state of one limit after a decision, for `x-ratelimit-*` headers. */
export interface LimitState {
  readonly scope: string;
  readonly kind: 'requests' | 'tokens';
  readonly limit: number;
  /** units left in the current minute */
  readonly remaining: number;
  /** ms until the limit is fully replenished */
  readonly resetMs: number;
}

/** The answer to an admission. */
export interface Admission {
  readonly allowed: boolean;
  /** When refused: ms until the request would be allowed (the longest wait among refusing scopes). */
  readonly retryAfterMs: number;
  /** When refused: the scope and kind that refused first (e.g. `key:key_1` / `tokens`). */
  readonly refusedBy?: { readonly scope: string; readonly kind: 'requests' | 'tokens' };
  /** Every limited scope's state after the decision. */
  readonly states: ReadonlyArray<LimitState>;
}

/** The rate limiter. */
export interface RateLimiter {
  /**
   * Admits one request of `tokens` estimated tokens against every scope at once: either all
   * scopes are charged (1 request + `tokens`), or none is. `now` in ms (tests).
   */
  admit(scopes: ReadonlyArray<LimitScope>, tokens: number, now?: number): Promise<Admission>;
  /** Corrects the token charge of an admitted request from `reserved` to `actual` tokens (negative delta releases). */
  settle(scopes: ReadonlyArray<LimitScope>, reserved: number, actual: number, now?: number): Promise<void>;
  close(): Promise<void>;
}
