/**
 * Where a Vertex AI publisher-model call goes:
 * `{host}/v1/projects/{project}/locations/{location}/publishers/{publisher}/models/{model}:{method}`
 * — Gemini's `generateContent`, `streamGenerateContent?alt=sse` and `countTokens`
 * (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/inference, "HTTP
 * request"), Anthropic's `rawPredict` and `streamRawPredict`
 * (https://cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude,
 * "Make a streaming call to a Claude model using the Vertex AI API"). `{host}` is the channel's
 * base URL: `https://{location}-aiplatform.googleapis.com`, or `https://aiplatform.googleapis.com`
 * for `global` (filled from `cloud.region` by the preset).
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import type { UpstreamTarget } from '../upstream-adapter.ts';

/** The publishers whose models the surfaces call. */
export type VertexPublisher = 'google' | 'anthropic';

/** A trailing API version a channel's base URL may carry (the SDKs' base URLs end in `/v1`). */
const VERSION_SUFFIX = /\/(v1|v1beta1)\/*$/;

/** The model id as Vertex names it: a leading `models/` (the Gemini API's resource prefix) dropped. */
function vertexModelId(model: string): string {
  return model.startsWith('models/') ? model.slice('models/'.length) : model;
}

/** One path segment, percent-encoded, `@` kept (Vertex model versions read `claude-sonnet-4-5@20250929`). */
function segment(text: string): string {
  return encodeURIComponent(text).replace(/%40/g, '@');
}

/**
 * The URL of `method` (with its query, e.g. `streamGenerateContent?alt=sse`) on `publisher`'s
 * model `model` (default: the target's upstream model) for the channel's project and location.
 * @throws GatewayError('upstream-unavailable', failover allowed) when the channel names no
 *   project or location (checked at configuration; this guards a channel made otherwise).
 */
export function vertexModelUrl(
  target: UpstreamTarget,
  publisher: VertexPublisher,
  method: string,
  model: string = target.upstreamModel,
): string {
  const project = target.cloud?.project;
  const location = target.cloud?.region;
  if (!project || !location)
    throw new GatewayError(
      'upstream-unavailable',
      'The Vertex AI channel names no project or location (cloud.project and cloud.region)',
    );
  const host = target.baseUrl.replace(/\/+$/, '').replace(VERSION_SUFFIX, '');
  return (
    `${host}/v1/projects/${segment(project)}/locations/${segment(location)}` +
    `/publishers/${publisher}/models/${segment(vertexModelId(model))}:${method}`
  );
}
