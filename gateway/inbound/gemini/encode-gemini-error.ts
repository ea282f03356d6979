/**
 * Renders a GatewayError as a Gemini (google.rpc.Status) error (https://ai.google.dev/api/generate-content):
 * `{ error: { code, message, status, details? } }`, with `code` always equal to the HTTP status.
 */
import type { GatewayError } from '../../canonical/gateway-error.ts';
import type { EncodedError } from '../inbound-codec.ts';

/** The google.rpc.Status JSON body. */
export interface GeminiErrorBody {
  error: { code: number; message: string; status: string; details?: Array<Record<string, unknown>> };
}

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  409: 'ABORTED',
  429: 'RESOURCE_EXHAUSTED',
  499: 'CANCELLED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

/**
 * The rpc status name for an HTTP status: the table of https://ai.google.dev/gemini-api/docs/troubleshooting (401 → UNAUTHENTICATED even though
 * Google answers a bad API key with 400 INVALID_ARGUMENT: the gateway keeps its own status),
 * 502 → UNAVAILABLE, other 4xx → INVALID_ARGUMENT (e.g. 413, 415), other 5xx → INTERNAL.
 */
export function geminiStatusName(status: number): string {
  return STATUS_NAMES[status] ?? (status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
}

/** `{error: {code, message, status}}` — also the payload of a mid-stream error. */
export function geminiErrorBody(error: GatewayError): GeminiErrorBody {
  return { error: { code: error.status, message: error.message, status: geminiStatusName(error.status) } };
}

/** A google.protobuf.Duration in JSON form, e.g. 1500 ms → `"1.5s"`. */
function durationJson(ms: number): string {
  return `${Math.max(0, Math.round(ms)) / 1000}s`;
}

/**
 * The `ErrorInfo` detail of a gateway limit refusal with a code (`budget_exceeded`): reason the
 * code in upper case, domain `tollgate`, the code itself in `metadata.code`
 * (https://cloud.google.com/apis/design/errors#error_info). Undefined for other errors.
 */
function limitReason(error: GatewayError): Record<string, unknown> | undefined {
  if (error.code === undefined || (error.kind !== 'quota-exceeded' && error.kind !== 'rate-limited')) return undefined;
  return {
    '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
    reason: error.code.toUpperCase(),
    domain: 'tollgate',
    metadata: { code: error.code },
  };
}

/**
 * HTTP error answer: status = `error.status`; when `retryAfterMs` is set, a `retry-after` header
 * (whole seconds, rounded up) and a `RetryInfo` detail (`retryDelay`), as Google sends on 429;
 * a coded gateway limit refusal also carries an `ErrorInfo` detail (limitReason).
 */
export function encodeGeminiError(error: GatewayError): EncodedError {
  const body = geminiErrorBody(error);
  const reason = limitReason(error);
  if (reason) body.error.details = [reason];
  if (error.retryAfterMs === undefined) return { status: error.status, body };
  body.error.details = [
    ...(body.error.details ?? []),
    { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: durationJson(error.retryAfterMs) },
  ];
  return { status: error.status, body, headers: { 'retry-after': String(Math.ceil(error.retryAfterMs / 1000)) } };
}
