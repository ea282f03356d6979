/**
 * Errors raised before or outside a route handler, rendered in the client's own format: Fastify's
 * framework errors (malformed URL, over-long path parameter), body parsing (malformed JSON, body
 * limits, content type), malformed HTTP on the socket (bad header, header block too large, request
 * timeout) and unknown routes. The route's codec renders when the route is known, else the codec
 * chosen from the path (codec-for-path.ts).
 *
 * No message built here quotes the request: not the URL (its query may hold `?key=`), not a
 * header, not the body (the JSON parser's own messages quote it) — only fixed text, limits and
 * the path of an unknown route.
 *
 * Fastify hooks used: `setErrorHandler`, `setNotFoundHandler`, and the server options
 * `frameworkErrors` and `clientErrorHandler` (https://fastify.dev/docs/latest/Reference/Server/).
 */
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../canonical/gateway-error.ts';
import { generateId } from '../canonical/ids.ts';
import { requestIdHeaders, sendErrorReply } from '../exchange/client-response.ts';
import { codecForTarget, pathOfTarget } from './codec-for-path.ts';
import type { InboundCodec } from '../inbound/inbound-codec.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The codec that renders this route's errors. */
    codec?: InboundCodec;
  }
}

/** Longest path quoted back in an unknown-route message (characters). */
const MAX_QUOTED_PATH = 200;

/** The codec a request most likely expects: its route's, else the one its path and headers choose. */
export function codecForRequest(request: FastifyRequest): InboundCodec {
  // routeOptions is absent on the bare requests Fastify builds for framework errors.
  const routed = (request.routeOptions as FastifyRequest['routeOptions'] | undefined)?.config?.codec;
  return routed ?? codecForTarget(request.raw.url ?? '/', request.headers);
}

/** The error's own status when it is a client error (4xx), else undefined. */
function clientStatusOf(error: { statusCode?: number; status?: number }): number | undefined {
  const status = error.statusCode ?? error.status;
  return typeof status === 'number' && status >= 400 && status < 500 ? status : undefined;
}

/**
 * Maps a framework error (or a GatewayError raised by a body parser) to the GatewayError the
 * client sees. `bodyLimit` (bytes) is named in the 413 message. Unknown 4xx errors get the
 * status's reason phrase and Fastify's code, never the error's message; anything else is
 * `internal` (500).
 */
export function classifyFrameworkError(error: FastifyError | GatewayError | Error, bodyLimit: number): GatewayError {
  if (error instanceof GatewayError) return error;
  const code = (error as FastifyError).code;
  switch (code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new GatewayError('request-too-large', `Request body is larger than the limit of ${bodyLimit} bytes`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new GatewayError('unsupported-media-type', 'Unsupported Content-Type: send application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new GatewayError('invalid-request', 'The request body is empty: send a JSON object');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new GatewayError('invalid-request', 'Content-Length does not match the body');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new GatewayError(
        'invalid-request',
        'Malformed JSON in request body: it does not parse as JSON (RFC 8259)',
      );
    case 'FST_ERR_BAD_URL':
      return new GatewayError(
        'invalid-request',
        'Malformed request URL: the path has an invalid percent-encoding (RFC 3986 §2.1)',
      );
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new GatewayError('invalid-request', 'A path parameter is too long', { status: 414 });
  }
  if (error instanceof SyntaxError)
    return new GatewayError('invalid-request', 'Malformed JSON in request body: it does not parse as JSON (RFC 8259)');
  const status = clientStatusOf(error as FastifyError);
  if (status !== undefined)
    return new GatewayError('invalid-request', `${STATUS_CODES[status] ?? 'Bad request'}${code ? ` (${code})` : ''}`, {
      status,
    });
  return new GatewayError('internal', 'Internal gateway error');
}

/** `path` shortened for quoting, without control characters. */
function quotablePath(target: string): string {
  const path = [...pathOfTarget(target)].filter((c) => c > '\u001f' && c !== '\u007f').join('');
  return path.length > MAX_QUOTED_PATH ? `${path.slice(0, MAX_QUOTED_PATH)}…` : path;
}

/**
 * The Fastify server option `frameworkErrors`: errors the router raises before any route runs
 * (FST_ERR_BAD_URL, FST_ERR_MAX_PARAM_LENGTH, FST_ERR_ASYNC_CONSTRAINT), answered in the format
 * the path chooses. `bodyLimit` in bytes.
 */
export function createFrameworkErrorHandler(
  bodyLimit: number,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => void {
  return (error, request, reply) => {
    sendErrorReply(
      reply,
      codecForTarget(request.raw.url ?? '/', request.raw.headers),
      classifyFrameworkError(error, bodyLimit),
      request.id,
    );
  };
}

/** Status and fixed message for a socket-level HTTP error (Node's `clientError` event). */
function socketErrorAnswer(code: string | undefined): { status: number; message: string } {
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return { status: 408, message: 'The request was not received in time' };
  if (code === 'HPE_HEADER_OVERFLOW') return { status: 431, message: 'The request headers are larger than the limit' };
  return { status: 400, message: 'Malformed HTTP request' };
}

/** The request target in the first line of raw request bytes, or '/' when unreadable. */
function targetOfRawRequest(raw: unknown): string {
  const line = Buffer.isBuffer(raw) ? raw.subarray(0, 8192).toString('latin1') : '';
  return /^[A-Z]+ (\S+)/.exec(line)?.[1] ?? '/';
}

/**
 * The Fastify server option `clientErrorHandler`: malformed HTTP on the socket (Node's
 * `clientError`, https://nodejs.org/api/http.html#event-clienterror) answered with a complete
 * response in the format the request line's path chooses (408, 431 or 400), then the socket is
 * destroyed. `error.rawPacket` is the Buffer of bytes read so far (Node sets it; Fastify's types
 * describe its JSON form). Nothing is written on a reset or destroyed socket, or when a response is already
 * under way on it (as Node's own default handler does).
 */
export function handleClientSocketError(error: Error & { code?: string; rawPacket?: unknown }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !inFlight?.headersSent) {
    const { status, message } = socketErrorAnswer(error.code);
    const encoded = codecForTarget(targetOfRawRequest(error.rawPacket)).encodeError(
      new GatewayError('invalid-request', message, { status }),
    );
    const body = JSON.stringify(encoded.body);
    const headers = {
      ...requestIdHeaders(generateId('req_')),
      ...(encoded.headers ?? {}),
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(Buffer.byteLength(body)),
      connection: 'close',
    };
    const head = Object.entries(headers)
      .map(([name, value]) => `${name}: ${value}\r\n`)
      .join('');
    socket.write(`HTTP/1.1 ${encoded.status} ${STATUS_CODES[encoded.status] ?? 'Bad Request'}\r\n${head}\r\n${body}`);
  }
  socket.destroy(error);
}

/** Installs the error and not-found handlers on `app`; `bodyLimit` (bytes) is named in 413 messages. */
export function installClientErrorHandlers(app: FastifyInstance, bodyLimit: number): void {
  app.setErrorHandler((error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const gatewayError = classifyFrameworkError(error, bodyLimit);
    if (gatewayError.kind === 'internal') request.log.error({ err: error }, 'unhandled error');
    if (reply.sent || reply.raw.headersSent) return;
    sendErrorReply(reply, codecForRequest(request), gatewayError, request.id);
  });
  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    sendErrorReply(
      reply,
      codecForRequest(request),
      new GatewayError('not-found', `Unknown route: ${request.method} ${quotablePath(request.raw.url ?? '/')}`),
      request.id,
    );
  });
}
