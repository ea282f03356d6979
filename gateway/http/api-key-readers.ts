/**
 * How each client format presents its API key, read from the HTTP request the way that format's
 * official SDK sends it. A reader returns the key, or undefined when none was presented.
 */
import type { FastifyRequest } from 'fastify';
import type { ApiKeyExtractor } from '../exchange/client-request.ts';

export type { ApiKeyExtractor };

/** `Authorization: Bearer <key>` → key. */
export function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(.+)$/i.exec(header) : null;
  return match?.[1]?.trim();
}

/** A single header's value (first if repeated). */
export function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** OpenAI SDK credential: Bearer, or the Azure-style `api-key` header. */
export function openaiApiKey(request: FastifyRequest): string | undefined {
  return bearerToken(request) ?? headerValue(request, 'api-key');
}

/** Anthropic SDK credential: `x-api-key` (apiKey) or `Authorization: Bearer` (authToken). */
export function anthropicApiKey(request: FastifyRequest): string | undefined {
  return headerValue(request, 'x-api-key') ?? bearerToken(request);
}

/** Gemini SDK credential: `x-goog-api-key`, `?key=`, or Bearer. */
export function geminiApiKey(request: FastifyRequest): string | undefined {
  const query = request.query as Record<string, unknown> | undefined;
  return (
    headerValue(request, 'x-goog-api-key') ??
    (typeof query?.key === 'string' ? query.key : undefined) ??
    bearerToken(request)
  );
}
