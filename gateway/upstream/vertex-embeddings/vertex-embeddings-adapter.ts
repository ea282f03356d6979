/**
 * The Vertex AI text-embeddings `:predict` bodies
 * (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api):
 * `POST …/publishers/google/models/{model}:predict` with `{instances: [{content, task_type?,
 * title?}], parameters: {outputDimensionality?}}`, answered `{predictions: [{embeddings: {values,
 * statistics: {token_count, truncated}}}]}`, at
 * `{host}/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:predict`
 * (the channel's `cloud.project` and `cloud.region`); the OAuth2 token is added by the cloud
 * credentials step. Up to 250 instances and 20 000 input tokens per call, one instance for
 * `gemini-embedding-001` (the page's "Request body").
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import type { BuiltEmbeddingCall, EmbeddingAdapter, EmbeddingCall, EmbeddingCallAnswer } from '../embedding-adapter.ts';
import { classifyUpstreamHttpError, upstreamErrorMessage } from '../classify-upstream-error.ts';
import { vertexModelUrl } from '../shared/vertex-ai-urls.ts';
import type { UpstreamTarget } from '../upstream-adapter.ts';
import { asArray, asNumber, asRecord } from '../shared/read-json-field.ts';

/**
 * The `:predict` body of `call`: one instance per text with its Gemini `taskType` as `task_type`
 * and `title`, the vector length as `parameters.outputDimensionality`.
 * @throws GatewayError('invalid-request', param `input`) for token-id inputs
 */
export function vertexPredictBody(call: EmbeddingCall): Record<string, unknown> {
  const instances = call.inputs.map((input) => {
    if (input.kind === 'tokens')
      throw new GatewayError('invalid-request', 'Token-id inputs cannot be sent to a Vertex AI embedding model', {
        param: 'input',
      });
    return {
      content: input.text,
      ...(input.taskType === undefined ? {} : { task_type: input.taskType }),
      ...(input.title === undefined ? {} : { title: input.title }),
    };
  });
  return {
    instances,
    ...(call.dimensions === undefined ? {} : { parameters: { outputDimensionality: call.dimensions } }),
  };
}

/**
 * Decodes `{predictions: [{embeddings: {values, statistics: {token_count}}}]}`: the vectors in
 * order and the summed `token_count`s (undefined when a prediction reports none).
 * @throws GatewayError('upstream-malformed') without `inputCount` predictions holding number vectors
 */
export function decodeVertexPredictAnswer(body: unknown, inputCount: number): EmbeddingCallAnswer {
  const predictions = asArray(asRecord(body)?.predictions);
  let tokens: number | undefined = 0;
  const vectors = predictions.map((prediction, index) => {
    const embeddings = asRecord(asRecord(prediction)?.embeddings);
    const values = embeddings?.values;
    if (!Array.isArray(values) || !values.every((n) => typeof n === 'number' && Number.isFinite(n)))
      throw new GatewayError(
        'upstream-malformed',
        `Vertex AI answered an unreadable embedding at predictions.${index}`,
      );
    const count = asNumber(asRecord(embeddings?.statistics)?.token_count);
    tokens = count === undefined || tokens === undefined ? undefined : tokens + Math.max(0, Math.floor(count));
    return values as number[];
  });
  if (vectors.length !== inputCount)
    throw new GatewayError(
      'upstream-malformed',
      `Vertex AI answered ${vectors.length} embeddings for ${inputCount} inputs`,
    );
  return { vectors, inputTokens: tokens };
}

/**
 * `{host}/v1/projects/{project}/locations/{location}/publishers/google/models/{model}:predict`
 * (vertexModelUrl).
 * @throws GatewayError('upstream-unavailable', failover allowed) when the channel names no project
 *   or location (checked at configuration; this guards a channel made otherwise)
 */
export function vertexPredictUrl(target: UpstreamTarget): string {
  return vertexModelUrl(target, 'google', 'predict');
}

/** The `:predict` call of `call` (vertexPredictUrl, vertexPredictBody), JSON, no credential header. */
export function buildVertexEmbeddingCall(call: EmbeddingCall, target: UpstreamTarget): BuiltEmbeddingCall {
  return {
    request: {
      url: vertexPredictUrl(target),
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(vertexPredictBody(call)),
    },
    dropped: call.user === undefined ? [] : ['user: Vertex AI embeddings have no end-user field'],
  };
}

/** The `vertex` embedding style; errors (google.rpc.Status) by the shared status table. */
export const vertexEmbeddingsAdapter: EmbeddingAdapter = {
  style: 'vertex',
  buildCall: buildVertexEmbeddingCall,
  decodeAnswer: decodeVertexPredictAnswer,
  classifyError: (status, body, headers) => {
    const { message, code } = upstreamErrorMessage(body);
    return classifyUpstreamHttpError(status, message, headers, code);
  },
};
