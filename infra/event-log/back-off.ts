/**
 * Retry timing shared by the event-log adapters: exponential back-off and a sleep that a stop
 * request cuts short.
 */

/** Delay before retry number `attempt` (0-based): `initialMs · 2^attempt`, capped at `maxMs`. */
export function backOffMs(attempt: number, initialMs: number, maxMs: number): number {
  return Math.min(maxMs, initialMs * 2 ** Math.min(attempt, 30));
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function sleepUnlessAborted(ms: number, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}
