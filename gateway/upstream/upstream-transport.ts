/**
 * Sends one upstream call with undici (`Dispatcher.request`, Node streams on the hot path, no
 * fetch) and turns transport failures into GatewayErrors.
 */
import type { Readable } from 'node:stream';
import type { Dispatcher } from 'undici';
import { GatewayError } from '../canonical/gateway-error.ts';
import type { UpstreamCallSignal, UpstreamHeaders, UpstreamHttpRequest } from './upstream-adapter.ts';

/** An upstream answer whose body has not been read yet. */
export interface UpstreamAnswer {
  readonly status: number;
  readonly headers: UpstreamHeaders;
  readonly body: Readable & { text(): Promise<string> };
}

/**
 * POSTs `request` through `dispatcher`. `timeoutMs` bounds the wait for response headers and
 * every gap between body bytes, ms. `signal` aborts the call (client went away, or a deadline:
 * then its `reason` is the GatewayError to report).
 * @throws GatewayError upstream-timeout on a timeout, upstream-unavailable on connection failures,
 *   or the abort reason when it is a GatewayError.
 */
export async function sendUpstream(
  dispatcher: Dispatcher,
  request: UpstreamHttpRequest,
  options: { timeoutMs: number; signal?: UpstreamCallSignal },
): Promise<UpstreamAnswer> {
  const url = new URL(request.url);
  try {
    const answer = await dispatcher.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: 'POST',
      headers: request.headers,
      body: request.body,
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      // undici takes any signal with addEventListener and reads its `reason` (api-request.js).
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { status: answer.statusCode, headers: answer.headers, body: answer.body };
  } catch (error) {
    if (options.signal?.aborted && options.signal.reason instanceof GatewayError) throw options.signal.reason;
    throw classifyTransportError(error);
  }
}

/** Maps an undici/network error to a GatewayError (never exposes the credential). */
export function classifyTransportError(error: unknown): GatewayError {
  if (error instanceof GatewayError) return error;
  const code = (error as { code?: string }).code ?? '';
  const message = error instanceof Error ? error.message : String(error);
  if (
    code === 'UND_ERR_HEADERS_TIMEOUT' ||
    code === 'UND_ERR_BODY_TIMEOUT' ||
    code === 'UND_ERR_CONNECT_TIMEOUT' ||
    code === 'ETIMEDOUT'
  ) {
    return new GatewayError('upstream-timeout', `Upstream timed out (${code})`, { cause: error });
  }
  if (code === 'UND_ERR_ABORTED' || (error as { name?: string }).name === 'AbortError') {
    return new GatewayError('upstream-unavailable', 'Upstream call aborted', {
      cause: error,
      allowFailover: false,
      retryable: false,
    });
  }
  return new GatewayError('upstream-unavailable', `Upstream connection failed (${code || message})`, { cause: error });
}
