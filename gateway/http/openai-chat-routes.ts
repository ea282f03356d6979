/**
 * OpenAI Chat Completions route (https://platform.openai.com/docs/api-reference/chat): `POST /v1/chat/completions`,
 * auth `Authorization: Bearer`.
 */
import type { FastifyInstance } from 'fastify';
import { openaiApiKey } from './api-key-readers.ts';
import type { ClientRouteServices } from '../exchange/client-request.ts';
import { serveGeneration } from '../exchange/serve-generation.ts';
import { openaiChatCodec } from '../inbound/openai-chat/openai-chat-codec.ts';

export function registerOpenaiChatRoutes(app: FastifyInstance, services: ClientRouteServices): void {
  app.post('/v1/chat/completions', { config: { codec: openaiChatCodec } }, (request, reply) =>
    serveGeneration({ services, codec: openaiChatCodec, extractKey: openaiApiKey, request, reply }),
  );
}
