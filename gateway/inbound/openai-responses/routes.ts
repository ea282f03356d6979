/**
 * OpenAI Responses routes (https://platform.openai.com/docs/api-reference/responses): `POST /v1/responses` and
 * `POST /v1/responses/input_tokens`. Auth: `Authorization: Bearer` (or Azure-style `api-key`).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { bearerToken, headerValue, serveCountTokens, serveGeneration, type ClientRouteServices } from '../serve-client-request.ts';
import { openaiResponsesCodec } from './openai-responses-codec.ts';

/** OpenAI SDK credential: Bearer, or the Azure-style `api-key` header. */
export function openaiApiKey(request: FastifyRequest): string | undefined {
  return bearerToken(request) ?? headerValue(request, 'api-key');
}

export function registerOpenaiResponsesRoutes(app: FastifyInstance, services: ClientRouteServices): void {
  const config = { codec: openaiResponsesCodec };
  app.post('/v1/responses', { config }, (request, reply) => serveGeneration(services, openaiResponsesCodec, openaiApiKey, request, reply));
  app.post('/v1/responses/input_tokens', { config }, (request, reply) => serveCountTokens(services, openaiResponsesCodec, openaiApiKey, request, reply));
}
