/**
 * Classification of Anthropic-protocol failures (per https://docs.anthropic.com/en/api/messages and
 * gateway/providers/PROVIDER-DOCS.md): HTTP errors, error envelopes in a 2xx body, and SSE `error` events.
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import { classifyUpstreamHttpError, upstreamErrorMessage } from '../classify-upstream-error.ts';
import type { UpstreamHeaders } from '../upstream-adapter.ts';
import type { AnthropicErrorObject } from './anthropic-wire-schemas.ts';

/** Client-facing status of an in-band `error.type` that becomes upstream-rejected (https://docs.anthropic.com/en/api/errors). */
const REJECTED_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  not_found_error: 404,
  request_too_large: 413,
};

/** Error types that blame the channel's account or credentials rather than the request. */
const CHANNEL_PROBLEMS: ReadonlySet<string> = new Set(['authentication_error', 'permission_error', 'billing_error']);

/** MiniMax's `/anthropic` endpoint reports an empty account as HTTP 500 "insufficient balance (1008)". */
function isInsufficientBalance(message: string): boolean {
  return /insufficient balance|\(1008\)/i.test(message);
}

function insufficientBalance(
  message: string,
  upstreamStatus: number | undefined,
  code: string | undefined,
): GatewayError {
  return new GatewayError('upstream-rejected', message, {
    status: 502,
    allowFailover: true,
    retryable: false,
    ...(upstreamStatus === undefined ? {} : { upstreamStatus }),
    ...(code === undefined ? {} : { code }),
  });
}

/**
 * Classifies a non-2xx Anthropic answer. `body` is the raw text, normally
 * `{"type":"error","error":{"type","message"},"request_id"}`. Uses the shared HTTP mapping
 * (429 → upstream-rate-limited, 5xx/529 → upstream-unavailable, 401/403 → upstream-rejected 502
 * with failover, other 4xx → upstream-rejected), except MiniMax's "insufficient balance (1008)"
 * (sent as 500 `api_error`): upstream-rejected, status 502, failover allowed, not retryable.
 */
export function classifyAnthropicError(status: number, body: string, headers: UpstreamHeaders): GatewayError {
  const { message, code } = upstreamErrorMessage(body);
  if (isInsufficientBalance(message)) return insufficientBalance(message, status, code);
  return classifyUpstreamHttpError(status, message, headers, code);
}

/**
 * Classifies an in-band error object (an SSE `error` event, or a 2xx body with `type: "error"`)
 * by its `error.type`: overloaded_error → upstream-unavailable 503, api_error →
 * upstream-unavailable 502, rate_limit_error → upstream-rate-limited, timeout_error →
 * upstream-timeout, authentication/permission/billing errors → upstream-rejected 502 with failover
 * (channel problem), anything else → upstream-rejected (400, or 404/413 for not_found_error /
 * request_too_large). `code` is the raw `error.type`; `upstreamStatus` stays unset (the HTTP
 * status was 2xx).
 */
export function classifyAnthropicErrorObject(error: AnthropicErrorObject | null | undefined): GatewayError {
  const type = error?.type ?? undefined;
  const message = error?.message || `Upstream reported ${type ?? 'an error'}`;
  const code = type === undefined ? {} : { code: type };
  if (isInsufficientBalance(message)) return insufficientBalance(message, undefined, type);
  switch (type) {
    case 'overloaded_error':
      return new GatewayError('upstream-unavailable', message, { ...code, status: 503 });
    case 'api_error':
      return new GatewayError('upstream-unavailable', message, code);
    case 'rate_limit_error':
      return new GatewayError('upstream-rate-limited', message, code);
    case 'timeout_error':
      return new GatewayError('upstream-timeout', message, code);
  }
  if (type !== undefined && CHANNEL_PROBLEMS.has(type)) {
    return new GatewayError('upstream-rejected', message, {
      ...code,
      status: 502,
      allowFailover: true,
      retryable: false,
    });
  }
  return new GatewayError('upstream-rejected', message, {
    ...code,
    status: (type === undefined ? undefined : REJECTED_STATUS[type]) ?? 400,
  });
}
