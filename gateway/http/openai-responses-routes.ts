/**
 * OpenAI Responses routes (https://platform.openai.com/docs/api-reference/responses): `POST /v1/responses`,
 * `POST /v1/responses/input_tokens`, `POST /v1/responses/compact` (compaction/) and the stored-response routes
 * `GET`/`DELETE /v1/responses/{id}`, `GET /v1/responses/{id}/input_items` (stored-responses/). Auth: `Authorization: Bearer` (or Azure-style `api-key`).
 */
import type { FastifyInstance } from 'fastify';
import { openaiApiKey } from './api-key-readers.ts';
import type { ClientRouteServices } from '../exchange/client-request.ts';
import { serveCountTokens } from '../exchange/serve-count-tokens.ts';
import { serveGeneration } from '../exchange/serve-generation.ts';
import { holdsGatewayCompactionItem } from '../inbound/openai-responses/compaction/expand-compaction-item.ts';
import { openaiResponsesCodec } from '../inbound/openai-responses/openai-responses-codec.ts';
import { createCompactionSeal } from '../inbound/openai-responses/compaction/compaction-seal.ts';
import { serveResponsesCompaction } from '../inbound/openai-responses/compaction/serve-responses-compaction.ts';
import { registerResponsesWebSocket } from '../inbound/openai-responses/websocket/register-responses-websocket.ts';
import { createStoredResponsesResolver } from '../inbound/openai-responses/stored-responses/resolve-previous-response.ts';
import { registerStoredResponsesRoutes } from '../inbound/openai-responses/stored-responses/stored-responses-routes.ts';

export function registerOpenaiResponsesRoutes(app: FastifyInstance, services: ClientRouteServices): void {
  const config = { codec: openaiResponsesCodec };
  const compactionSeal = createCompactionSeal(services.controlPlane.hmacSecret);
  // Stored state (stored-responses/): previous_response_id, store, GET/DELETE /v1/responses/{id}, input_items.
  const storedState = createStoredResponsesResolver(services.responseStore);
  app.post('/v1/responses', { config }, (request, reply) =>
    serveGeneration({
      services,
      codec: openaiResponsesCodec,
      extractKey: openaiApiKey,
      request,
      reply,
      hints: { compactionSeal },
      state: storedState,
      mustTranslate: holdsGatewayCompactionItem,
    }),
  );
  app.post('/v1/responses/input_tokens', { config }, (request, reply) =>
    serveCountTokens({
      services,
      codec: openaiResponsesCodec,
      extractKey: openaiApiKey,
      request,
      reply,
      hints: { compactionSeal },
      state: storedState,
    }),
  );
  registerStoredResponsesRoutes(app, services, openaiApiKey);
  app.post('/v1/responses/compact', { config }, (request, reply) =>
    serveResponsesCompaction(services, compactionSeal, storedState, openaiApiKey, request, reply),
  );
  // WebSocket mode: GET /v1/responses with Upgrade: websocket (websocket/).
  registerResponsesWebSocket(app, services, openaiApiKey);
}
