/**
 * Azure OpenAI embeddings (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/reference#embeddings):
 * the OpenAI embeddings body and answer (shared/openai-embedding-wire.ts) at the resource's own
 * paths — on the v1 surface (`cloud.apiVersion` absent, `v1` or `preview`) `POST
 * {endpoint}/openai/v1/embeddings` with the deployment name as `model`; on the dated surface
 * `POST {endpoint}/openai/deployments/{deployment}/embeddings?api-version=…`
 * (https://learn.microsoft.com/en-us/azure/ai-foundry/openai/api-version-lifecycle). The call
 * carries no credential: the cloud credentials step adds the `api-key` header or the Entra ID
 * token. Errors use the OpenAI envelope.
 */
import { azureCallBase } from '../shared/azure-openai-urls.ts';
import type { BuiltEmbeddingCall, EmbeddingAdapter, EmbeddingCall } from '../embedding-adapter.ts';
import { classifyOpenAiError } from '../shared/classify-openai-error.ts';
import { decodeOpenAiEmbeddingAnswer, openAiEmbeddingBody } from '../shared/openai-embedding-wire.ts';
import type { UpstreamTarget } from '../upstream-adapter.ts';

/**
 * The embeddings URL of deployment `target.upstreamModel` on the channel's surface: the v1 surface
 * when `cloud.apiVersion` is absent or `v1`, its preview features with `preview`
 * (`?api-version=preview`), else the dated deployment surface (azureCallBase, deployment-scoped
 * like Chat Completions).
 * @throws GatewayError('upstream-unavailable') for a base URL that is not a URL
 */
export function azureEmbeddingsUrl(target: UpstreamTarget): string {
  const base = azureCallBase('openai-chat', target.baseUrl, target.upstreamModel, target.cloud?.apiVersion);
  return `${base.baseUrl}/embeddings${base.query}`;
}

/** The call on the channel's surface (azureEmbeddingsUrl) with the OpenAI body, JSON, no credential header. */
export function buildAzureEmbeddingCall(call: EmbeddingCall, target: UpstreamTarget): BuiltEmbeddingCall {
  const { body, dropped } = openAiEmbeddingBody(call, target);
  return {
    request: {
      url: azureEmbeddingsUrl(target),
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    },
    dropped,
  };
}

/** The `azure` embedding style. */
export const azureEmbeddingsAdapter: EmbeddingAdapter = {
  style: 'azure',
  buildCall: buildAzureEmbeddingCall,
  decodeAnswer: decodeOpenAiEmbeddingAnswer,
  classifyError: classifyOpenAiError,
};
