/**
 * This node's own circuit breaker per channel: reacts at once to the attempts this gateway makes,
 * before the shared health (folded by the health consumer) catches up. Same rules as the shared
 * fold (schemas/state-store/fold-channel-health.ts): `failureThreshold` consecutive failures open
 * it for `cooldownMs` (every further failure re-opens it: half-open after the cooldown); a
 * Retry-After opens it until then, even on the first failure; a success closes the failure part
 * but never shortens a Retry-After.
 */

interface BreakerState {
  consecutiveFailures: number;
  /** ms since epoch */
  failureOpenUntil: number;
  /** ms since epoch */
  retryAfterUntil: number;
}

/** Settings of the local breaker. Times in ms; `clock` returns ms since epoch. */
export interface LocalCircuitBreakerOptions {
  readonly failureThreshold: number;
  readonly cooldownMs: number;
  readonly clock: () => number;
}

/** Per-channel consecutive-failure breaker with Retry-After support (in memory, this node only). */
export class LocalCircuitBreaker {
  private readonly channels = new Map<string, BreakerState>();

  constructor(private readonly options: LocalCircuitBreakerOptions) {}

  /** Records one attempt: `ok` false only for channel faults; `retryAfterMs` as the upstream asked. */
  report(channelId: string, ok: boolean, retryAfterMs?: number): void {
    const now = this.options.clock();
    let state = this.channels.get(channelId);
    if (!state) {
      if (ok && !retryAfterMs) return;
      state = { consecutiveFailures: 0, failureOpenUntil: 0, retryAfterUntil: 0 };
      this.channels.set(channelId, state);
    }
    if (retryAfterMs !== undefined && retryAfterMs > 0)
      state.retryAfterUntil = Math.max(state.retryAfterUntil, now + retryAfterMs);
    if (ok) {
      state.consecutiveFailures = 0;
      state.failureOpenUntil = 0;
      return;
    }
    state.consecutiveFailures++;
    if (state.consecutiveFailures >= this.options.failureThreshold)
      state.failureOpenUntil = Math.max(state.failureOpenUntil, now + this.options.cooldownMs);
  }

  /** True while the breaker of `channelId` is open. */
  isOpen(channelId: string): boolean {
    const state = this.channels.get(channelId);
    if (!state) return false;
    return Math.max(state.failureOpenUntil, state.retryAfterUntil) > this.options.clock();
  }

  /** Until when (ms since epoch) the breaker is open; 0 when closed. */
  openUntil(channelId: string): number {
    const state = this.channels.get(channelId);
    const until = state ? Math.max(state.failureOpenUntil, state.retryAfterUntil) : 0;
    return until > this.options.clock() ? until : 0;
  }
}
