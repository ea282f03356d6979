/**
 * Retrieval of stored Responses answers (https://platform.openai.com/docs/api-reference/responses):
 * - `GET /v1/responses/{id}`: the Response object as the client received it;
 * - `DELETE /v1/responses/{id}`: `{"id","object":"response","deleted":true}`;
 * - `GET /v1/responses/{id}/input_items`: the items the response was generated from — every
 *   earlier turn's input and output items, then this request's input items — paged by
 *   list-input-items.ts.
 * Authenticated as `POST /v1/responses` (Bearer or `api-key`); a record is visible only to the key
 * that created it: any other key, an unknown, expired or deleted id gets OpenAI's 404 error
 * envelope. These calls reach no upstream: no traffic events, no usage, no rate-limit admission.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, RouteShorthandOptions } from 'fastify';
import {
  isValidResponseId,
  type ResponseStore,
  type StoredResponse,
} from '../../../schemas/state-store/response-store.ts';
import { isStateStoreUnavailable } from '../../../schemas/state-store/state-store-unavailable.ts';
import { GatewayError } from '../../canonical/gateway-error.ts';
import { sendErrorReply, sendJsonReply } from '../../exchange/client-response.ts';
import type { ClientRouteServices } from '../../exchange/client-request.ts';
import { authenticatedKey } from '../../http/client-route-hooks.ts';
import { isJsonObject } from '../../inbound/openai-common/request-field-error.ts';
import { openaiResponsesCodec } from '../../inbound/openai-responses/openai-responses-codec.ts';
import { pageInputItems, parseInputItemsQuery } from './list-input-items.ts';
import { responseStoreUnavailable } from './resolve-previous-response.ts';

/** OpenAI's answer for an id this key cannot see. */
function responseNotFound(id: string): GatewayError {
  return new GatewayError('not-found', `Response with id '${id}' not found.`);
}

/** What every handler starts from: the request id, the caller's key id and the validated response id. */
interface LookupContext {
  readonly requestId: string;
  readonly keyId: string;
  readonly responseId: string;
  readonly store: ResponseStore;
}

type Handler = (context: LookupContext, request: FastifyRequest, reply: FastifyReply) => Promise<void>;

function fail(reply: FastifyReply, requestId: string, error: GatewayError): void {
  sendErrorReply(reply, openaiResponsesCodec, error, requestId);
}

/** Wraps a handler with id validation and store-failure handling (503, never 500); the route's hook authenticated the caller. */
function withLookup(services: ClientRouteServices, handler: Handler) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const requestId = request.id;
    const resolved = authenticatedKey(request);
    const params = isJsonObject(request.params) ? request.params : {};
    const responseId = params.responseId;
    if (!isValidResponseId(responseId)) {
      return fail(
        reply,
        requestId,
        new GatewayError(
          'invalid-request',
          "Invalid 'response_id': expected an id of letters, digits, '_' and '-' (at most 100 characters).",
          { param: 'response_id', code: 'invalid_value' },
        ),
      );
    }
    if (!services.responseStore) return fail(reply, requestId, responseNotFound(responseId));
    try {
      await handler(
        { requestId, keyId: resolved.key.keyId, responseId, store: services.responseStore },
        request,
        reply,
      );
    } catch (error) {
      request.log[isStateStoreUnavailable(error) ? 'debug' : 'warn'](
        { reason: (error as Error).message },
        'response store unavailable',
      );
      if (!reply.sent) fail(reply, requestId, responseStoreUnavailable());
    }
  };
}

const retrieve: Handler = async (context, request, reply) => {
  const query = isJsonObject(request.query) ? request.query : {};
  if (query.stream === 'true') {
    return fail(
      reply,
      context.requestId,
      new GatewayError(
        'invalid-request',
        'Streaming a stored response is only possible for background responses, which this gateway does not run; retrieve it without stream.',
        { param: 'stream', code: 'invalid_value' },
      ),
    );
  }
  const record = await context.store.get(context.keyId, context.responseId);
  if (!record) return fail(reply, context.requestId, responseNotFound(context.responseId));
  sendJsonReply(reply, record.response, context.requestId);
};

const remove: Handler = async (context, _request, reply) => {
  if (!(await context.store.delete(context.keyId, context.responseId)))
    return fail(reply, context.requestId, responseNotFound(context.responseId));
  sendJsonReply(reply, { id: context.responseId, object: 'response', deleted: true }, context.requestId);
};

/** The items a stored response was generated from, oldest first; earlier turns that are gone are skipped. */
async function contextItems(store: ResponseStore, record: StoredResponse): Promise<Array<Record<string, unknown>>> {
  const earlier = await store.getMany(record.keyId, record.ancestorIds);
  const turns = earlier.filter((turn): turn is StoredResponse => turn !== undefined);
  const output = (turn: StoredResponse): Array<Record<string, unknown>> =>
    Array.isArray(turn.response.output) ? turn.response.output.filter(isJsonObject) : [];
  return [...turns.flatMap((turn) => [...turn.inputItems, ...output(turn)]), ...record.inputItems];
}

const listInputItems: Handler = async (context, request, reply) => {
  const query = parseInputItemsQuery(request.query);
  if (query instanceof GatewayError) return fail(reply, context.requestId, query);
  const record = await context.store.get(context.keyId, context.responseId);
  if (!record) return fail(reply, context.requestId, responseNotFound(context.responseId));
  const page = pageInputItems(await contextItems(context.store, record), query);
  if (page instanceof GatewayError) return fail(reply, context.requestId, page);
  sendJsonReply(reply, page, context.requestId);
};

/**
 * Registers the three routes with `options`: the route options of `POST /v1/responses`
 * (gateway/http/client-route-hooks.ts), whose authenticate hook reads the caller's key.
 */
export function registerStoredResponsesRoutes(
  app: FastifyInstance,
  services: ClientRouteServices,
  options: RouteShorthandOptions,
): void {
  app.get('/v1/responses/:responseId', options, withLookup(services, retrieve));
  app.delete('/v1/responses/:responseId', options, withLookup(services, remove));
  app.get('/v1/responses/:responseId/input_items', options, withLookup(services, listInputItems));
}
