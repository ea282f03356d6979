/**
 * The embedding upstream adapters and the batch planner: the OpenAI-style call
 * (https://platform.openai.com/docs/api-reference/embeddings/create) and Gemini's
 * batchEmbedContents (https://ai.google.dev/api/embeddings) built per provider preset, answers
 * decoded (reordered by index, base64 read, counts checked), error envelopes classified, and a
 * batch split to each provider's documented per-call limits.
 */
import { describe, expect, it } from 'vitest';
import { vectorToBase64 } from '../../../gateway/canonical/embedding.ts';
import { planEmbeddingCalls } from '../../../gateway/exchange/plan-embedding-calls.ts';
import { getProviderPreset } from '../../../gateway/providers/presets.ts';
import type { ProviderId } from '../../../gateway/providers/provider-preset.ts';
import { embeddingStyleFor } from '../../../gateway/upstream/embedding-adapter.ts';
import { geminiAdapter } from '../../../gateway/upstream/gemini/gemini-adapter.ts';
import {
  buildGeminiEmbeddingCall,
  createGeminiEmbeddingsAdapter,
  decodeGeminiEmbeddingAnswer,
} from '../../../gateway/upstream/gemini-embeddings/gemini-embeddings-adapter.ts';
import { buildOpenAiEmbeddingCall } from '../../../gateway/upstream/openai-embeddings/openai-embeddings-adapter.ts';
import { decodeOpenAiEmbeddingAnswer } from '../../../gateway/upstream/shared/openai-embedding-wire.ts';

const target = (provider: ProviderId, baseUrl = 'https://up.example/v1') => ({
  baseUrl,
  apiKey: 'secret',
  upstreamModel: 'embed-1',
  provider: getProviderPreset(provider),
});

describe('which providers serve embeddings', () => {
  it.each([
    ['openai', 'openai-chat', 'openai'],
    ['openai', 'openai-responses', 'openai'],
    ['gemini', 'gemini', 'gemini'],
    ['gemini', 'openai-chat', 'openai'],
    ['dashscope', 'openai-chat', 'openai'],
    ['dashscope', 'openai-responses', undefined],
    ['zhipu', 'openai-chat', 'openai'],
    ['mistral', 'openai-chat', 'openai'],
    ['openai-compatible', 'openai-chat', 'openai'],
    ['ollama', 'openai-chat', 'openai'],
    ['anthropic', 'anthropic-messages', undefined],
    ['deepseek', 'openai-chat', undefined],
    ['groq', 'openai-chat', undefined],
  ] as const)('%s over %s: %s', (provider, protocol, style) => {
    expect(embeddingStyleFor(getProviderPreset(provider), protocol)).toBe(style);
  });
});

describe('OpenAI-style embeddings adapter', () => {
  it('builds POST {base}/embeddings with float encoding, dimensions and user; drops taskType', () => {
    const built = buildOpenAiEmbeddingCall(
      {
        inputs: [
          { kind: 'text', text: 'a', taskType: 'RETRIEVAL_QUERY' },
          { kind: 'tokens', tokens: [1, 2] },
        ],
        dimensions: 4,
        user: 'u',
      },
      target('openai'),
    );
    expect(built.request.url).toBe('https://up.example/v1/embeddings');
    expect(built.request.headers.authorization).toBe('Bearer secret');
    expect(JSON.parse(built.request.body)).toEqual({
      model: 'embed-1',
      input: ['a', [1, 2]],
      encoding_format: 'float',
      dimensions: 4,
      user: 'u',
    });
    expect(built.dropped).toEqual([expect.stringContaining('requests.0: taskType and title')]);
  });

  it("sends Mistral's output_dimension", () => {
    const built = buildOpenAiEmbeddingCall({ inputs: [{ kind: 'text', text: 'a' }], dimensions: 8 }, target('mistral'));
    expect(JSON.parse(built.request.body)).toMatchObject({ output_dimension: 8 });
    expect(JSON.parse(built.request.body)).not.toHaveProperty('dimensions');
  });

  it('decodes data by index, base64 included, and the reported tokens', () => {
    const answer = decodeOpenAiEmbeddingAnswer(
      {
        data: [
          { index: 1, embedding: vectorToBase64([0.5]) },
          { index: 0, embedding: [1, 2] },
        ],
        usage: { prompt_tokens: 9 },
      },
      2,
    );
    expect(answer).toEqual({ vectors: [[1, 2], [0.5]], inputTokens: 9 });
    expect(decodeOpenAiEmbeddingAnswer({ data: [{ embedding: [1] }] }, 1).inputTokens).toBeUndefined();
  });

  it.each([
    [{}, 'upstream-malformed'],
    [{ data: [{ index: 0, embedding: [1] }] }, 'upstream-malformed'],
    [
      {
        data: [
          { index: 0, embedding: ['x'] },
          { index: 1, embedding: [1] },
        ],
      },
      'upstream-malformed',
    ],
    [
      {
        data: [
          { index: 0, embedding: [1] },
          { index: 0, embedding: [1] },
        ],
      },
      'upstream-malformed',
    ],
    [{ error: { message: 'overloaded', code: 503 } }, 'upstream-unavailable'],
  ])('refuses %j as %s', (body, kind) => {
    expect(() => decodeOpenAiEmbeddingAnswer(body, 2)).toThrow(expect.objectContaining({ kind }));
  });
});

describe('Gemini embeddings adapter', () => {
  it('builds batchEmbedContents with each request naming the model, taskType, title and length', () => {
    const built = buildGeminiEmbeddingCall(
      { inputs: [{ kind: 'text', text: 'a', taskType: 'RETRIEVAL_DOCUMENT', title: 'T' }], dimensions: 4, user: 'u' },
      target('gemini', 'https://generativelanguage.example'),
    );
    expect(built.request.url).toBe('https://generativelanguage.example/v1beta/models/embed-1:batchEmbedContents');
    expect(built.request.headers['x-goog-api-key']).toBe('secret');
    expect(JSON.parse(built.request.body)).toEqual({
      requests: [
        {
          model: 'models/embed-1',
          content: { parts: [{ text: 'a' }] },
          taskType: 'RETRIEVAL_DOCUMENT',
          title: 'T',
          outputDimensionality: 4,
        },
      ],
    });
    expect(built.dropped).toEqual([expect.stringContaining('user')]);
  });

  it('refuses token ids naming input', () => {
    expect(() => buildGeminiEmbeddingCall({ inputs: [{ kind: 'tokens', tokens: [1] }] }, target('gemini'))).toThrow(
      expect.objectContaining({ kind: 'invalid-request', param: 'input' }),
    );
  });

  it('decodes embeddings and reports no usage; refuses a short answer', () => {
    expect(decodeGeminiEmbeddingAnswer({ embeddings: [{ values: [1] }] }, 1)).toEqual({
      vectors: [[1]],
      inputTokens: undefined,
    });
    expect(() => decodeGeminiEmbeddingAnswer({ embeddings: [] }, 1)).toThrow(
      expect.objectContaining({ kind: 'upstream-malformed' }),
    );
  });

  it("classifies errors with the Gemini generation adapter's classifier", () => {
    const adapter = createGeminiEmbeddingsAdapter(geminiAdapter);
    const error = adapter.classifyError(
      429,
      JSON.stringify({ error: { code: 429, message: 'slow down', status: 'RESOURCE_EXHAUSTED' } }),
      {},
    );
    expect(error).toMatchObject({ kind: 'upstream-rate-limited', allowFailover: true });
  });
});

describe('planEmbeddingCalls', () => {
  it('splits by the most inputs per call, in order', () => {
    expect(planEmbeddingCalls([1, 1, 1, 1, 1], { maxInputsPerCall: 2 })).toEqual([
      { start: 0, end: 2 },
      { start: 2, end: 4 },
      { start: 4, end: 5 },
    ]);
  });

  it('splits by the most tokens per call; an input over it alone gets its own call', () => {
    expect(planEmbeddingCalls([4, 4, 10, 1], { maxInputTokensPerCall: 8 })).toEqual([
      { start: 0, end: 2 },
      { start: 2, end: 3 },
      { start: 3, end: 4 },
    ]);
  });

  it('makes one call without limits', () => {
    expect(planEmbeddingCalls([1, 2, 3], undefined)).toEqual([{ start: 0, end: 3 }]);
  });
});
