/**
 * WebSocket mode of the Responses API (https://developers.openai.com/api/docs/guides/websocket-mode):
 * `GET /v1/responses` with `Upgrade: websocket` (https://www.rfc-editor.org/rfc/rfc6455#section-4) and the usual API-key header. The key
 * is checked before the upgrade: a bad key gets the HTTP route's 401 `{error:{…,code:"invalid_api_key"}}`
 * and no socket. Each accepted socket is driven by a ResponsesWebSocketSession.
 *
 * `@fastify/websocket` is registered here once, in its own encapsulated scope, so that only this
 * route is affected by it. Limits: a message is at most `maxMessageBytes` (the app's body limit by
 * default; a larger one closes the socket with 1009, https://www.rfc-editor.org/rfc/rfc6455#section-7.4.1), a connection lasts at most
 * `maxConnectionMs` (60 minutes, as OpenAI's), one previous response of at most `maxMessageBytes`
 * of JSON is retained per connection.
 */
import fastifyWebsocket from '@fastify/websocket';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Agent } from 'undici';
import { GatewayError } from '../../canonical/gateway-error.ts';
import { sendErrorReply } from '../../exchange/client-response.ts';
import type { ClientRouteServices } from '../../exchange/client-request.ts';
import { authenticateHook, type ClientAuthScheme } from '../../http/client-route-hooks.ts';
import { openaiResponsesCodec } from '../../inbound/openai-responses/openai-responses-codec.ts';
import { ResponsesWebSocketSession } from './responses-websocket-session.ts';
import { errorEventFromGatewayError } from './websocket-error-event.ts';

/** Optional bounds (defaults in the module comment). */
export interface ResponsesWebSocketOptions {
  /** Longest connection, ms. */
  readonly maxConnectionMs?: number;
  /** Largest client message, bytes (also the largest retained previous response). */
  readonly maxMessageBytes?: number;
}

/** OpenAI's connection duration limit (guide, "Connection limits"): 60 minutes. */
const DEFAULT_MAX_CONNECTION_MS = 60 * 60 * 1000;
/** Used only when the app has no body limit of its own, bytes. */
const DEFAULT_MAX_MESSAGE_BYTES = 32 * 1024 * 1024;

/**
 * The origin the gateway itself answers on, from the address this connection arrived at (the
 * server's address as fallback; wildcard addresses become loopback). Undefined when the request did
 * not come over TCP (e.g. `injectWS`).
 */
function loopbackOrigin(request: FastifyRequest, server: FastifyInstance['server']): string | undefined {
  const listening = server.address();
  const fallback = listening !== null && typeof listening === 'object' ? listening : undefined;
  let host = request.raw.socket?.localAddress ?? fallback?.address;
  const port = request.raw.socket?.localPort ?? fallback?.port;
  if (!host || !port) return undefined;
  if (host.startsWith('::ffff:')) host = host.slice('::ffff:'.length);
  if (host === '0.0.0.0') host = '127.0.0.1';
  if (host === '::') host = '::1';
  return host.includes(':') ? `http://[${host}]:${port}` : `http://${host}:${port}`;
}

/** A plain GET without the upgrade: 426 Upgrade Required with `Upgrade: websocket` (https://www.rfc-editor.org/rfc/rfc9110#section-15.5.22). */
function answerUpgradeRequired(request: FastifyRequest, reply: FastifyReply): void {
  void reply.header('upgrade', 'websocket');
  sendErrorReply(
    reply,
    openaiResponsesCodec,
    new GatewayError(
      'invalid-request',
      'GET /v1/responses serves the WebSocket mode: connect with Upgrade: websocket and send response.create messages.',
      { status: 426 },
    ),
    request.id,
  );
}

/**
 * Registers `GET /v1/responses` (WebSocket). `auth` reads the key the same way as the HTTP
 * route (Bearer or `api-key`) and renders a refusal. The loopback pool is destroyed, and open sockets closed with 1001,
 * when the app closes.
 */
export function registerResponsesWebSocket(
  app: FastifyInstance,
  services: ClientRouteServices,
  auth: ClientAuthScheme,
  options: ResponsesWebSocketOptions = {},
): void {
  const maxMessageBytes = options.maxMessageBytes ?? app.initialConfig.bodyLimit ?? DEFAULT_MAX_MESSAGE_BYTES;
  const limits = {
    maxConnectionMs: options.maxConnectionMs ?? DEFAULT_MAX_CONNECTION_MS,
    maxRetainedBytes: maxMessageBytes,
  };
  void app.register(async (scope) => {
    await scope.register(fastifyWebsocket, { options: { maxPayload: maxMessageBytes } });
    // Loopback calls stream for as long as a response runs; the route enforces upstream timeouts itself.
    const dispatcher = new Agent({ keepAliveTimeout: 10_000, headersTimeout: 0, bodyTimeout: 0 });
    const sessions = new Set<ResponsesWebSocketSession>();
    scope.addHook('preClose', async () => {
      for (const session of sessions) session.shutdown();
    });
    scope.addHook('onClose', async () => dispatcher.destroy());
    scope.route({
      method: 'GET',
      url: '/v1/responses',
      config: { codec: openaiResponsesCodec },
      // Before the upgrade: a refused key is answered 401 over HTTP.
      preValidation: authenticateHook(services, () => auth),
      handler: (request, reply) => answerUpgradeRequired(request, reply),
      wsHandler: (socket, request) => {
        const origin = loopbackOrigin(request, scope.server);
        const apiKey = auth.extractKey(request);
        if (!origin || !apiKey) {
          socket.send(
            JSON.stringify(
              errorEventFromGatewayError(
                new GatewayError('internal', 'WebSocket mode needs the gateway to listen on a TCP address.'),
              ),
            ),
          );
          return void socket.close(1011, 'not listening on TCP');
        }
        const session = new ResponsesWebSocketSession(socket, { dispatcher, origin, apiKey, limits, log: request.log });
        sessions.add(session);
        socket.on('close', () => sessions.delete(session));
      },
    });
  });
}
