/**
 * HTTP error answers for both OpenAI client formats (per https://platform.openai.com/docs/api-reference/responses; Chat Completions
 * uses the identical envelope, https://platform.openai.com/docs/api-reference/chat).
 */
import type { GatewayError } from '../../canonical/gateway-error.ts';
import type { EncodedError } from '../inbound-codec.ts';
import { toOpenAIErrorObject } from './openai-error-object.ts';

/**
 * Renders `{ error: { message, type, param, code } }` (all four keys, nulls allowed) with
 * `error.status` as the HTTP status. Headers: `retry-after` (whole seconds, rounded up) when
 * `retryAfterMs` is set; `x-should-retry: false` on quota-exceeded, and on a gateway limit that
 * no retry within seconds can pass (a 429 marked not retryable: a request over a TPM limit, a
 * daily cap until midnight), so the SDKs do not retry it three times.
 */
export function encodeOpenAIError(error: GatewayError): EncodedError {
  const headers: Record<string, string> = {};
  if (error.retryAfterMs !== undefined && Number.isFinite(error.retryAfterMs) && error.retryAfterMs >= 0) {
    headers['retry-after'] = String(Math.ceil(error.retryAfterMs / 1000));
  }
  if (error.kind === 'quota-exceeded' || (error.kind === 'rate-limited' && !error.retryable))
    headers['x-should-retry'] = 'false';
  const body = { error: toOpenAIErrorObject(error) };
  return Object.keys(headers).length === 0 ? { status: error.status, body } : { status: error.status, body, headers };
}
