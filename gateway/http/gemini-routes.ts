/**
 * Gemini routes (https://ai.google.dev/api/generate-content): `POST /v1beta/models/{model}:{action}` for
 * generateContent, streamGenerateContent (`?alt=sse`) and countTokens, and the embeddings actions
 * embedContent and batchEmbedContents (https://ai.google.dev/api/embeddings), the same under `/v1/…`.
 * The model segment may contain `/`; the action is after the LAST `:`. Auth: `x-goog-api-key`,
 * `?key=`, or Bearer.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../canonical/gateway-error.ts';
import { sendErrorReply } from '../exchange/client-response.ts';
import { geminiApiKey } from './api-key-readers.ts';
import { authenticatedKey, clientRouteOptions, type ClientRouteHook } from './client-route-hooks.ts';
import type { ClientRouteServices } from '../exchange/client-request.ts';
import { serveCountTokens } from '../exchange/serve-count-tokens.ts';
import { serveGeneration } from '../exchange/serve-generation.ts';
import { geminiCodec } from '../inbound/gemini/gemini-codec.ts';
import { serveEmbeddings } from '../exchange/serve-embeddings.ts';
import {
  geminiBatchEmbedContentsCodec,
  geminiEmbedContentCodec,
} from '../inbound/gemini-embeddings/gemini-embeddings-codec.ts';
import type { EmbeddingAdapters } from '../upstream/embedding-adapter.ts';

/**
 * Splits `models/qwen/qwen3-max:generateContent` into model and action. `path` is the route's
 * wildcard parameter, which Fastify's router has already percent-decoded once (a malformed
 * escape never reaches here: the router answers it as FST_ERR_BAD_URL, client-error-handler.ts);
 * decoding again would turn `%2525` into `%` and throw on `%25ZZ`. Never throws.
 */
export function parseGeminiModelPath(path: string): { model: string; action: string } | undefined {
  const at = path.lastIndexOf(':');
  if (at <= 0) return undefined;
  return { model: path.slice(0, at).replace(/^models\//, ''), action: path.slice(at + 1) };
}

/** The action of a Gemini route's path (see parseGeminiModelPath). */
function geminiAction(request: FastifyRequest): { model: string; action: string } | undefined {
  return parseGeminiModelPath((request.params as { '*': string })['*']);
}

const KNOWN_ACTIONS = new Set([
  'generateContent',
  'streamGenerateContent',
  'countTokens',
  'embedContent',
  'batchEmbedContents',
]);

/** Answers an unknown action 404 before the drain and auth checks, as Google's API does for an unknown method. */
const refuseUnknownAction: ClientRouteHook = (request, reply, done) => {
  const action = geminiAction(request)?.action;
  if (action !== undefined && KNOWN_ACTIONS.has(action)) return done();
  sendErrorReply(
    reply,
    geminiCodec,
    new GatewayError(
      'not-found',
      `Unknown method '${action ?? ''}': expected generateContent, streamGenerateContent, countTokens, embedContent or batchEmbedContents`,
    ),
    request.id,
  );
};

function serveGeminiAction(
  services: ClientRouteServices,
  embeddingAdapters: EmbeddingAdapters,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const { model, action } = geminiAction(request) ?? { model: '', action: '' };
  const client = { services, codec: geminiCodec, key: authenticatedKey(request), request, reply };
  if (action === 'countTokens') return serveCountTokens({ ...client, hints: { model } });
  if (action === 'embedContent' || action === 'batchEmbedContents')
    return serveEmbeddings({
      ...client,
      hints: { model },
      embeddingCodec: action === 'embedContent' ? geminiEmbedContentCodec : geminiBatchEmbedContentsCodec,
      embeddingAdapters,
    });
  return serveGeneration({ ...client, hints: { model, stream: action === 'streamGenerateContent' } });
}

/**
 * Registers `POST /v1beta/models/{model}:{action}` and `POST /v1/models/{model}:{action}` on `app`;
 * the embeddings actions are served through `embeddingAdapters` (none: no channel serves them, 404 per model).
 */
export function registerGeminiRoutes(
  app: FastifyInstance,
  services: ClientRouteServices,
  embeddingAdapters: EmbeddingAdapters = {},
): void {
  const options = clientRouteOptions({
    services,
    codec: geminiCodec,
    extractKey: geminiApiKey,
    before: [refuseUnknownAction],
  });
  for (const version of ['v1beta', 'v1']) {
    app.post(`/${version}/models/*`, options, (request, reply) =>
      serveGeminiAction(services, embeddingAdapters, request, reply),
    );
  }
}
