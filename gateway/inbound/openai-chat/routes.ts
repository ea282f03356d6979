/**
 * OpenAI Chat Completions route (https://platform.openai.com/docs/api-reference/chat): `POST /v1/chat/completions`,
 * auth `Authorization: Bearer`.
 */
import type { FastifyInstance } from 'fastify';
import { openaiApiKey } from '../openai-responses/routes.ts';
import { serveGeneration, type ClientRouteServices } from '../serve-client-request.ts';
import { openaiChatCodec } from './openai-chat-codec.ts';

export function registerOpenaiChatRoutes(app: FastifyInstance, services: ClientRouteServices): void {
  app.post('/v1/chat/completions', { config: { codec: openaiChatCodec } }, (request, reply) => serveGeneration(services, openaiChatCodec, openaiApiKey, request, reply));
}
