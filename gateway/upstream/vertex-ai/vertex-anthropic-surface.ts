/**
 * Claude on Google Vertex AI as a surface over the Anthropic Messages adapter
 * (https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude): the
 * wrapped adapter builds the Messages body and decodes answers and streams (the same Messages
 * responses and SSE events); this wrapper posts to the publisher model's `:rawPredict`, or
 * `:streamRawPredict` when streamed, with the body reshaped as Vertex wants it — no `model` (the
 * URL names it) and `anthropic_version: "vertex-2023-10-16"` in the body instead of the
 * `anthropic-version` header (same page, "Request body"; as `@anthropic-ai/vertex-sdk` does in
 * its request adapter) — counts tokens at `publishers/anthropic/models/count-tokens:rawPredict`
 * (https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/count-tokens), and
 * reads Vertex's own credential, permission and availability errors as channel faults (the
 * model's errors keep Anthropic's envelope and classification). Every request is translated: the
 * preset marks this endpoint `reshapesBody`, so no client body goes through unchanged.
 */
import type { UpstreamAdapter, UpstreamCallTarget, UpstreamJsonRequest } from '../upstream-adapter.ts';
import { vertexChannelFault } from './classify-vertex-error.ts';
import { vertexModelUrl } from '../shared/vertex-ai-urls.ts';

/** The Messages API version Vertex AI takes in the body (https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude). */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/** `headers` without `anthropic-version` (Vertex reads the version from the body). */
function vertexHeaders(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => name.toLowerCase() !== 'anthropic-version'));
}

/**
 * The Vertex AI surface of `inner`, the `anthropic-messages` adapter (composed in gateway/app.ts
 * as `vertex:anthropic-messages`). The Claude model id is the channel's upstream model
 * (`claude-sonnet-4-5@20250929`).
 * @throws Error at composition when `inner` speaks another protocol (a wiring mistake).
 */
export function vertexAnthropicSurface(inner: UpstreamAdapter): UpstreamAdapter {
  if (inner.protocol !== 'anthropic-messages')
    throw new Error(`vertex:anthropic-messages wraps the anthropic-messages adapter, not ${inner.protocol}`);
  const decodeCount = inner.decodeCountTokensResponse?.bind(inner);
  const buildCount = inner.buildCountTokensRequest?.bind(inner);
  return {
    protocol: 'anthropic-messages',
    buildRequest(request, target) {
      const built = inner.buildRequest(request, target);
      const { model: _inTheUrl, ...rest } = JSON.parse(built.request.body) as Record<string, unknown>;
      const body = { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest };
      const method = request.stream ? 'streamRawPredict' : 'rawPredict';
      return {
        ...built,
        request: {
          url: vertexModelUrl(target, 'anthropic', method),
          headers: vertexHeaders(built.request.headers),
          body: JSON.stringify(body),
        },
      };
    },
    passThroughTarget(request, target): UpstreamCallTarget {
      const call = inner.passThroughTarget(request, target);
      const method = request.stream ? 'streamRawPredict' : 'rawPredict';
      return { url: vertexModelUrl(target, 'anthropic', method), headers: vertexHeaders(call.headers) };
    },
    decodeResponse: (body, context) => inner.decodeResponse(body, context),
    createStreamDecoder: (context) => inner.createStreamDecoder(context),
    classifyError: (status, body, headers) =>
      vertexChannelFault(status, body) ?? inner.classifyError(status, body, headers),
    ...(buildCount && decodeCount
      ? {
          /** `count-tokens:rawPredict` with the Messages count body, its `model` kept, and `anthropic_version`. */
          buildCountTokensRequest(request, target): UpstreamJsonRequest {
            const built = buildCount(request, target);
            const body = { anthropic_version: VERTEX_ANTHROPIC_VERSION, ...(JSON.parse(built.body) as object) };
            return {
              url: vertexModelUrl(target, 'anthropic', 'rawPredict', 'count-tokens'),
              headers: vertexHeaders(built.headers),
              body: JSON.stringify(body),
            };
          },
          decodeCountTokensResponse: (body: unknown) => decodeCount(body),
        }
      : {}),
  };
}
