/**
 * OpenAI embeddings route (https://platform.openai.com/docs/api-reference/embeddings/create):
 * `POST /v1/embeddings`, auth `Authorization: Bearer` (or `api-key`), the same drain and key hooks
 * as the generation routes; refusals in the OpenAI error envelope.
 */
import type { FastifyInstance } from 'fastify';
import type { ClientRouteServices } from '../exchange/client-request.ts';
import { serveEmbeddings } from '../exchange/serve-embeddings.ts';
import { openaiChatCodec } from '../inbound/openai-chat/openai-chat-codec.ts';
import { openaiEmbeddingsCodec } from '../inbound/openai-embeddings/openai-embeddings-codec.ts';
import type { EmbeddingAdapters } from '../upstream/embedding-adapter.ts';
import { openaiApiKey } from './api-key-readers.ts';
import { authenticatedKey, clientRouteOptions } from './client-route-hooks.ts';

/** Registers `POST /v1/embeddings` on `app`, served through `embeddingAdapters`. */
export function registerOpenaiEmbeddingsRoutes(
  app: FastifyInstance,
  services: ClientRouteServices,
  embeddingAdapters: EmbeddingAdapters,
): void {
  const codec = openaiChatCodec;
  app.post('/v1/embeddings', clientRouteOptions({ services, codec, extractKey: openaiApiKey }), (request, reply) =>
    serveEmbeddings({
      services,
      codec,
      key: authenticatedKey(request),
      request,
      reply,
      embeddingCodec: openaiEmbeddingsCodec,
      embeddingAdapters,
    }),
  );
}
