/**
 * An error reported inside a 2xx Responses answer → GatewayError: a `status:"failed"` response's
 * `error:{code,message}` (https://platform.openai.com/docs/api-reference/responses) or a mid-stream `error` event, flat or nested
 * (https://platform.openai.com/docs/api-reference/responses-streaming/error).
 */
import type { GatewayError } from '../../canonical/gateway-error.ts';
import { classifyOpenAiError } from '../shared/classify-openai-error.ts';
import { asRecord, asString } from '../shared/read-json-field.ts';

/** The HTTP status an error code stands for: rate limits 429, invalid input 400, everything else 500. */
function statusForCode(code: string | undefined): number {
  if (code === undefined) return 500;
  if (code === 'rate_limit_exceeded' || code === 'insufficient_quota') return 429;
  if (code.startsWith('invalid_') || code === 'context_length_exceeded' || code === 'image_content_policy_violation')
    return 400;
  return 500;
}

/**
 * Classifies `{code?, message?, type?}` (a failed response's `error`, or an `error` event whose
 * fields may be flat or nested under `error`). Unknown or server codes → upstream-unavailable
 * (502, failover allowed); rate limits → upstream-rate-limited; `invalid_*` → upstream-rejected 400.
 */
export function classifyResponsesFailure(payload: Record<string, unknown>): GatewayError {
  const inner = asRecord(payload.error) ?? payload;
  const code = asString(inner.code) ?? asString(payload.code) ?? asString(inner.type);
  const message = asString(inner.message) ?? asString(payload.message) ?? 'Upstream reported a failed response';
  const envelope = { error: { message, ...(code === undefined ? {} : { code }) } };
  return classifyOpenAiError(statusForCode(code), JSON.stringify(envelope), {});
}
