/**
 * OpenAI Chat Completions route (https://platform.openai.com/docs/api-reference/chat): `POST /v1/chat/completions`,
 * auth `Authorization: Bearer`.
 */
import type { FastifyInstance } from 'fastify';
import { openaiApiKey } from './api-key-readers.ts';
import { authenticatedKey, clientRouteOptions } from './client-route-hooks.ts';
import type { ClientRouteServices } from '../exchange/client-request.ts';
import { serveGeneration } from '../exchange/serve-generation.ts';
import { openaiChatCodec } from '../inbound/openai-chat/openai-chat-codec.ts';

/** Registers `POST /v1/chat/completions` on `app`. */
export function registerOpenaiChatRoutes(app: FastifyInstance, services: ClientRouteServices): void {
  const codec = openaiChatCodec;
  app.post(
    '/v1/chat/completions',
    clientRouteOptions({ services, codec, extractKey: openaiApiKey }),
    (request, reply) => serveGeneration({ services, codec, key: authenticatedKey(request), request, reply }),
  );
}
