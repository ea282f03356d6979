/**
 * Renders a GatewayError as an Anthropic error (https://docs.anthropic.com/en/api/messages):
 * `{ type: 'error', error: { type, message } }` with the error's HTTP status.
 */
import type { GatewayError } from '../../canonical/gateway-error.ts';
import type { EncodedError } from '../inbound-codec.ts';

/** The `error.type` values Anthropic clients know. */
export type AnthropicErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'billing_error'
  | 'permission_error'
  | 'not_found_error'
  | 'request_too_large'
  | 'rate_limit_error'
  | 'api_error'
  | 'timeout_error'
  | 'overloaded_error';

/** The Anthropic error envelope (HTTP body and SSE `error` event alike). */
export interface AnthropicErrorBody {
  type: 'error';
  error: { type: AnthropicErrorType; message: string };
}

/**
 * `error.type` by HTTP status: 401 authentication_error, 402 billing_error, 403 permission_error,
 * 404 not_found_error, 413 request_too_large, 429 rate_limit_error, 503/529 overloaded_error,
 * 504 timeout_error, other ≥500 api_error, other 4xx invalid_request_error. A gateway spend quota
 * (`quota-exceeded`, 429) stays `rate_limit_error`: the SDKs pick their error class by status
 * (RateLimitError), and `x-should-retry: false` stops their automatic retries.
 */
export function anthropicErrorType(status: number): AnthropicErrorType {
  switch (status) {
    case 401:
      return 'authentication_error';
    case 402:
      return 'billing_error';
    case 403:
      return 'permission_error';
    case 404:
      return 'not_found_error';
    case 413:
      return 'request_too_large';
    case 429:
      return 'rate_limit_error';
    case 503:
    case 529:
      return 'overloaded_error';
    case 504:
      return 'timeout_error';
    default:
      return status >= 500 ? 'api_error' : 'invalid_request_error';
  }
}

/** The body of an Anthropic error for `error` (also the payload of the mid-stream `error` event). */
export function anthropicErrorBody(error: GatewayError): AnthropicErrorBody {
  return { type: 'error', error: { type: anthropicErrorType(error.status), message: error.message } };
}

/** Statuses the Anthropic SDKs retry on their own (`shouldRetry` in
 * https://github.com/anthropics/anthropic-sdk-typescript/blob/main/src/client.ts). */
function sdkWouldRetry(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * HTTP error answer: status = `error.status`; headers `retry-after` (whole seconds, rounded up)
 * and `retry-after-ms` when `retryAfterMs` is set; `x-should-retry: false` when the SDK would
 * retry the status but the error is not retryable (e.g. a spend quota).
 */
export function encodeAnthropicError(error: GatewayError): EncodedError {
  const headers: Record<string, string> = {};
  if (error.retryAfterMs !== undefined) {
    headers['retry-after'] = String(Math.ceil(error.retryAfterMs / 1000));
    headers['retry-after-ms'] = String(Math.round(error.retryAfterMs));
  }
  if (!error.retryable && sdkWouldRetry(error.status)) headers['x-should-retry'] = 'false';
  const body = anthropicErrorBody(error);
  return Object.keys(headers).length > 0 ? { status: error.status, body, headers } : { status: error.status, body };
}
