/**
 * The shared handler steps of every client route: authenticate with the format's own key
 * header, decode the body with the format's codec, then run the exchange or the token count.
 * Every refusal is rendered by the same codec, so each client sees its own error shape.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError, toGatewayError } from '../canonical/gateway-error.ts';
import { generateId } from '../canonical/ids.ts';
import type { CanonicalRequest } from '../canonical/request.ts';
import { sendErrorReply, sendJsonReply } from '../exchange/client-response.ts';
import { countInputTokens } from '../exchange/count-tokens.ts';
import type { ExchangeDeps } from '../exchange/exchange-types.ts';
import { runExchange } from '../exchange/run-exchange.ts';
import type { ApiKeyIdentity, ApiKeyStore } from '../policy/api-key-store.ts';
import type { DecodeHints, InboundCodec } from './inbound-codec.ts';

/** What route handlers need from the app. */
export interface ClientRouteServices {
  readonly keys: ApiKeyStore;
  readonly exchange: ExchangeDeps;
}

/** Reads the presented API key from a request, per format. */
export type ApiKeyExtractor = (request: FastifyRequest) => string | undefined;

/** `Authorization: Bearer <key>` → key. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(.+)$/i.exec(header) : null;
  return match?.[1]?.trim();
}

/** A single header's value (first if repeated). */
export function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Verifies the key; on failure answers 401 in the codec's format and returns undefined. */
export function authenticate(services: ClientRouteServices, codec: InboundCodec, extractKey: ApiKeyExtractor, request: FastifyRequest, reply: FastifyReply, requestId: string): ApiKeyIdentity | undefined {
  const presented = extractKey(request);
  const identity = services.keys.verify(presented);
  if (identity) return identity;
  const message = presented ? 'Incorrect API key provided. Keys start with "sk-"; check the key you configured.' : 'Missing API key. Send it in the header your SDK uses (Authorization: Bearer, x-api-key or x-goog-api-key).';
  sendErrorReply(reply, codec, new GatewayError('unauthenticated', message, { code: 'invalid_api_key' }), requestId);
  return undefined;
}

function decodeOrReply(decode: (body: unknown) => ReturnType<InboundCodec['decodeRequest']>, codec: InboundCodec, request: FastifyRequest, reply: FastifyReply, requestId: string): { value: CanonicalRequest; warnings: ReadonlyArray<string> } | undefined {
  const body = request.body;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) {
    sendErrorReply(reply, codec, new GatewayError('invalid-request', 'The request body must be a JSON object'), requestId);
    return undefined;
  }
  const decoded = decode(body);
  if (decoded.ok) return { value: decoded.value, warnings: decoded.warnings ?? [] };
  const code = decoded.param === 'previous_response_id' ? 'previous_response_not_found' : undefined;
  sendErrorReply(reply, codec, new GatewayError('invalid-request', decoded.message, { ...(decoded.param === undefined ? {} : { param: decoded.param }), ...(code ? { code } : {}) }), requestId);
  return undefined;
}

/** Authenticates, decodes and runs one generation request. `extensions` adds header-borne fields (e.g. `anthropic-beta`). */
export async function serveGeneration(services: ClientRouteServices, codec: InboundCodec, extractKey: ApiKeyExtractor, request: FastifyRequest, reply: FastifyReply, hints: DecodeHints = {}, extensions?: Record<string, unknown>): Promise<void> {
  const requestId = generateId('req_');
  const startedAt = Date.now();
  const identity = authenticate(services, codec, extractKey, request, reply, requestId);
  if (!identity) return;
  const decoded = decodeOrReply((body) => codec.decodeRequest(body, hints), codec, request, reply, requestId);
  if (!decoded) return;
  if (decoded.warnings.length > 0) request.log.warn({ requestId, warnings: decoded.warnings }, 'dropped untranslatable request parts');
  const canonical = extensions && Object.keys(extensions).length > 0 ? { ...decoded.value, extensions: { ...decoded.value.extensions, ...extensions } } : decoded.value;
  await runExchange(services.exchange, { requestId, codec, request: canonical, rawBody: request.body as Record<string, unknown>, startedAt, warnings: decoded.warnings, identity: { keyId: identity.keyId, userId: identity.userId } }, reply);
}

/** Authenticates, decodes and answers one token-count request. */
export async function serveCountTokens(services: ClientRouteServices, codec: InboundCodec, extractKey: ApiKeyExtractor, request: FastifyRequest, reply: FastifyReply, hints: DecodeHints = {}): Promise<void> {
  const requestId = generateId('req_');
  if (!authenticate(services, codec, extractKey, request, reply, requestId)) return;
  const decode = codec.decodeCountTokensRequest?.bind(codec);
  const encode = codec.encodeCountTokensResponse?.bind(codec);
  if (!decode || !encode) return void sendErrorReply(reply, codec, new GatewayError('not-found', 'Token counting is not available for this format'), requestId);
  const decoded = decodeOrReply((body) => decode(body, hints), codec, request, reply, requestId);
  if (!decoded) return;
  try {
    sendJsonReply(reply, encode(await countInputTokens(services.exchange, decoded.value, requestId)), requestId);
  } catch (error) {
    sendErrorReply(reply, codec, toGatewayError(error), requestId);
  }
}
