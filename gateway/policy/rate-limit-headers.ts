/**
 * The `x-ratelimit-*` and `retry-after` headers of an admission, in OpenAI's convention (which
 * the OpenAI SDKs parse and other clients tolerate):
 * - `x-ratelimit-limit-requests` / `-tokens`: the limit per minute of the tightest scope;
 * - `x-ratelimit-remaining-requests` / `-tokens`: units left in that scope's current minute;
 * - `x-ratelimit-reset-requests` / `-tokens`: time until that scope is fully replenished, as a
 *   Go-style duration like OpenAI's (`20ms`, `1s`, `1.5s`, `6m0s`, `1h2m3.004s`);
 * - `retry-after`: whole seconds (rounded up), only on a refusal.
 * The tightest scope of a kind is the one with the fewest remaining units (ties: smaller limit).
 */
import type { LimitState } from '../../schemas/state-store/rate-limiter.ts';

/** Header name → value, lower-case names. */
export type RateLimitHeaders = Readonly<Record<string, string>>;

/** `.5`, `.25`, `.125` for 500, 250, 125 ms: the fraction of a second without trailing zeros; '' for 0. */
function fractionOfSecond(ms: number): string {
  if (ms === 0) return '';
  let digits = ms;
  let width = 3;
  while (digits % 10 === 0) {
    digits /= 10;
    width--;
  }
  return `.${String(digits).padStart(width, '0')}`;
}

/**
 * Formats `ms` (≥ 0, rounded up to whole ms) like Go's time.Duration: below a second `Nms`
 * (`0s` for zero), else hours/minutes/seconds with up to 3 decimals (`1m0s`, `1.25s`).
 */
export function formatResetDuration(ms: number): string {
  const total = Math.max(0, Math.ceil(ms));
  if (total === 0) return '0s';
  if (total < 1000) return `${total}ms`;
  const hours = Math.floor(total / 3_600_000);
  const minutes = Math.floor((total % 3_600_000) / 60_000);
  const millis = total % 60_000;
  const seconds = `${Math.floor(millis / 1000)}${fractionOfSecond(millis % 1000)}s`;
  if (hours > 0) return `${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${minutes}m${seconds}`;
  return seconds;
}

/** The tightest state of `kind` among `states`, if any. */
export function tightestState(states: ReadonlyArray<LimitState>, kind: LimitState['kind']): LimitState | undefined {
  let best: LimitState | undefined;
  for (const state of states) {
    if (state.kind !== kind) continue;
    if (!best || state.remaining < best.remaining || (state.remaining === best.remaining && state.limit < best.limit))
      best = state;
  }
  return best;
}

/** The header names of each limit kind, made once. */
const HEADER_NAMES = (['requests', 'tokens'] as const).map((kind) => ({
  kind,
  limit: `x-ratelimit-limit-${kind}`,
  remaining: `x-ratelimit-remaining-${kind}`,
  reset: `x-ratelimit-reset-${kind}`,
}));

/**
 * The headers for an admission's `states`; `retryAfterMs` (refusals only) adds `retry-after` in
 * whole seconds, rounded up. Kinds with no limited scope get no headers.
 */
export function rateLimitHeaders(states: ReadonlyArray<LimitState>, retryAfterMs?: number): RateLimitHeaders {
  const headers: Record<string, string> = {};
  for (const names of HEADER_NAMES) {
    const state = tightestState(states, names.kind);
    if (!state) continue;
    headers[names.limit] = String(state.limit);
    headers[names.remaining] = String(state.remaining);
    headers[names.reset] = formatResetDuration(state.resetMs);
  }
  if (retryAfterMs !== undefined) headers['retry-after'] = String(Math.max(0, Math.ceil(retryAfterMs / 1000)));
  return headers;
}
