/**
 * The upstream's own id of a call, read from its response headers, so a request can be traced
 * into the provider's logs and support tickets:
 * - OpenAI and the OpenAI-compatible providers send `x-request-id`
 *   (https://platform.openai.com/docs/api-reference/debugging-requests);
 * - Anthropic sends `request-id` (https://docs.anthropic.com/en/api/errors#request-id).
 * Gemini documents no such header: its calls are recorded without one.
 */
import type { UpstreamHeaders } from './upstream-adapter.ts';

/** Longest upstream request id kept (characters): the value is the upstream's, not ours to trust. */
export const MAX_UPSTREAM_REQUEST_ID_LENGTH = 200;

/** Response headers naming the call, in the order they are looked at. */
const REQUEST_ID_HEADERS = ['x-request-id', 'request-id'] as const;

/**
 * The upstream's request id from `headers` (lower-case names, as undici gives them): the first
 * non-empty `x-request-id` or `request-id`, cut to MAX_UPSTREAM_REQUEST_ID_LENGTH characters;
 * undefined when there is none. Never throws.
 */
export function upstreamRequestIdOf(headers: UpstreamHeaders): string | undefined {
  for (const name of REQUEST_ID_HEADERS) {
    const raw = headers[name];
    const value = Array.isArray(raw) ? raw[0] : raw;
    if (typeof value === 'string' && value !== '')
      return value.length > MAX_UPSTREAM_REQUEST_ID_LENGTH ? value.slice(0, MAX_UPSTREAM_REQUEST_ID_LENGTH) : value;
  }
  return undefined;
}
