/**
 * The cloud embedding bodies as their references document them: Bedrock InvokeModel with Titan
 * Text Embeddings `{inputText, dimensions, normalize}` → `{embedding, inputTextTokenCount}`
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-titan-embed-text.html)
 * and Cohere Embed `{texts, input_type, embedding_types}` → `{embeddings: {float}}`
 * (https://docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-embed.html), and Vertex AI
 * `:predict` `{instances, parameters}` → `{predictions: [{embeddings}]}`
 * (https://cloud.google.com/vertex-ai/generative-ai/docs/model-reference/text-embeddings-api);
 * Bedrock batches split per model family (Titan one text a call, Cohere 96).
 */
import { describe, expect, it } from 'vitest';
import { planEmbeddingCalls } from '../../../gateway/exchange/plan-embedding-calls.ts';
import { getProviderPreset } from '../../../gateway/providers/presets.ts';
import {
  bedrockEmbeddingsAdapter,
  buildBedrockEmbeddingCall,
  cohereEmbeddingBody,
  titanEmbeddingBody,
} from '../../../gateway/upstream/bedrock-embeddings/bedrock-embeddings-adapter.ts';
import { azureEmbeddingsUrl } from '../../../gateway/upstream/azure-embeddings/azure-embeddings-adapter.ts';
import { embeddingStyleFor } from '../../../gateway/upstream/embedding-adapter.ts';
import {
  buildVertexEmbeddingCall,
  decodeVertexPredictAnswer,
  vertexPredictBody,
} from '../../../gateway/upstream/vertex-embeddings/vertex-embeddings-adapter.ts';

const text = (value: string, taskType?: string) =>
  ({ kind: 'text', text: value, ...(taskType === undefined ? {} : { taskType }) }) as const;

describe('Bedrock embeddings', () => {
  const bedrock = getProviderPreset('bedrock');
  const target = (upstreamModel: string) => ({
    baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com',
    apiKey: 'unused',
    upstreamModel,
    provider: bedrock,
  });

  it('serves the bedrock style on Converse channels', () => {
    expect(embeddingStyleFor(bedrock, 'bedrock-converse')).toBe('bedrock');
  });

  it('builds Titan v2 InvokeModel with dimensions and normalize, no credential header', () => {
    const built = buildBedrockEmbeddingCall(
      { inputs: [text('hello')], dimensions: 256 },
      target('amazon.titan-embed-text-v2:0'),
    );
    expect(built.request.url).toBe(
      'https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.titan-embed-text-v2%3A0/invoke',
    );
    expect(built.request.headers).toEqual({ 'content-type': 'application/json', accept: 'application/json' });
    expect(JSON.parse(built.request.body)).toEqual({ inputText: 'hello', dimensions: 256, normalize: true });
  });

  it('refuses what Titan cannot take: two texts, dimensions on v1, token ids', () => {
    expect(() => titanEmbeddingBody({ inputs: [text('a'), text('b')] }, 'amazon.titan-embed-text-v2:0')).toThrow(
      expect.objectContaining({ param: 'input' }),
    );
    expect(() => titanEmbeddingBody({ inputs: [text('a')], dimensions: 8 }, 'amazon.titan-embed-text-v1')).toThrow(
      expect.objectContaining({ param: 'dimensions' }),
    );
    expect(() =>
      titanEmbeddingBody({ inputs: [{ kind: 'tokens', tokens: [1] }] }, 'amazon.titan-embed-text-v2:0'),
    ).toThrow(expect.objectContaining({ param: 'input' }));
    expect(titanEmbeddingBody({ inputs: [text('a')] }, 'amazon.titan-embed-text-v1')).toEqual({ inputText: 'a' });
  });

  it('builds Cohere bodies with input_type from the task type and output_dimension on v4', () => {
    expect(
      cohereEmbeddingBody({ inputs: [text('q', 'RETRIEVAL_QUERY'), text('r')] }, 'cohere.embed-english-v3'),
    ).toEqual({
      texts: ['q', 'r'],
      input_type: 'search_query',
      embedding_types: ['float'],
    });
    expect(cohereEmbeddingBody({ inputs: [text('d')], dimensions: 512 }, 'us.cohere.embed-v4:0')).toEqual({
      texts: ['d'],
      input_type: 'search_document',
      embedding_types: ['float'],
      output_dimension: 512,
    });
    expect(() => cohereEmbeddingBody({ inputs: [text('d')], dimensions: 512 }, 'cohere.embed-english-v3')).toThrow(
      expect.objectContaining({ param: 'dimensions' }),
    );
  });

  it('refuses a model of another family naming model', () => {
    expect(() => buildBedrockEmbeddingCall({ inputs: [text('a')] }, target('anthropic.claude-3'))).toThrow(
      expect.objectContaining({ param: 'model' }),
    );
  });

  it('decodes Titan and Cohere answers, the Cohere tokens from the response header', () => {
    expect(bedrockEmbeddingsAdapter.decodeAnswer({ embedding: [0.1, 0.2], inputTextTokenCount: 3 }, 1)).toEqual({
      vectors: [[0.1, 0.2]],
      inputTokens: 3,
    });
    expect(
      bedrockEmbeddingsAdapter.decodeAnswer(
        { id: 'x', response_type: 'embeddings_by_type', texts: ['a', 'b'], embeddings: { float: [[1], [2]] } },
        2,
        { 'x-amzn-bedrock-input-token-count': '7' },
      ),
    ).toEqual({ vectors: [[1], [2]], inputTokens: 7 });
    expect(bedrockEmbeddingsAdapter.decodeAnswer({ embeddings: [[1]] }, 1)).toEqual({
      vectors: [[1]],
      inputTokens: undefined,
    });
    expect(() => bedrockEmbeddingsAdapter.decodeAnswer({ embeddings: { float: [[1]] } }, 2)).toThrow(
      expect.objectContaining({ kind: 'upstream-malformed' }),
    );
  });

  it('classifies a throttling error as the upstream rate limit', () => {
    const error = bedrockEmbeddingsAdapter.classifyError(429, JSON.stringify({ message: 'Too many requests' }), {
      'x-amzn-errortype': 'ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/',
    });
    expect(error).toMatchObject({ kind: 'upstream-rate-limited', code: 'ThrottlingException' });
  });

  it('splits batches per family: Titan one text a call, Cohere 96', () => {
    const support = bedrock.quirks.embeddings;
    expect(planEmbeddingCalls([1, 1, 1], support, 'amazon.titan-embed-text-v2:0')).toHaveLength(3);
    expect(planEmbeddingCalls(new Array<number>(100).fill(1), support, 'cohere.embed-english-v3')).toEqual([
      { start: 0, end: 96 },
      { start: 96, end: 100 },
    ]);
  });
});

describe('Azure OpenAI embeddings URLs', () => {
  const target = (apiVersion?: string) => ({
    baseUrl: 'https://res.openai.azure.com/openai/v1/',
    apiKey: 'unused',
    upstreamModel: 'my deployment',
    provider: getProviderPreset('azure'),
    ...(apiVersion === undefined ? {} : { cloud: { apiVersion } }),
  });

  it.each([
    [undefined, 'https://res.openai.azure.com/openai/v1/embeddings'],
    ['v1', 'https://res.openai.azure.com/openai/v1/embeddings'],
    ['preview', 'https://res.openai.azure.com/openai/v1/embeddings?api-version=preview'],
    ['2024-10-21', 'https://res.openai.azure.com/openai/deployments/my%20deployment/embeddings?api-version=2024-10-21'],
  ])('apiVersion %s → %s', (apiVersion, url) => {
    expect(azureEmbeddingsUrl(target(apiVersion))).toBe(url);
  });
});

describe('Vertex AI :predict bodies', () => {
  it('writes one instance per text with task_type and title, and outputDimensionality', () => {
    expect(
      vertexPredictBody({
        inputs: [{ kind: 'text', text: 'doc', taskType: 'RETRIEVAL_DOCUMENT', title: 'T' }, text('q')],
        dimensions: 256,
      }),
    ).toEqual({
      instances: [{ content: 'doc', task_type: 'RETRIEVAL_DOCUMENT', title: 'T' }, { content: 'q' }],
      parameters: { outputDimensionality: 256 },
    });
    expect(vertexPredictBody({ inputs: [text('q')] })).toEqual({ instances: [{ content: 'q' }] });
    expect(() => vertexPredictBody({ inputs: [{ kind: 'tokens', tokens: [1] }] })).toThrow(
      expect.objectContaining({ param: 'input' }),
    );
  });

  it('posts to the channel project and location, the gemini protocol of a Vertex channel serving it', () => {
    const vertex = getProviderPreset('vertex');
    expect(embeddingStyleFor(vertex, 'gemini')).toBe('vertex');
    const built = buildVertexEmbeddingCall(
      { inputs: [text('q')] },
      {
        baseUrl: 'https://us-central1-aiplatform.googleapis.com',
        apiKey: 'unused',
        upstreamModel: 'text-embedding-005',
        provider: vertex,
        cloud: { project: 'my-project', region: 'us-central1' },
      },
    );
    expect(built.request.url).toBe(
      'https://us-central1-aiplatform.googleapis.com/v1/projects/my-project/locations/us-central1/publishers/google/models/text-embedding-005:predict',
    );
    expect(built.request.headers).toEqual({ 'content-type': 'application/json' });
    expect(planEmbeddingCalls([1, 1], vertex.quirks.embeddings, 'gemini-embedding-001')).toHaveLength(2);
    expect(
      planEmbeddingCalls(new Array<number>(300).fill(1), vertex.quirks.embeddings, 'text-embedding-005'),
    ).toHaveLength(2);
  });

  it('decodes predictions with their summed token counts', () => {
    const body = {
      predictions: [
        { embeddings: { statistics: { truncated: false, token_count: 4 }, values: [1, 2] } },
        { embeddings: { statistics: { truncated: false, token_count: 6 }, values: [3, 4] } },
      ],
    };
    expect(decodeVertexPredictAnswer(body, 2)).toEqual({
      vectors: [
        [1, 2],
        [3, 4],
      ],
      inputTokens: 10,
    });
    expect(
      decodeVertexPredictAnswer({ predictions: [{ embeddings: { values: [1] } }] }, 1).inputTokens,
    ).toBeUndefined();
    expect(() => decodeVertexPredictAnswer(body, 3)).toThrow(expect.objectContaining({ kind: 'upstream-malformed' }));
  });
});
