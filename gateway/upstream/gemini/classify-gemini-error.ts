/**
 * Classification of Gemini failures (per https://ai.google.dev/api/generate-content): HTTP errors with a
 * google.rpc.Status body, and errors embedded in a 2xx body or a stream chunk.
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import { classifyUpstreamHttpError, upstreamErrorMessage } from '../classify-upstream-error.ts';
import type { UpstreamHeaders } from '../upstream-adapter.ts';
import type { GeminiErrorObject } from './gemini-wire-schemas.ts';

/** The parts of `error.details` that change the classification. */
interface GeminiErrorDetails {
  /** `ErrorInfo.reason`, e.g. `API_KEY_INVALID`. */
  readonly reason?: string;
  /** `RetryInfo.retryDelay` in seconds (`"17s"` → 17). */
  readonly retryDelaySeconds?: number;
}

function readDetails(details: ReadonlyArray<unknown> | null | undefined): GeminiErrorDetails {
  let reason: string | undefined;
  let retryDelaySeconds: number | undefined;
  for (const detail of details ?? []) {
    if (detail === null || typeof detail !== 'object') continue;
    const d = detail as Record<string, unknown>;
    if (typeof d.reason === 'string') reason ??= d.reason;
    const delay = typeof d.retryDelay === 'string' ? /^(\d+(?:\.\d+)?)s$/.exec(d.retryDelay) : null;
    if (delay?.[1] !== undefined) retryDelaySeconds ??= Number(delay[1]);
  }
  return {
    ...(reason === undefined ? {} : { reason }),
    ...(retryDelaySeconds === undefined ? {} : { retryDelaySeconds }),
  };
}

function errorObjectOf(body: string): GeminiErrorObject | undefined {
  try {
    const parsed = JSON.parse(body) as unknown;
    const root: unknown = Array.isArray(parsed) ? parsed[0] : parsed;
    const error = root !== null && typeof root === 'object' ? (root as Record<string, unknown>).error : undefined;
    return error !== null && typeof error === 'object' ? error : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Classifies a non-2xx Gemini answer (`body` raw text, normally `{"error":{code,message,status,
 * details}}`, possibly wrapped in an array). Shared HTTP mapping, plus: 400 with reason
 * `API_KEY_INVALID` or status `FAILED_PRECONDITION` (billing/region) blame the channel →
 * upstream-rejected, status 502, failover allowed, not retryable; a `RetryInfo.retryDelay` fills
 * `retryAfterMs` when no Retry-After header was sent. `code` is the rpc status string.
 */
export function classifyGeminiError(status: number, body: string, headers: UpstreamHeaders): GatewayError {
  const { message, code } = upstreamErrorMessage(body);
  const error = errorObjectOf(body);
  const details = readDetails(Array.isArray(error?.details) ? error.details : undefined);
  const rpcStatus = typeof error?.status === 'string' ? error.status : code;
  if (status === 400 && (details.reason === 'API_KEY_INVALID' || rpcStatus === 'FAILED_PRECONDITION')) {
    const text =
      details.reason === 'API_KEY_INVALID' ? `Upstream refused the channel's credentials: ${message}` : message;
    return new GatewayError('upstream-rejected', text, {
      status: 502,
      allowFailover: true,
      retryable: false,
      upstreamStatus: status,
      ...(rpcStatus === undefined ? {} : { code: rpcStatus }),
    });
  }
  const hasRetryHeader = headers['retry-after'] !== undefined || headers['retry-after-ms'] !== undefined;
  const effectiveHeaders =
    details.retryDelaySeconds !== undefined && !hasRetryHeader
      ? { ...headers, 'retry-after': String(details.retryDelaySeconds) }
      : headers;
  return classifyUpstreamHttpError(status, message, effectiveHeaders, rpcStatus);
}

/**
 * Classifies an error object found in a 2xx body or a stream chunk (`{"error":{…}}`), using
 * `error.code` as the HTTP status (500 when absent) — Google keeps them equal (https://ai.google.dev/gemini-api/docs/troubleshooting).
 */
export function classifyGeminiErrorObject(error: GeminiErrorObject): GatewayError {
  const status = typeof error.code === 'number' && error.code >= 400 && error.code <= 599 ? error.code : 500;
  return classifyGeminiError(status, JSON.stringify({ error }), {});
}
