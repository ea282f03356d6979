/**
 * One webhook delivery with retries: POST, a 2xx answer is success, anything else (another status,
 * a timeout, a connection error) is retried after an exponential backoff with decorrelated jitter
 * (cockatiel's ExponentialBackoff, https://github.com/connor4312/cockatiel#exponentialbackoff),
 * each attempt bounded by its own timeout, up to a bounded number of attempts. Every attempt is
 * signed anew (its own `webhook-timestamp`), so a receiver that rejects old timestamps accepts a
 * late retry. Redirects are not followed: a 3xx is a failed attempt.
 */
import { ExponentialBackoff, handleAll, retry, timeout, TimeoutStrategy, wrap } from 'cockatiel';
import type { SignedWebhookRequest } from './alert-webhook-message.ts';

/** Retry settings of a delivery. */
export interface DeliveryRetryOptions {
  /** Attempts in all, ≥ 1 (default 5). */
  readonly maxAttempts?: number;
  /** Longest one attempt may take, ms (default 10 000). */
  readonly attemptTimeoutMs?: number;
  /** First backoff delay, ms (default 500); later ones grow exponentially with jitter. */
  readonly initialDelayMs?: number;
  /** Longest backoff delay, ms (default 30 000). */
  readonly maxDelayMs?: number;
}

/** How a delivery ended. */
export interface DeliveryResult {
  readonly outcome: 'delivered' | 'failed';
  /** Attempts made, 1..maxAttempts. */
  readonly attempts: number;
  /** HTTP status of the last attempt; 0 when it got none. */
  readonly httpStatus: number;
  /** Why the last attempt failed (no secret or signature in it); absent when delivered. */
  readonly reason?: string;
}

/** A non-2xx answer, as a failure the retry policy handles. */
class UnacceptedStatusError extends Error {
  constructor(readonly status: number) {
    super(`the webhook answered HTTP ${status}`);
  }
}

/**
 * POSTs to `url` the request `sign(nowMs)` builds for each attempt until a 2xx, or until the
 * attempts run out. Never rejects: the result says how it ended.
 */
export async function deliverWebhook(
  url: string,
  sign: (nowMs: number) => SignedWebhookRequest,
  options: DeliveryRetryOptions = {},
): Promise<DeliveryResult> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 5);
  const policy = wrap(
    retry(handleAll, {
      maxAttempts: maxAttempts - 1,
      backoff: new ExponentialBackoff({
        initialDelay: options.initialDelayMs ?? 500,
        maxDelay: options.maxDelayMs ?? 30_000,
      }),
    }),
    timeout(options.attemptTimeoutMs ?? 10_000, TimeoutStrategy.Aggressive),
  );
  let attempts = 0;
  let httpStatus = 0;
  try {
    await policy.execute(async ({ signal }) => {
      attempts += 1;
      httpStatus = 0;
      const request = sign(Date.now());
      const response = await fetch(url, {
        method: 'POST',
        headers: request.headers,
        body: request.body,
        redirect: 'manual',
        signal,
      });
      httpStatus = response.status;
      await response.body?.cancel().catch(() => undefined);
      if (response.status < 200 || response.status > 299) throw new UnacceptedStatusError(response.status);
    });
    return { outcome: 'delivered', attempts, httpStatus };
  } catch (error) {
    return { outcome: 'failed', attempts, httpStatus, reason: describeFailure(error) };
  }
}

/** A short reason for a log line: the status, the timeout, or the connection error's message and code. */
function describeFailure(error: unknown): string {
  if (error instanceof UnacceptedStatusError) return error.message;
  if (!(error instanceof Error)) return String(error);
  const cause = (error as Error & { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ? `${error.message} (${cause.code})` : error.message;
}
