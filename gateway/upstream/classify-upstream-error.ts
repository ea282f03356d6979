/**
 * Shared HTTP-status classification for every upstream protocol: adapters extract the upstream's
 * message from their own error envelope and call this for the kind/status/failover decision.
 */
import { GatewayError } from '../canonical/gateway-error.ts';
import type { UpstreamHeaders } from './upstream-adapter.ts';

function headerValue(headers: UpstreamHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Reads `retry-after-ms` (ms) or `retry-after` (seconds or an HTTP date) into milliseconds.
 * Returns undefined when absent or unparsable.
 */
export function parseRetryAfterMs(headers: UpstreamHeaders, now: number = Date.now()): number | undefined {
  const ms = headerValue(headers, 'retry-after-ms');
  if (ms !== undefined && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const after = headerValue(headers, 'retry-after');
  if (after === undefined) return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(after)) return Math.max(0, Number(after) * 1000);
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/**
 * Maps an upstream HTTP failure to a GatewayError:
 * 408/504 → upstream-timeout; 429 → upstream-rate-limited; 5xx/529 → upstream-unavailable
 * (client sees 502, or 503/504 as given); other 4xx → upstream-rejected with the upstream's status
 * (401/403 from upstream become 502: the client's key is fine, the channel's credential is not).
 * `message` is the upstream's own error text; `code` its error code/type if any.
 */
export function classifyUpstreamHttpError(
  status: number,
  message: string,
  headers: UpstreamHeaders,
  code?: string,
): GatewayError {
  const retryAfterMs = parseRetryAfterMs(headers);
  const base = {
    upstreamStatus: status,
    ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    ...(code === undefined ? {} : { code }),
  };
  const text = message || `Upstream answered HTTP ${status}`;
  if (status === 408 || status === 504) return new GatewayError('upstream-timeout', text, { ...base, status: 504 });
  if (status === 429) return new GatewayError('upstream-rate-limited', text, { ...base, status: 429 });
  if (status >= 500)
    return new GatewayError('upstream-unavailable', text, { ...base, status: status === 503 ? 503 : 502 });
  if (status === 401 || status === 403) {
    return new GatewayError('upstream-rejected', `Upstream refused the channel's credentials: ${text}`, {
      ...base,
      status: 502,
      allowFailover: true,
      retryable: false,
    });
  }
  if (status === 402)
    return new GatewayError('upstream-rejected', text, { ...base, status: 502, allowFailover: true, retryable: false });
  return new GatewayError('upstream-rejected', text, { ...base, status: status >= 400 && status < 500 ? status : 502 });
}

/** Extracts a human message from an upstream error body of any JSON shape, or the raw text. */
export function upstreamErrorMessage(body: string): { message: string; code?: string } {
  try {
    const parsed = JSON.parse(body) as unknown;
    const root: unknown = Array.isArray(parsed) ? parsed[0] : parsed;
    if (root && typeof root === 'object') {
      const error = (root as Record<string, unknown>).error;
      if (error && typeof error === 'object') {
        const e = error as Record<string, unknown>;
        const message = typeof e.message === 'string' ? e.message : JSON.stringify(error);
        const code =
          typeof e.code === 'string'
            ? e.code
            : typeof e.type === 'string'
              ? e.type
              : typeof e.status === 'string'
                ? e.status
                : undefined;
        return code === undefined ? { message } : { message, code };
      }
      if (typeof error === 'string') return { message: error };
      const msg = (root as Record<string, unknown>).message;
      if (typeof msg === 'string') return { message: msg };
    }
  } catch {
    // not JSON: fall through to the raw text
  }
  return { message: body.slice(0, 500).trim() };
}
