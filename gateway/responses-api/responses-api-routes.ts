/**
 * The OpenAI Responses API (https://platform.openai.com/docs/api-reference/responses) as a feature
 * above the request pipeline: `POST /v1/responses` and `POST /v1/responses/input_tokens` through the
 * pipeline with stored state plugged in at its seams (stored-responses/: `previous_response_id`,
 * `store`, the answer hook that saves the response), `POST /v1/responses/compact` (compaction/),
 * the stored-response routes `GET`/`DELETE /v1/responses/{id}` and `GET /v1/responses/{id}/input_items`,
 * and WebSocket mode (websocket/). Auth: `Authorization: Bearer` (or Azure-style `api-key`).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { openaiApiKey } from '../http/api-key-readers.ts';
import { authenticatedKey, clientRouteOptions } from '../http/client-route-hooks.ts';
import type { ClientRequest, ClientRouteServices } from '../exchange/client-request.ts';
import { serveCountTokens } from '../exchange/serve-count-tokens.ts';
import { serveGeneration } from '../exchange/serve-generation.ts';
import { holdsGatewayCompactionItem } from '../inbound/openai-responses/decode-compaction-item.ts';
import { createOpenaiResponsesCodec } from '../inbound/openai-responses/openai-responses-codec.ts';
import { compactionItemOpener, createCompactionSeal } from './compaction/compaction-seal.ts';
import { serveResponsesCompaction } from './compaction/serve-responses-compaction.ts';
import { registerResponsesWebSocket } from './websocket/register-responses-websocket.ts';
import { createStoredResponsesResolver } from './stored-responses/resolve-previous-response.ts';
import { registerStoredResponsesRoutes } from './stored-responses/stored-responses-routes.ts';

/**
 * Registers every `/v1/responses` route on `app`. The compaction seal's key is derived from
 * `services.controlPlane.hmacSecret`, which every node of a deployment shares.
 */
export function registerResponsesApiRoutes(app: FastifyInstance, services: ClientRouteServices): void {
  const compactionSeal = createCompactionSeal(services.controlPlane.hmacSecret);
  // The codec that opens the gateway's own compaction items (compaction/compaction-seal.ts).
  const codec = createOpenaiResponsesCodec(compactionItemOpener(compactionSeal));
  const auth = { codec, extractKey: openaiApiKey };
  const options = clientRouteOptions({ services, ...auth });
  // Stored state (stored-responses/): previous_response_id, store, GET/DELETE /v1/responses/{id}, input_items.
  const storedState = createStoredResponsesResolver(services.responseStore);
  const client = (request: FastifyRequest, reply: FastifyReply): ClientRequest => ({
    services,
    codec,
    key: authenticatedKey(request),
    request,
    reply,
    state: storedState,
  });
  app.post('/v1/responses', options, (request, reply) =>
    serveGeneration({ ...client(request, reply), mustTranslate: holdsGatewayCompactionItem }),
  );
  app.post('/v1/responses/input_tokens', options, (request, reply) => serveCountTokens(client(request, reply)));
  app.post('/v1/responses/compact', options, (request, reply) =>
    serveResponsesCompaction({ ...client(request, reply), state: storedState, seal: compactionSeal }),
  );
  // Stored responses are read and deleted by their owner's key, even while the node drains.
  registerStoredResponsesRoutes(app, services, clientRouteOptions({ services, ...auth, refuseWhileDraining: false }));
  // WebSocket mode: GET /v1/responses with Upgrade: websocket (websocket/).
  registerResponsesWebSocket(app, services, auth);
}
