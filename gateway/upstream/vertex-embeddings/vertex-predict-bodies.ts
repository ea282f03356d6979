/**
 * The Vertex AI text-embeddings `:predict` bodies
 * (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api):
 * `POST …/publishers/google/models/{model}:predict` with `{instances: [{content, task_type?,
 * title?}], parameters: {outputDimensionality?}}`, answered `{predictions: [{embeddings: {values,
 * statistics: {token_count, truncated}}}]}`. Pure functions, for the Vertex surface to send (its
 * URL and OAuth2 token are the surface's and the credentials step's); up to 250 instances per
 * call, one for `gemini-embedding-001` (the page's "Request body").
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import type { EmbeddingCallAnswer, EmbeddingCall } from '../embedding-adapter.ts';
import { asArray, asNumber, asRecord } from '../shared/read-json-field.ts';

/** Most instances of one `:predict` call, and of a call to `gemini-embedding-001`. */
export const VERTEX_MAX_INSTANCES = 250;
export const VERTEX_GEMINI_EMBEDDING_MAX_INSTANCES = 1;

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
