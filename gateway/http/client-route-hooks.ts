/**
 * Route-scoped Fastify hooks of the client routes
 * (https://fastify.dev/docs/latest/Reference/Hooks/#prehandler): after the body is parsed and
 * before the handler runs, a draining node refuses new work and the caller's API key is resolved.
 * Each refusal is rendered by the route's codec, in the client's own error shape and status, and
 * is not recorded: it reaches no channel and bills nothing. The handler reads the resolved key
 * with `authenticatedKey(request)`.
 */
import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  RouteShorthandOptions,
} from 'fastify';
import { GatewayError } from '../canonical/gateway-error.ts';
import type { ApiKeyExtractor, ClientRouteServices } from '../exchange/client-request.ts';
import { sendErrorReply } from '../exchange/client-response.ts';
import type { InboundCodec } from '../inbound/inbound-codec.ts';
import { shuttingDownRefusal } from '../lifecycle/node-drain.ts';
import { resolveApiKey, type ResolvedKey } from '../policy/resolve-api-key.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller's key once the route's authenticate hook accepted it; null before. */
    apiKey: ResolvedKey | null;
  }
}

/** A synchronous route hook: it either answers (and does not call `done`) or calls `done`. */
export type ClientRouteHook = (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => void;

/** How a route reads its caller: the codec that renders refusals and the format's key reader. */
export interface ClientAuthScheme {
  readonly codec: InboundCodec;
  readonly extractKey: ApiKeyExtractor;
}

/** Declares `request.apiKey` on `app` (once, before any route), so every request has the same shape. */
export function decorateClientRequests(app: FastifyInstance): void {
  app.decorateRequest('apiKey', null);
}

/**
 * Answers 503 `shutting-down` in the codec's format with `Retry-After: 1` and `Connection: close`
 * while the node drains (the client reconnects, through its load balancer, to another node);
 * counted in the refusals metric as `shutting_down`. A node without a drain never refuses.
 */
export function refuseWhileDrainingHook(services: ClientRouteServices, codec: InboundCodec): ClientRouteHook {
  return (request, reply, done) => {
    if (!services.drain?.draining) return done();
    void reply.header('connection', 'close');
    sendErrorReply(reply, codec, shuttingDownRefusal(), request.id);
    services.metrics?.recordRefusal(codec.format, 'shutting_down');
  };
}

/**
 * Resolves the presented key against the control plane's view and sets `request.apiKey`; an
 * unknown, disabled, expired or missing key is answered 401 `invalid_api_key` in the format of
 * `scheme(request)` (a listing route picks the format from the request's headers).
 */
export function authenticateHook(
  services: ClientRouteServices,
  scheme: (request: FastifyRequest) => ClientAuthScheme,
): ClientRouteHook {
  return (request, reply, done) => {
    const { codec, extractKey } = scheme(request);
    const resolved = resolveApiKey(services.controlPlane.view, services.controlPlane.hmacSecret, extractKey(request));
    if ('key' in resolved) {
      request.apiKey = resolved;
      return done();
    }
    sendErrorReply(
      reply,
      codec,
      new GatewayError('unauthenticated', resolved.message, { code: 'invalid_api_key' }),
      request.id,
    );
  };
}

/** What a client route declares besides its handler. */
export interface ClientRouteSpec extends ClientAuthScheme {
  readonly services: ClientRouteServices;
  /** Refuse while the node drains (generation and token-count routes); default true. */
  readonly refuseWhileDraining?: boolean;
  /** Hooks that run before the drain and auth checks (Gemini: an unknown action is a 404 first). */
  readonly before?: ReadonlyArray<ClientRouteHook>;
}

/**
 * The options of one client route: `config.codec` (read by the error handler, client-error-handler.ts)
 * and the preHandler hooks, in order: `before`, the drain refusal, authentication.
 */
export function clientRouteOptions(spec: ClientRouteSpec): RouteShorthandOptions {
  const scheme: ClientAuthScheme = { codec: spec.codec, extractKey: spec.extractKey };
  return {
    config: { codec: spec.codec },
    preHandler: [
      ...(spec.before ?? []),
      ...(spec.refuseWhileDraining === false ? [] : [refuseWhileDrainingHook(spec.services, spec.codec)]),
      authenticateHook(spec.services, () => scheme),
    ],
  };
}

/**
 * The key the route's authenticate hook resolved.
 * @throws Error when the route was registered without the hook (a wiring bug, never bad input)
 */
export function authenticatedKey(request: FastifyRequest): ResolvedKey {
  if (!request.apiKey) throw new Error(`route ${request.routeOptions.url ?? request.url} has no authenticate hook`);
  return request.apiKey;
}
