/**
 * Gemini routes (https://ai.google.dev/api/generate-content): `POST /v1beta/models/{model}:{action}` for
 * generateContent, streamGenerateContent (`?alt=sse`) and countTokens, the same under `/v1/…`.
 * The model segment may contain `/`; the action is after the LAST `:`. Auth: `x-goog-api-key`,
 * `?key=`, or Bearer.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../canonical/gateway-error.ts';
import { sendErrorReply } from '../exchange/client-response.ts';
import { geminiApiKey } from './api-key-readers.ts';
import type { ClientRouteServices } from '../exchange/client-request.ts';
import { serveCountTokens } from '../exchange/serve-count-tokens.ts';
import { serveGeneration } from '../exchange/serve-generation.ts';
import { geminiCodec } from '../inbound/gemini/gemini-codec.ts';

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

function serveGeminiAction(
  services: ClientRouteServices,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> | void {
  const parsed = parseGeminiModelPath((request.params as { '*': string })['*']);
  switch (parsed?.action) {
    case 'generateContent':
      return serveGeneration({
        services,
        codec: geminiCodec,
        extractKey: geminiApiKey,
        request,
        reply,
        hints: { model: parsed.model, stream: false },
      });
    case 'streamGenerateContent':
      return serveGeneration({
        services,
        codec: geminiCodec,
        extractKey: geminiApiKey,
        request,
        reply,
        hints: { model: parsed.model, stream: true },
      });
    case 'countTokens':
      return serveCountTokens({
        services,
        codec: geminiCodec,
        extractKey: geminiApiKey,
        request,
        reply,
        hints: { model: parsed.model },
      });
    default:
      sendErrorReply(
        reply,
        geminiCodec,
        new GatewayError(
          'not-found',
          `Unknown method '${parsed?.action ?? ''}': expected generateContent, streamGenerateContent or countTokens`,
        ),
        request.id,
      );
  }
}

export function registerGeminiRoutes(app: FastifyInstance, services: ClientRouteServices): void {
  for (const version of ['v1beta', 'v1']) {
    app.post(`/${version}/models/*`, { config: { codec: geminiCodec } }, (request, reply) =>
      serveGeminiAction(services, request, reply),
    );
  }
}
