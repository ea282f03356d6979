/**
 * The OpenAI error object `{message, type, param, code}` (per https://platform.openai.com/docs/api-reference/responses and
 * https://platform.openai.com/docs/guides/error-codes), shared by both OpenAI client formats: the HTTP error
 * envelope, the Chat Completions mid-stream error frame and the Responses `error` event.
 */
import type { GatewayError } from '../../canonical/gateway-error.ts';

/** The four keys every OpenAI SDK reads from `error` (`param`/`code` may be null). */
export interface OpenAIErrorObject {
  readonly message: string;
  readonly type: string;
  readonly param: string | null;
  readonly code: string | null;
}

/** `type` by status class: 429 splits into `requests` and `insufficient_quota`, 5xx is `server_error`. */
function errorType(error: GatewayError): string {
  if (error.kind === 'quota-exceeded') return 'insufficient_quota';
  if (error.status === 429) return 'requests';
  if (error.status >= 500) return 'server_error';
  return 'invalid_request_error';
}

/** OpenAI's usual `code` when the error carries none of its own. */
function defaultCode(error: GatewayError): string | null {
  switch (error.kind) {
    case 'unauthenticated':
      return 'invalid_api_key';
    case 'quota-exceeded':
      return 'insufficient_quota';
    case 'rate-limited':
    case 'upstream-rate-limited':
      return 'rate_limit_exceeded';
    case 'not-found':
      return error.param === 'model' || /\bmodel\b/i.test(error.message) ? 'model_not_found' : null;
    default:
      return error.status === 429 ? 'rate_limit_exceeded' : null;
  }
}

/**
 * Renders a GatewayError as OpenAI's error object. `code` prefers `error.code`; otherwise
 * 401 → `invalid_api_key`, 404 about a model → `model_not_found`, 429 → `rate_limit_exceeded`
 * (`insufficient_quota` for quota-exceeded), else null. `type`: `invalid_request_error` (4xx),
 * `requests` / `insufficient_quota` (429), `server_error` (5xx).
 */
export function toOpenAIErrorObject(error: GatewayError): OpenAIErrorObject {
  return {
    message: error.message,
    type: errorType(error),
    param: error.param ?? null,
    code: error.code ?? defaultCode(error),
  };
}
