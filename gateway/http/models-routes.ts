/**
 * Model listing in each SDK's own shape: `GET /v1/models` answers the OpenAI list, or the
 * Anthropic page when the request carries `anthropic-version` / `x-api-key`
 * (https://docs.anthropic.com/en/api/messages), or the Gemini list when it carries a Gemini key
 * (https://ai.google.dev/api/generate-content); `GET /v1beta/models` is always Gemini. Single-model gets too.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../canonical/gateway-error.ts';
import { sendErrorReply, sendJsonReply } from '../exchange/client-response.ts';
import type { ChannelRouter } from '../routing/channel-router.ts';
import { anthropicMessagesCodec } from '../inbound/anthropic-messages/anthropic-messages-codec.ts';
import { geminiCodec } from '../inbound/gemini/gemini-codec.ts';
import { openaiChatCodec } from '../inbound/openai-chat/openai-chat-codec.ts';
import { anthropicApiKey, geminiApiKey, headerValue, openaiApiKey } from './api-key-readers.ts';
import { authenticatedKey, authenticateHook, type ClientAuthScheme } from './client-route-hooks.ts';
import type { ClientRouteServices } from '../exchange/client-request.ts';

type ListingFormat = 'openai' | 'anthropic' | 'gemini';

interface ModelEntry {
  readonly id: string;
  readonly ownedBy: string;
}

function listingFormat(request: FastifyRequest, path: string): ListingFormat {
  if (path.startsWith('/v1beta/')) return 'gemini';
  if (headerValue(request, 'anthropic-version') || headerValue(request, 'x-api-key')) return 'anthropic';
  if (headerValue(request, 'x-goog-api-key') || typeof (request.query as Record<string, unknown>)?.key === 'string')
    return 'gemini';
  return 'openai';
}

const FORMAT_AUTH: Record<ListingFormat, ClientAuthScheme> = {
  openai: { codec: openaiChatCodec, extractKey: openaiApiKey },
  anthropic: { codec: anthropicMessagesCodec, extractKey: anthropicApiKey },
  gemini: { codec: geminiCodec, extractKey: geminiApiKey },
};

/** Serialises one model in `format`. `createdAt` is the gateway's start time, unix seconds. */
function modelObject(format: ListingFormat, model: ModelEntry, createdAt: number): Record<string, unknown> {
  if (format === 'openai') return { id: model.id, object: 'model', created: createdAt, owned_by: model.ownedBy };
  if (format === 'anthropic')
    return {
      type: 'model',
      id: model.id,
      display_name: model.id,
      created_at: new Date(createdAt * 1000).toISOString(),
    };
  return {
    name: `models/${model.id}`,
    version: '001',
    displayName: model.id,
    description: `${model.id} via Tollgate (${model.ownedBy})`,
    inputTokenLimit: 1_048_576,
    outputTokenLimit: 65_536,
    supportedGenerationMethods: ['generateContent', 'countTokens'],
  };
}

function pageOf(
  format: ListingFormat,
  models: ModelEntry[],
  query: Record<string, unknown>,
  createdAt: number,
): unknown {
  if (format === 'openai') return { object: 'list', data: models.map((m) => modelObject(format, m, createdAt)) };
  if (format === 'anthropic') {
    const limit = Math.min(1000, Math.max(1, Number(query.limit) || 20));
    const after = typeof query.after_id === 'string' ? models.findIndex((m) => m.id === query.after_id) + 1 : 0;
    const page = models.slice(after, after + limit);
    return {
      data: page.map((m) => modelObject(format, m, createdAt)),
      has_more: after + limit < models.length,
      first_id: page[0]?.id ?? null,
      last_id: page[page.length - 1]?.id ?? null,
    };
  }
  const size = Math.min(1000, Math.max(1, Number(query.pageSize) || 50));
  const offset = Math.max(
    0,
    Number(typeof query.pageToken === 'string' ? Buffer.from(query.pageToken, 'base64url').toString() : 0) || 0,
  );
  const page = { models: models.slice(offset, offset + size).map((m) => modelObject(format, m, createdAt)) };
  // The last page has no nextPageToken at all: @google/genai's pager keeps fetching on ''.
  return offset + size < models.length
    ? { ...page, nextPageToken: Buffer.from(String(offset + size)).toString('base64url') }
    : page;
}

function entries(router: ChannelRouter): ModelEntry[] {
  return router.listModels().map((id) => ({ id, ownedBy: router.candidatesFor(id)[0]?.provider.id ?? 'tollgate' }));
}

function serveModels(
  services: ClientRouteServices,
  createdAt: number,
  request: FastifyRequest,
  reply: FastifyReply,
  modelId?: string,
): void {
  const format = listingFormat(request, request.url);
  const { codec } = FORMAT_AUTH[format];
  const requestId = request.id;
  const resolved = authenticatedKey(request);
  // A key with a model allowlist sees only the models it may use.
  const allowed = resolved.key.models;
  const models = entries(services.exchange.router).filter((m) => !allowed || allowed.has(m.id));
  if (modelId === undefined)
    return sendJsonReply(
      reply,
      pageOf(format, models, (request.query ?? {}) as Record<string, unknown>, createdAt),
      requestId,
    );
  // The router has already percent-decoded the wildcard parameter once; decoding again would throw on `%25ZZ`.
  const id = modelId.replace(/^models\//, '');
  const found = models.find((m) => m.id === id);
  if (found) return sendJsonReply(reply, modelObject(format, found, createdAt), requestId);
  sendErrorReply(
    reply,
    codec,
    new GatewayError('not-found', `The model '${id}' does not exist`, { param: 'model', code: 'model_not_found' }),
    requestId,
  );
}

/** Registers the listing routes. `createdAt` (unix seconds) is reported as every model's creation time. */
export function registerModelsRoutes(app: FastifyInstance, services: ClientRouteServices, createdAt: number): void {
  // The listing format (and so the key reader and error shape) is read from each request.
  const options = {
    preHandler: authenticateHook(services, (request) => FORMAT_AUTH[listingFormat(request, request.url)]),
  };
  for (const prefix of ['/v1/models', '/v1beta/models']) {
    app.get(prefix, options, (request, reply) => serveModels(services, createdAt, request, reply));
    app.get(`${prefix}/*`, options, (request, reply) =>
      serveModels(services, createdAt, request, reply, (request.params as { '*': string })['*']),
    );
  }
}
