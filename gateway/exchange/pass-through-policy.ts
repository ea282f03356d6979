/**
 * When the client's format equals the channel's protocol, the body goes upstream unchanged except
 * for the model name and the answer's bytes come back unchanged (a tap decodes them for usage).
 * Exceptions where a pass-through would lose something the gateway must guarantee:
 * - Chat Completions streams without `stream_options.include_usage` (no usage to bill; the
 *   translated path requests it upstream and strips it for the client);
 * - Anthropic requests without `max_tokens` (the gateway defaults it; upstreams require it).
 * A request whose body holds what only the translated path carries (a gateway-sealed Responses
 * compaction item) is marked by its route instead (ExchangeInput.mustTranslate).
 */
import type { ClientFormat, UpstreamProtocol } from '../canonical/formats.ts';
import type { ProviderPreset } from '../providers/provider-preset.ts';
import { jsonSourceOf } from './client-request.ts';

/** True when the raw body may be forwarded as-is (model name aside). */
export function canPassThrough(
  clientFormat: ClientFormat,
  protocol: UpstreamProtocol,
  rawBody: Readonly<Record<string, unknown>>,
  stream: boolean,
): boolean {
  if (clientFormat !== protocol) return false;
  if (clientFormat === 'openai-chat' && stream) {
    const options = rawBody.stream_options as { include_usage?: unknown } | undefined;
    return options?.include_usage === true;
  }
  if (clientFormat === 'anthropic-messages') return typeof rawBody.max_tokens === 'number';
  return true;
}

/**
 * The body to forward: the client's JSON with `model` replaced (Gemini carries the model in the
 * URL). A Responses `previous_response_id` names a response the gateway stored (its turns are
 * already in `input`, the stored responses of the Responses API), which the upstream does
 * not know: it is left out. When nothing changes (Gemini, or the model's name upstream is the one
 * the client sent), what the body was parsed from is forwarded as it came (client-request.ts
 * jsonSourceOf: a large body's own bytes, else its text), which costs no serialization, and for a
 * large body no encoding, however large it is.
 */
export function passThroughBody(
  clientFormat: ClientFormat,
  rawBody: Readonly<Record<string, unknown>>,
  upstreamModel: string,
): string | Uint8Array {
  const unchanged =
    clientFormat === 'gemini' ||
    (rawBody.model === upstreamModel && !(clientFormat === 'openai-responses' && 'previous_response_id' in rawBody));
  if (unchanged) {
    const source = jsonSourceOf(rawBody);
    if (source !== undefined) return source;
  }
  if (clientFormat === 'gemini') return JSON.stringify(rawBody);
  if (clientFormat === 'openai-responses' && 'previous_response_id' in rawBody) {
    const { previous_response_id: _resolvedByGateway, ...rest } = rawBody;
    return JSON.stringify({ ...rest, model: upstreamModel });
  }
  return JSON.stringify({ ...rawBody, model: upstreamModel });
}

/**
 * True when the client's body already suits the provider's quirks, so forwarding it as-is loses
 * nothing: it holds none of the fields the provider rejects (`quirks.dropFields`) and, on Chat
 * Completions to a provider that reads only `max_tokens` (`quirks.maxTokensField`), no
 * `max_completion_tokens`, and the endpoint takes the protocol's body as is (not one that
 * `reshapesBody`, such as Anthropic on Bedrock and Vertex, nor a Gemini body with a content
 * without `role` to Vertex). Otherwise the request takes the translated path, which applies them.
 */
export function suitsProviderQuirks(
  provider: ProviderPreset,
  protocol: UpstreamProtocol,
  rawBody: Readonly<Record<string, unknown>>,
): boolean {
  const endpoint = provider.endpoints[protocol];
  if (endpoint?.reshapesBody) return false;
  // Vertex refuses a Gemini content without `role` ("Please use a valid role: user, model."), which
  // the Gemini API defaults to `user`; the translated path names every role
  // (https://cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/Content).
  if (endpoint?.surface === 'vertex' && protocol === 'gemini' && hasContentWithoutRole(rawBody)) return false;
  const { dropFields = [], maxTokensField } = provider.quirks;
  if (dropFields.some((field) => field in rawBody)) return false;
  return !(protocol === 'openai-chat' && maxTokensField === 'max_tokens' && 'max_completion_tokens' in rawBody);
}

/** True when a Gemini body's `contents` has an entry without a `role`. */
function hasContentWithoutRole(rawBody: Readonly<Record<string, unknown>>): boolean {
  const contents = rawBody.contents;
  return (
    Array.isArray(contents) &&
    contents.some((content) => typeof content !== 'object' || content === null || !('role' in content))
  );
}
