/**
 * Which client format an answer should be in when no route decided it (bad URL, malformed HTTP,
 * unknown route): chosen from the request path, the way each SDK builds its URLs —
 * Anthropic (https://docs.anthropic.com/en/api/messages) under `/v1/messages`, Gemini
 * (https://ai.google.dev/api/generate-content) under `/v1beta/` and for `/v1/models/{model}:{method}`,
 * OpenAI (https://platform.openai.com/docs/api-reference) for every other `/v1/` path.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { anthropicMessagesCodec } from '../inbound/anthropic-messages/anthropic-messages-codec.ts';
import { geminiCodec } from '../inbound/gemini/gemini-codec.ts';
import type { InboundCodec } from '../inbound/inbound-codec.ts';
import { openaiChatCodec } from '../inbound/openai-chat/openai-chat-codec.ts';
import { openaiResponsesCodec } from '../inbound/openai-responses/openai-responses-codec.ts';

/** The path of a request target (`/v1/x?key=…` → `/v1/x`); never decoded, so it cannot throw. */
export function pathOfTarget(target: string): string {
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

/** A header's first value, or undefined. */
function header(headers: IncomingHttpHeaders | undefined, name: string): string | undefined {
  const value = headers?.[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Whether the raw query string carries a `key` parameter (the Gemini SDKs' `?key=`). Never throws. */
function queryHasKey(target: string): boolean {
  const query = target.indexOf('?');
  return query !== -1 && new URLSearchParams(target.slice(query + 1)).has('key');
}

/**
 * The codec for a request target (path and query, as sent) and its headers, when they could be
 * read:
 * - `/v1/messages…` → Anthropic;
 * - `/v1beta/…`, `/v1/models/{model}:{method}` → Gemini;
 * - `/v1/models` and `/v1/models/{model}` (the shared model listing) → the listing's own choice:
 *   Anthropic with `anthropic-version` or `x-api-key`, Gemini with `x-goog-api-key` or `?key=`,
 *   else OpenAI;
 * - `/v1/responses…` → OpenAI Responses; anything else → OpenAI Chat Completions (same envelope).
 * Pure string tests: never throws, whatever the target.
 */
export function codecForTarget(target: string, headers?: IncomingHttpHeaders): InboundCodec {
  const path = pathOfTarget(target);
  if (path.startsWith('/v1/messages')) return anthropicMessagesCodec;
  if (path.startsWith('/v1beta/')) return geminiCodec;
  if (path.startsWith('/v1/models/') && path.includes(':')) return geminiCodec;
  if (path === '/v1/models' || path.startsWith('/v1/models/')) {
    if (header(headers, 'anthropic-version') !== undefined || header(headers, 'x-api-key') !== undefined)
      return anthropicMessagesCodec;
    if (header(headers, 'x-goog-api-key') !== undefined || queryHasKey(target)) return geminiCodec;
    return openaiChatCodec;
  }
  if (path.startsWith('/v1/responses')) return openaiResponsesCodec;
  return openaiChatCodec;
}
