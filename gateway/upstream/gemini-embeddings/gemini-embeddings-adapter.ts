/**
 * The Gemini embeddings API as an upstream (https://ai.google.dev/api/embeddings):
 * `POST {baseUrl}/v1beta/models/{model}:batchEmbedContents` with `{requests: [{model, content:
 * {parts: [{text}]}, taskType?, title?, outputDimensionality?}]}`, answered `{embeddings:
 * [{values}]}` in the requests' order. The answer reports no token usage, so the pipeline counts
 * the inputs with the gateway's tokenizer (usage source `estimated`).
 *
 * The error envelope is google.rpc.Status, the same as generateContent's: the classifier is the
 * Gemini generation adapter's, handed in by the composition root (an adapter folder imports no
 * other protocol's folder).
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import { authHeadersFor, authSchemeFor } from '../../providers/auth-headers.ts';
import type { BuiltEmbeddingCall, EmbeddingAdapter, EmbeddingCall, EmbeddingCallAnswer } from '../embedding-adapter.ts';
import { asArray, asRecord } from '../shared/read-json-field.ts';
import type { UpstreamAdapter, UpstreamTarget } from '../upstream-adapter.ts';

/** `models/{model}` (a `models/` or `tunedModels/` name kept as is), each segment percent-encoded. */
function modelPath(model: string): string {
  const path = model.startsWith('models/') || model.startsWith('tunedModels/') ? model : `models/${model}`;
  return path.split('/').map(encodeURIComponent).join('/');
}

/**
 * `POST {baseUrl}/v1beta/models/{model}:batchEmbedContents`, one request per input, each naming
 * the model, its `taskType` and `title` when given and `outputDimensionality` when asked.
 * @throws GatewayError('invalid-request', param `input`) for token-id inputs, which Gemini cannot
 *   take (the pipeline refuses them before building)
 */
export function buildGeminiEmbeddingCall(call: EmbeddingCall, target: UpstreamTarget): BuiltEmbeddingCall {
  const model = modelPath(target.upstreamModel);
  const dropped: string[] = [];
  if (call.user !== undefined) dropped.push('user: the Gemini embeddings API has no end-user field');
  const requests = call.inputs.map((item) => {
    if (item.kind === 'tokens')
      throw new GatewayError('invalid-request', 'Token-id inputs cannot be sent to a Gemini embedding model', {
        param: 'input',
      });
    return {
      model,
      content: { parts: [{ text: item.text }] },
      ...(item.taskType === undefined ? {} : { taskType: item.taskType }),
      ...(item.title === undefined ? {} : { title: item.title }),
      ...(call.dimensions === undefined ? {} : { outputDimensionality: call.dimensions }),
    };
  });
  const headers = {
    'content-type': 'application/json',
    ...authHeadersFor(authSchemeFor(target.provider, 'gemini'), target.apiKey),
  };
  return {
    request: {
      url: `${target.baseUrl}/v1beta/${model}:batchEmbedContents`,
      headers,
      body: JSON.stringify({ requests }),
    },
    dropped,
  };
}

/**
 * Decodes `{embeddings: [{values: number[]}]}`; the answer carries no usage (`inputTokens` undefined).
 * @throws GatewayError('upstream-malformed') without an `embeddings` list of `inputCount` vectors of numbers
 */
export function decodeGeminiEmbeddingAnswer(body: unknown, inputCount: number): EmbeddingCallAnswer {
  const root = asRecord(body);
  if (!root || !Array.isArray(root.embeddings))
    throw new GatewayError('upstream-malformed', 'Upstream answered batchEmbedContents without an `embeddings` list');
  const vectors = asArray(root.embeddings).map((entry, position) => {
    const values = asRecord(entry)?.values;
    if (!Array.isArray(values) || !values.every((n) => typeof n === 'number' && Number.isFinite(n)))
      throw new GatewayError(
        'upstream-malformed',
        `Upstream answered an unreadable embedding at embeddings.${position}`,
      );
    return values as number[];
  });
  if (vectors.length !== inputCount)
    throw new GatewayError(
      'upstream-malformed',
      `Upstream answered ${vectors.length} embeddings for ${inputCount} inputs`,
    );
  return { vectors, inputTokens: undefined };
}

/** The `gemini` embedding style; `classifyError` is the Gemini generation adapter's (same google.rpc.Status envelope). */
export function createGeminiEmbeddingsAdapter(classifier: Pick<UpstreamAdapter, 'classifyError'>): EmbeddingAdapter {
  return {
    style: 'gemini',
    buildCall: buildGeminiEmbeddingCall,
    decodeAnswer: decodeGeminiEmbeddingAnswer,
    classifyError: (status, body, headers) => classifier.classifyError(status, body, headers),
  };
}
