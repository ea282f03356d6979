/**
 * Anthropic Messages routes (https://docs.anthropic.com/en/api/messages): `POST /v1/messages` and
 * `POST /v1/messages/count_tokens` (`?beta=true` accepted). Auth: `x-api-key`, else Bearer.
 * `anthropic-version` is accepted and defaulted, never required; `anthropic-beta` (comma-separated
 * flags, https://docs.anthropic.com/en/api/beta-headers) becomes `anthropicBetas`, sent as a header
 * to upstreams that are really Anthropic and never as a body field.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { anthropicApiKey } from './api-key-readers.ts';
import { authenticatedKey, clientRouteOptions } from './client-route-hooks.ts';
import type { ClientRequest, ClientRouteServices, HeaderBorneFields } from '../exchange/client-request.ts';
import { serveCountTokens } from '../exchange/serve-count-tokens.ts';
import { serveGeneration } from '../exchange/serve-generation.ts';
import { anthropicMessagesCodec } from '../inbound/anthropic-messages/anthropic-messages-codec.ts';

/** The `anthropic-beta` header's flags (every occurrence, split at commas, trimmed, empty ones left out). */
export function anthropicBetaFlags(request: FastifyRequest): HeaderBorneFields | undefined {
  const header = request.headers['anthropic-beta'];
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  const flags = values
    .flatMap((value) => value.split(','))
    .map((flag) => flag.trim())
    .filter((flag) => flag !== '');
  return flags.length > 0 ? { anthropicBetas: flags } : undefined;
}

/** Registers `POST /v1/messages` and `POST /v1/messages/count_tokens` on `app`. */
export function registerAnthropicMessagesRoutes(app: FastifyInstance, services: ClientRouteServices): void {
  const codec = anthropicMessagesCodec;
  const options = clientRouteOptions({ services, codec, extractKey: anthropicApiKey });
  const client = (request: FastifyRequest, reply: FastifyReply): ClientRequest => ({
    services,
    codec,
    key: authenticatedKey(request),
    request,
    reply,
    fromHeaders: anthropicBetaFlags(request),
  });
  app.post('/v1/messages', options, (request, reply) => serveGeneration(client(request, reply)));
  app.post('/v1/messages/count_tokens', options, (request, reply) => serveCountTokens(client(request, reply)));
}
