/**
 * Bounds of failover: how many attempts one request may make, and the waits between two.
 *
 * Waits: when the failed attempt carried a Retry-After of at most the cap (config
 * `routing.retries.retryAfterCapMs`, default MAX_FAILOVER_WAIT_MS = 1 s), the next attempt waits
 * that long (a short upstream hiccup, often shared by the accounts of one provider); a longer
 * Retry-After is not waited for — the client would be blocked for it, and the failed channel is
 * moved out of the way by health (the local breaker and the shared cooldown honour the full
 * Retry-After), so the next channel is tried at once. A retry round over channels already tried
 * (config `routing.retries.maxRetries`) waits an exponential back-off with full jitter
 * (retryBackoffMs), or the longest Retry-After of the round's channels when that is longer (each within the cap)
 * (https://aws.amazon.com/builders-library/timeouts-retries-and-backoff-with-jitter/).
 */
import type { GatewayError } from '../canonical/gateway-error.ts';
import type { ClientGoneSignal } from '../lifecycle/client-gone-signal.ts';

/** Channels tried at most for one request when ExchangeDeps.maxAttempts is not set. */
export const DEFAULT_MAX_ATTEMPTS = 4;

/** Longest upstream Retry-After waited for between two failover attempts, ms. */
export const MAX_FAILOVER_WAIT_MS = 1000;

/** ms to wait before the next attempt after `error`: its retryAfterMs when in (0, capMs] (default 1000), else 0. */
export function failoverWaitMs(
  error: Pick<GatewayError, 'retryAfterMs'>,
  capMs: number = MAX_FAILOVER_WAIT_MS,
): number {
  const after = error.retryAfterMs;
  return after !== undefined && Number.isFinite(after) && after > 0 && after <= capMs ? after : 0;
}

/**
 * The back-off before retry round `round` (1-based), ms: full jitter, a uniform draw in
 * [0, min(maxMs, baseMs × 2^(round − 1))).
 */
export function retryBackoffMs(
  round: number,
  baseMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  const ceiling = Math.min(maxMs, baseMs * 2 ** Math.max(0, round - 1));
  return Math.floor(random() * ceiling);
}

/** Resolves after `ms`, or at once when `signal` aborts (the client went away). */
export function waitForFailover(ms: number, signal: ClientGoneSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
  });
}

/** The attempt cap to use: `maxAttempts` when a positive integer, else DEFAULT_MAX_ATTEMPTS. */
export function attemptCap(maxAttempts: number | undefined): number {
  return maxAttempts !== undefined && Number.isSafeInteger(maxAttempts) && maxAttempts >= 1
    ? maxAttempts
    : DEFAULT_MAX_ATTEMPTS;
}
