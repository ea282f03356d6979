/**
 * The one error type of the gateway. Upstream adapters and policies classify failures into a
 * GatewayError; inbound codecs render it in the client's own error shape and status.
 */

/** What went wrong, independent of any wire format. */
export type GatewayErrorKind =
  | 'invalid-request' // 400: malformed JSON, missing or mistyped fields
  | 'unauthenticated' // 401: missing or unknown API key
  | 'permission-denied' // 403
  | 'not-found' // 404: unknown model or route
  | 'request-too-large' // 413: body over the size limit
  | 'unsupported-media-type' // 415
  | 'rate-limited' // 429: a gateway RPM/TPM limit
  | 'quota-exceeded' // 429: a gateway spend quota
  | 'upstream-rejected' // upstream answered 4xx (not 408/429): the request itself is bad
  | 'upstream-rate-limited' // upstream answered 429
  | 'upstream-unavailable' // connection refused/reset, 5xx, 529
  | 'upstream-timeout' // connect/headers/body timeout, 408, 504
  | 'upstream-malformed' // upstream answered 2xx with a body we cannot decode
  | 'shutting-down' // 503: the node is draining before it stops (refused, or cut at the drain deadline)
  | 'internal'; // a bug in the gateway

/** Constructor options of GatewayError. */
export interface GatewayErrorOptions {
  /** HTTP status the client should see (defaults per kind). */
  status?: number;
  /** May a client retry the same request later? */
  retryable?: boolean;
  /** May the router try the next channel? Only meaningful before the first byte reached the client. */
  allowFailover?: boolean;
  /** The request field at fault (OpenAI `param`). */
  param?: string;
  /** A machine-readable code (OpenAI `code`, e.g. `model_not_found`). */
  code?: string;
  /** Status the upstream answered with, when the error came from upstream. */
  upstreamStatus?: number;
  /** How long the upstream asked us to wait, in ms (from Retry-After / retry-after-ms). */
  retryAfterMs?: number;
  cause?: unknown;
}

const DEFAULT_STATUS: Record<GatewayErrorKind, number> = {
  'invalid-request': 400,
  unauthenticated: 401,
  'permission-denied': 403,
  'not-found': 404,
  'request-too-large': 413,
  'unsupported-media-type': 415,
  'rate-limited': 429,
  'quota-exceeded': 429,
  'upstream-rejected': 400,
  'upstream-rate-limited': 429,
  'upstream-unavailable': 502,
  'upstream-timeout': 504,
  'upstream-malformed': 502,
  'shutting-down': 503,
  internal: 500,
};

const FAILOVER_KINDS: ReadonlySet<GatewayErrorKind> = new Set([
  'upstream-rate-limited',
  'upstream-unavailable',
  'upstream-timeout',
  'upstream-malformed',
]);

/**
 * A classified failure: `kind` says what, `status` which HTTP status the client gets, `retryable`
 * whether the client may retry, `allowFailover` whether the router may try another channel.
 */
export class GatewayError extends Error {
  readonly kind: GatewayErrorKind;
  readonly status: number;
  readonly retryable: boolean;
  readonly allowFailover: boolean;
  readonly param: string | undefined;
  readonly code: string | undefined;
  readonly upstreamStatus: number | undefined;
  readonly retryAfterMs: number | undefined;

  constructor(kind: GatewayErrorKind, message: string, options: GatewayErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.kind = kind;
    this.status = options.status ?? DEFAULT_STATUS[kind];
    this.allowFailover = options.allowFailover ?? FAILOVER_KINDS.has(kind);
    this.retryable = options.retryable ?? (this.allowFailover || kind === 'rate-limited' || kind === 'shutting-down');
    this.param = options.param;
    this.code = options.code;
    this.upstreamStatus = options.upstreamStatus;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** Shorthand for a 400 `invalid-request` error naming the offending field. */
export function invalidRequest(message: string, param?: string): GatewayError {
  return new GatewayError('invalid-request', message, param === undefined ? {} : { param });
}

/** Wraps anything thrown into a GatewayError (`internal` unless it already is one). */
export function toGatewayError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new GatewayError('internal', `Internal gateway error: ${message}`, { cause: error });
}
