/**
 * Anthropic Messages routes (https://docs.anthropic.com/en/api/messages): `POST /v1/messages` and
 * `POST /v1/messages/count_tokens` (`?beta=true` accepted). Auth: `x-api-key`, else Bearer.
 * `anthropic-version` is accepted and defaulted, never required; `anthropic-beta` is carried to
 * upstreams that are really Anthropic.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken, headerValue, serveCountTokens, serveGeneration, type ClientRouteServices } from '../serve-client-request.ts';
import { anthropicMessagesCodec } from './anthropic-messages-codec.ts';

/** Anthropic SDK credential: `x-api-key` (apiKey) or `Authorization: Bearer` (authToken). */
export function anthropicApiKey(request: FastifyRequest): string | undefined {
  return headerValue(request, 'x-api-key') ?? bearerToken(request);
}

export function registerAnthropicMessagesRoutes(app: FastifyInstance, services: ClientRouteServices): void {
  const config = { codec: anthropicMessagesCodec };
  app.post('/v1/messages', { config }, (request, reply) => {
    const beta = headerValue(request, 'anthropic-beta');
    return serveGeneration(services, anthropicMessagesCodec, anthropicApiKey, request, reply, {}, beta ? { 'anthropic-beta': beta } : undefined);
  });
  app.post('/v1/messages/count_tokens', { config }, (request, reply) => serveCountTokens(services, anthropicMessagesCodec, anthropicApiKey, request, reply));
}
