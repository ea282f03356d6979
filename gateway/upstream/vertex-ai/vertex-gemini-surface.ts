/**
 * Gemini on Google Vertex AI as a surface over the Gemini adapter: the wrapped adapter builds the
 * GenerateContentRequest and decodes answers and streams (the response shapes are the same,
 * https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference, "Response
 * body"); this wrapper sends calls to the publisher model of the channel's project and location
 * (vertex-ai-urls.ts), gives every content a role — Vertex requires `role` on each of `contents`
 * where the Gemini API defaults it to `user` (same page, "Request body": `role` "must be either
 * 'user' or 'model'") —, counts tokens with Vertex's flat CountTokensRequest
 * (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/count-tokens) and reads
 * Vertex's credential, permission and availability errors as channel faults. The OAuth2 access
 * token is added by the credentials step (cloud-credentials/).
 */
import type { CanonicalRequest } from '../../canonical/request.ts';
import type { UpstreamAdapter, UpstreamCallTarget, UpstreamJsonRequest, UpstreamTarget } from '../upstream-adapter.ts';
import { asArray, asRecord } from '../shared/read-json-field.ts';
import { vertexChannelFault } from './classify-vertex-error.ts';
import { vertexModelUrl } from '../shared/vertex-ai-urls.ts';

/** `body` (a GenerateContentRequest) with `role: "user"` on each content that has none. */
function withContentRoles(body: Record<string, unknown>): Record<string, unknown> {
  const contents = asArray(body.contents);
  if (contents.every((content) => asRecord(content)?.role !== undefined)) return body;
  return {
    ...body,
    contents: contents.map((content) => {
      const record = asRecord(content);
      return record && record.role === undefined ? { role: 'user', ...record } : content;
    }),
  };
}

/** The wrapped adapter's call target moved to the Vertex model URL (same headers: JSON, no credential). */
function vertexCallTarget(
  inner: UpstreamAdapter,
  request: CanonicalRequest,
  target: UpstreamTarget,
): UpstreamCallTarget {
  const call = inner.passThroughTarget(request, target);
  const method = request.stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
  return { ...call, url: vertexModelUrl(target, 'google', method) };
}

/**
 * The Vertex AI surface of `inner`, the `gemini` adapter (composed in gateway/app.ts as
 * `vertex:gemini`). Pass-through keeps working: a Gemini client's body goes to the Vertex URL as
 * it came.
 * @throws Error at composition when `inner` speaks another protocol (a wiring mistake).
 */
export function vertexGeminiSurface(inner: UpstreamAdapter): UpstreamAdapter {
  if (inner.protocol !== 'gemini') throw new Error(`vertex:gemini wraps the gemini adapter, not ${inner.protocol}`);
  const decodeCount = inner.decodeCountTokensResponse?.bind(inner);
  return {
    protocol: 'gemini',
    buildRequest(request, target) {
      const built = inner.buildRequest(request, target);
      const body = withContentRoles(JSON.parse(built.request.body) as Record<string, unknown>);
      const call = vertexCallTarget(inner, request, target);
      return { ...built, request: { ...call, body: JSON.stringify(body) } };
    },
    passThroughTarget: (request, target) => vertexCallTarget(inner, request, target),
    decodeResponse: (body, context) => inner.decodeResponse(body, context),
    createStreamDecoder: (context) => inner.createStreamDecoder(context),
    classifyError: (status, body, headers) =>
      vertexChannelFault(status, body) ?? inner.classifyError(status, body, headers),
    /** `:countTokens` with `{contents, systemInstruction?, tools?}` (Vertex's flat CountTokensRequest). */
    buildCountTokensRequest(request, target): UpstreamJsonRequest {
      const built = inner.buildRequest({ ...request, stream: false }, target);
      const full = withContentRoles(JSON.parse(built.request.body) as Record<string, unknown>);
      const body: Record<string, unknown> = { contents: full.contents };
      if (full.systemInstruction !== undefined) body.systemInstruction = full.systemInstruction;
      if (full.tools !== undefined) body.tools = full.tools;
      return {
        url: vertexModelUrl(target, 'google', 'countTokens'),
        headers: built.request.headers,
        body: JSON.stringify(body),
      };
    },
    ...(decodeCount ? { decodeCountTokensResponse: (body: unknown) => decodeCount(body) } : {}),
  };
}
