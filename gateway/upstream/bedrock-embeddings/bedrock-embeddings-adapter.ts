/**
 * Amazon Bedrock embeddings through InvokeModel (`POST {baseUrl}/model/{modelId}/invoke`,
 * https://docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html), the body
 * being the model family's own:
 * - Titan Text Embeddings (`amazon.titan-embed-text-v1`, `-v2:0`;
 *   https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html):
 *   `{inputText, dimensions?, normalize?}` → `{embedding, inputTextTokenCount}`, one text per call;
 *   `dimensions` (256, 512, 1024) and `normalize` only on v2.
 * - Cohere Embed (`cohere.embed-english-v3`, `cohere.embed-multilingual-v3`, `cohere.embed-v4:0`;
 *   https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed.html):
 *   `{texts, input_type, embedding_types: ["float"], output_dimension?}` →
 *   `{embeddings: {float: [[…]]}, id, response_type: "embeddings_by_type", texts}`, at most 96
 *   texts per call; the input tokens come in the `x-amzn-bedrock-input-token-count` response header
 *   (https://docs.aws.amazon.com/bedrock/latest/userguide/monitoring-cw.html, InputTokenCount).
 *   A Gemini `taskType` maps to Cohere's `input_type` (RETRIEVAL_QUERY → search_query,
 *   CLASSIFICATION → classification, CLUSTERING → clustering, anything else → search_document);
 *   one call carries the `input_type` of its first input.
 * The call carries no credential: the cloud credentials step signs it (SigV4, service `bedrock`).
 */
import { GatewayError } from '../../canonical/gateway-error.ts';
import type { EmbeddingInput } from '../../canonical/embedding.ts';
import { classifyUpstreamHttpError, upstreamErrorMessage } from '../classify-upstream-error.ts';
import type { BuiltEmbeddingCall, EmbeddingAdapter, EmbeddingCall, EmbeddingCallAnswer } from '../embedding-adapter.ts';
import { bedrockModelPathSegment } from '../shared/bedrock-model-path.ts';
import { asArray, asNumber, asRecord } from '../shared/read-json-field.ts';
import type { UpstreamHeaders, UpstreamTarget } from '../upstream-adapter.ts';

/** The embedding model families Bedrock serves through InvokeModel with their own bodies. */
export type BedrockEmbeddingFamily = 'titan' | 'cohere';

/** The family of a Bedrock model id (region prefixes such as `us.` allowed), or undefined for another model. */
export function bedrockEmbeddingFamily(modelId: string): BedrockEmbeddingFamily | undefined {
  if (modelId.includes('amazon.titan-embed')) return 'titan';
  if (modelId.includes('cohere.embed')) return 'cohere';
  return undefined;
}

/** The texts of `inputs`; token ids cannot go to Bedrock (refused naming `input`). */
function textsOf(inputs: ReadonlyArray<EmbeddingInput>): Array<Extract<EmbeddingInput, { kind: 'text' }>> {
  return inputs.map((input) => {
    if (input.kind === 'tokens')
      throw new GatewayError('invalid-request', 'Token-id inputs cannot be sent to a Bedrock embedding model', {
        param: 'input',
      });
    return input;
  });
}

/**
 * The Titan Text Embeddings body of one text: `{inputText}`, plus `dimensions` and
 * `normalize: true` for v2 (`modelId` containing `titan-embed-text-v2`).
 * @throws GatewayError('invalid-request') for more than one input, or `dimensions` on a v1 model
 */
export function titanEmbeddingBody(call: EmbeddingCall, modelId: string): Record<string, unknown> {
  const [input, ...rest] = textsOf(call.inputs);
  if (!input || rest.length > 0)
    throw new GatewayError('invalid-request', 'Titan Text Embeddings take exactly one text per call', {
      param: 'input',
    });
  const v2 = modelId.includes('titan-embed-text-v2');
  if (call.dimensions !== undefined && !v2)
    throw new GatewayError('invalid-request', `dimensions: ${modelId} has one fixed vector length`, {
      param: 'dimensions',
    });
  return {
    inputText: input.text,
    ...(call.dimensions === undefined ? {} : { dimensions: call.dimensions }),
    ...(v2 ? { normalize: true } : {}),
  };
}

/** Gemini task types as Cohere input types (https://docs.cohere.com/reference/embed, `input_type`). */
const COHERE_INPUT_TYPES: Readonly<Record<string, string>> = {
  RETRIEVAL_QUERY: 'search_query',
  QUESTION_ANSWERING: 'search_query',
  FACT_VERIFICATION: 'search_query',
  CODE_RETRIEVAL_QUERY: 'search_query',
  CLASSIFICATION: 'classification',
  CLUSTERING: 'clustering',
};

/**
 * The Cohere Embed body: `{texts, input_type, embedding_types: ["float"]}`, plus
 * `output_dimension` on Embed v4 (`modelId` containing `embed-v4`).
 * @throws GatewayError('invalid-request') for `dimensions` on a v3 model (one fixed length)
 */
export function cohereEmbeddingBody(call: EmbeddingCall, modelId: string): Record<string, unknown> {
  const texts = textsOf(call.inputs);
  const taskType = texts[0]?.taskType;
  const v4 = modelId.includes('embed-v4');
  if (call.dimensions !== undefined && !v4)
    throw new GatewayError('invalid-request', `dimensions: ${modelId} has one fixed vector length`, {
      param: 'dimensions',
    });
  return {
    texts: texts.map((input) => input.text),
    input_type: (taskType === undefined ? undefined : COHERE_INPUT_TYPES[taskType]) ?? 'search_document',
    embedding_types: ['float'],
    ...(call.dimensions === undefined ? {} : { output_dimension: call.dimensions }),
  };
}

/** A list of number vectors, or undefined when `value` is not one. */
function vectorList(value: unknown): number[][] | undefined {
  if (!Array.isArray(value)) return undefined;
  const ok = value.every((v) => Array.isArray(v) && v.every((n) => typeof n === 'number' && Number.isFinite(n)));
  return ok ? (value as number[][]) : undefined;
}

/** A header's first value as a whole non-negative number of tokens, or undefined. */
function headerTokens(headers: UpstreamHeaders | undefined, name: string): number | undefined {
  const raw = headers?.[name];
  const value = Number(Array.isArray(raw) ? raw[0] : raw);
  return raw !== undefined && Number.isFinite(value) && value >= 0 ? Math.floor(value) : undefined;
}

/**
 * Decodes a Titan answer `{embedding, inputTextTokenCount}`.
 * @throws GatewayError('upstream-malformed') without a vector of numbers
 */
export function decodeTitanEmbeddingAnswer(body: unknown): EmbeddingCallAnswer {
  const root = asRecord(body);
  const vectors = vectorList([root?.embedding]);
  if (!vectors) throw new GatewayError('upstream-malformed', 'Bedrock Titan answered without an `embedding`');
  const tokens = asNumber(root?.inputTextTokenCount);
  return { vectors, inputTokens: tokens === undefined ? undefined : Math.max(0, Math.floor(tokens)) };
}

/**
 * Decodes a Cohere answer: `embeddings` as `{float: [[…]]}` (embeddings_by_type) or `[[…]]`
 * (embeddings_floats); the input tokens from `x-amzn-bedrock-input-token-count`, else undefined.
 * @throws GatewayError('upstream-malformed') without `inputCount` vectors of numbers
 */
export function decodeCohereEmbeddingAnswer(
  body: unknown,
  inputCount: number,
  headers?: UpstreamHeaders,
): EmbeddingCallAnswer {
  const embeddings = asRecord(body)?.embeddings;
  const vectors = vectorList(asRecord(embeddings)?.float ?? embeddings);
  if (!vectors || vectors.length !== inputCount)
    throw new GatewayError(
      'upstream-malformed',
      `Bedrock Cohere answered ${asArray(vectors).length} embeddings for ${inputCount} inputs`,
    );
  return { vectors, inputTokens: headerTokens(headers, 'x-amzn-bedrock-input-token-count') };
}

/** The family of `modelId`, or the 400 naming `model` for a model Bedrock embeds with another body. */
function familyOrRefuse(modelId: string): BedrockEmbeddingFamily {
  const family = bedrockEmbeddingFamily(modelId);
  if (!family)
    throw new GatewayError(
      'invalid-request',
      `The Bedrock model '${modelId}' is not a Titan Text Embeddings or Cohere Embed model`,
      { param: 'model' },
    );
  return family;
}

/** `POST {baseUrl}/model/{modelId}/invoke` with the family's body, JSON, no credential header. */
export function buildBedrockEmbeddingCall(call: EmbeddingCall, target: UpstreamTarget): BuiltEmbeddingCall {
  const modelId = target.upstreamModel;
  const family = familyOrRefuse(modelId);
  const body = family === 'titan' ? titanEmbeddingBody(call, modelId) : cohereEmbeddingBody(call, modelId);
  const dropped = call.user === undefined ? [] : ['user: Bedrock embedding models have no end-user field'];
  return {
    request: {
      url: `${target.baseUrl}/model/${bedrockModelPathSegment(modelId)}/invoke`,
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    },
    dropped,
  };
}

/**
 * The `bedrock` embedding style. It decodes by the answer's shape (Titan's `embedding`, Cohere's
 * `embeddings`), the model id not being at hand; errors (`{message}` with `x-amzn-errortype`) by the
 * shared status table.
 */
export const bedrockEmbeddingsAdapter: EmbeddingAdapter = {
  style: 'bedrock',
  buildCall: buildBedrockEmbeddingCall,
  decodeAnswer: (body, inputCount, headers) =>
    asRecord(body)?.embedding !== undefined
      ? decodeTitanEmbeddingAnswer(body)
      : decodeCohereEmbeddingAnswer(body, inputCount, headers),
  classifyError: (status, body, headers) => {
    const { message } = upstreamErrorMessage(body);
    const type = headers['x-amzn-errortype'];
    return classifyUpstreamHttpError(
      status,
      message,
      headers,
      typeof type === 'string' ? type.split(':')[0] : undefined,
    );
  },
};
