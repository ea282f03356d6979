/**
 * Classification of Amazon Bedrock Runtime failures, shared by the Converse adapter
 * (upstream/bedrock-converse/) and the InvokeModel surface of Anthropic models
 * (upstream/bedrock-invoke/). Bedrock names the error in the `x-amzn-ErrorType` response header
 * (`ValidationException:http://internal.amazon.com/coral/…`) with a `{"message": "…"}` body
 * (restJson1 error shape, https://smithy.io/2.0/aws/protocols/aws-restjson1-protocol.html#operation-error-serialization),
 * and in an event stream as an `exception` message whose `:exception-type` header is the
 * camel-cased name (`throttlingException`). The errors per operation:
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_Converse.html#API_runtime_Converse_Errors,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModelWithResponseStream.html#API_runtime_InvokeModelWithResponseStream_Errors;
 * the signature and token errors every AWS service answers with:
 * https://docs.aws.amazon.com/IAM/latest/UserGuide/signature-v4-troubleshooting.html.
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import { classifyUpstreamHttpError, upstreamErrorMessage } from '../classify-upstream-error.ts';
import type { UpstreamHeaders } from '../upstream-adapter.ts';

/**
 * Errors that blame the channel's credentials or account rather than the request: the client's
 * key is fine, so the client sees 502 and the router tries the next channel.
 */
const CREDENTIAL_ERRORS: ReadonlySet<string> = new Set([
  'AccessDeniedException',
  'UnrecognizedClientException',
  'ExpiredTokenException',
  'InvalidSignatureException',
  'IncompleteSignatureException',
  'MissingAuthenticationTokenException',
  'InvalidClientTokenId',
  'SignatureDoesNotMatch',
]);

/** Errors of a busy or broken service: another channel may serve the request. */
const UNAVAILABLE_ERRORS: Readonly<Record<string, number>> = {
  ServiceUnavailableException: 503,
  InternalServerException: 502,
  InternalFailure: 502,
  ModelNotReadyException: 503,
  ModelErrorException: 502,
  ModelStreamErrorException: 502,
};

/** Errors that mean "too many requests or tokens for now". */
const RATE_ERRORS: ReadonlySet<string> = new Set(['ThrottlingException', 'ServiceQuotaExceededException']);

/** The request itself is at fault, with the status the client sees. */
const REQUEST_ERRORS: Readonly<Record<string, number>> = {
  ValidationException: 400,
  ResourceNotFoundException: 404,
  ConflictException: 409,
};

function headerValue(headers: UpstreamHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The error name of an `x-amzn-ErrorType` header value or an `:exception-type` header: the part
 * before the first `:` (and `,`), with its first letter upper-cased (`throttlingException` →
 * `ThrottlingException`). Undefined for an empty value.
 */
export function bedrockErrorName(raw: string | undefined): string | undefined {
  const name = raw?.split(':')[0]?.split(',')[0]?.trim();
  if (!name) return undefined;
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/**
 * Classifies a Bedrock error by its name (BedrockErrorName) and message, with the HTTP status
 * when one came with it (absent for an exception inside a 200 event stream):
 * - ThrottlingException, ServiceQuotaExceededException → upstream-rate-limited (429);
 * - ServiceUnavailableException, InternalServerException, ModelNotReadyException,
 *   ModelErrorException, ModelStreamErrorException → upstream-unavailable (failover);
 * - ModelTimeoutException → upstream-timeout;
 * - ValidationException → upstream-rejected 400, ResourceNotFoundException 404 (the request's fault);
 * - AccessDeniedException, UnrecognizedClientException, ExpiredTokenException,
 *   InvalidSignatureException and the other signature errors → upstream-rejected with status 502,
 *   failover allowed, not retryable: the channel's credentials are at fault, and the message says so;
 * - anything else → by HTTP status (classifyUpstreamHttpError), or upstream-unavailable without one.
 * `code` of the result is the error name. The message is Bedrock's own, which never holds the
 * secret key (it may name the access key id, which is not a secret).
 */
export function classifyBedrockErrorNamed(
  name: string | undefined,
  message: string,
  status: number | undefined,
  headers: UpstreamHeaders = {},
): GatewayError {
  const text = message || `Amazon Bedrock reported ${name ?? `HTTP ${status ?? 'an error'}`}`;
  const base = {
    ...(name === undefined ? {} : { code: name }),
    ...(status === undefined ? {} : { upstreamStatus: status }),
  };
  if (name !== undefined) {
    if (CREDENTIAL_ERRORS.has(name))
      return new GatewayError(
        'upstream-rejected',
        `Amazon Bedrock refused the channel's credentials (${name}): ${text}`,
        { ...base, status: 502, allowFailover: true, retryable: false },
      );
    if (RATE_ERRORS.has(name)) {
      const limited = status === undefined ? undefined : classifyUpstreamHttpError(429, text, headers, name);
      return new GatewayError('upstream-rate-limited', text, {
        ...base,
        status: 429,
        ...(limited?.retryAfterMs === undefined ? {} : { retryAfterMs: limited.retryAfterMs }),
      });
    }
    const unavailable = UNAVAILABLE_ERRORS[name];
    if (unavailable !== undefined)
      return new GatewayError('upstream-unavailable', text, { ...base, status: unavailable });
    if (name === 'ModelTimeoutException') return new GatewayError('upstream-timeout', text, { ...base, status: 504 });
    const rejected = REQUEST_ERRORS[name];
    if (rejected !== undefined) return new GatewayError('upstream-rejected', text, { ...base, status: rejected });
  }
  if (status !== undefined) return classifyUpstreamHttpError(status, text, headers, name);
  return new GatewayError('upstream-unavailable', text, base);
}

/**
 * Classifies a non-2xx Bedrock Runtime answer: the error name from the `x-amzn-errortype` header
 * (undici lower-cases header names), else from a `__type` or `code` field of the body; the message
 * from the body's `message` (or `Message`), else its raw text. See classifyBedrockErrorNamed.
 */
export function classifyBedrockHttpError(status: number, body: string, headers: UpstreamHeaders): GatewayError {
  const parsed = parseErrorBody(body);
  const name = bedrockErrorName(headerValue(headers, 'x-amzn-errortype')) ?? bedrockErrorName(parsed.type);
  return classifyBedrockErrorNamed(name, parsed.message, status, headers);
}

/** `message`/`Message` and `__type`/`code` of a restJson1 error body; the raw text when it is not JSON. */
function parseErrorBody(body: string): { message: string; type?: string } {
  try {
    const parsed = JSON.parse(body) as unknown;
    if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)) {
      const record = parsed as Record<string, unknown>;
      const message = [record.message, record.Message].find((value): value is string => typeof value === 'string');
      const type = [record.__type, record.code].find((value): value is string => typeof value === 'string');
      if (message !== undefined) return type === undefined ? { message } : { message, type };
    }
  } catch {
    // not JSON: the generic reader below takes the raw text
  }
  return { message: upstreamErrorMessage(body).message };
}
