/**
 * The embedding client codecs (OpenAI `/v1/embeddings`, Gemini `:embedContent` /
 * `:batchEmbedContents`): every documented input shape decodes into the canonical request, bad
 * input is refused naming its field, answers encode as the APIs document them (OpenAI base64 is
 * little-endian float32, https://platform.openai.com/docs/api-reference/embeddings/create).
 */
import { describe, expect, it } from 'vitest';
import { base64ToVector, vectorToBase64 } from '../../../gateway/canonical/embedding.ts';
import {
  decodeOpenAiEmbeddingsRequest,
  encodeOpenAiEmbeddingsAnswer,
} from '../../../gateway/inbound/openai-embeddings/openai-embeddings-codec.ts';
import {
  decodeBatchEmbedContentsRequest,
  decodeEmbedContentRequest,
  geminiBatchEmbedContentsCodec,
  geminiEmbedContentCodec,
} from '../../../gateway/inbound/gemini-embeddings/gemini-embeddings-codec.ts';

describe('OpenAI embeddings codec', () => {
  it.each([
    ['a string', 'hi', [{ kind: 'text', text: 'hi' }]],
    [
      'strings',
      ['a', 'b'],
      [
        { kind: 'text', text: 'a' },
        { kind: 'text', text: 'b' },
      ],
    ],
    ['token ids', [1, 2], [{ kind: 'tokens', tokens: [1, 2] }]],
    [
      'token-id arrays',
      [[1], [2, 3]],
      [
        { kind: 'tokens', tokens: [1] },
        { kind: 'tokens', tokens: [2, 3] },
      ],
    ],
  ])('decodes %s', (_name, input, inputs) => {
    const decoded = decodeOpenAiEmbeddingsRequest({
      model: 'm',
      input,
      dimensions: 4,
      encoding_format: 'base64',
      user: 'u',
    });
    expect(decoded).toEqual({
      ok: true,
      value: { clientFormat: 'openai-chat', model: 'm', inputs, dimensions: 4, encoding: 'base64', user: 'u' },
    });
  });

  it('defaults to float and drops unknown fields with a warning', () => {
    const decoded = decodeOpenAiEmbeddingsRequest({ model: 'm', input: 'x', input_type: 'query' });
    expect(decoded).toMatchObject({
      ok: true,
      value: { encoding: 'float' },
      warnings: [expect.stringContaining('input_type')],
    });
  });

  it.each([
    [{ input: 'x' }, 'model'],
    [{ model: 'm' }, 'input'],
    [{ model: 'm', input: '' }, 'input'],
    [{ model: 'm', input: [] }, 'input'],
    [{ model: 'm', input: ['a', 3] }, 'input.1'],
    [{ model: 'm', input: [[1], []] }, 'input.1'],
    [{ model: 'm', input: [1.5] }, 'input.0'],
    [{ model: 'm', input: 'x', dimensions: 0 }, 'dimensions'],
    [{ model: 'm', input: 'x', encoding_format: 'int8' }, 'encoding_format'],
  ])('refuses %j naming %s', (body, param) => {
    expect(decodeOpenAiEmbeddingsRequest(body)).toMatchObject({ ok: false, param });
  });

  it('refuses a body that is not an object', () => {
    expect(decodeOpenAiEmbeddingsRequest([1])).toMatchObject({ ok: false });
  });

  it('encodes floats or base64 of little-endian float32, with usage', () => {
    const vectors = [
      [0.5, -1.25],
      [3, 0],
    ];
    const request = { clientFormat: 'openai-chat', model: 'm', inputs: [], encoding: 'base64' } as const;
    const answer = encodeOpenAiEmbeddingsAnswer(
      { vectors, inputTokens: 7, usageSource: 'reported' },
      { model: 'm', request },
    );
    expect(answer).toEqual({
      object: 'list',
      data: [
        { object: 'embedding', index: 0, embedding: 'AAAAPwAAoL8=' },
        { object: 'embedding', index: 1, embedding: vectorToBase64([3, 0]) },
      ],
      model: 'm',
      usage: { prompt_tokens: 7, total_tokens: 7 },
    });
    expect(base64ToVector('AAAAPwAAoL8=')).toEqual([0.5, -1.25]);
    expect(() => base64ToVector('AAA=')).toThrow();
  });
});

describe('Gemini embeddings codecs', () => {
  it('decodes embedContent with taskType, title and outputDimensionality', () => {
    const decoded = decodeEmbedContentRequest(
      {
        content: { parts: [{ text: 'a' }, { text: 'b' }] },
        taskType: 'RETRIEVAL_DOCUMENT',
        title: 'T',
        outputDimensionality: 8,
      },
      { model: 'm' },
    );
    expect(decoded).toEqual({
      ok: true,
      value: {
        clientFormat: 'gemini',
        model: 'm',
        inputs: [{ kind: 'text', text: 'a\nb', taskType: 'RETRIEVAL_DOCUMENT', title: 'T' }],
        encoding: 'float',
        dimensions: 8,
      },
    });
  });

  it('decodes batchEmbedContents, each request naming the model of the path', () => {
    const decoded = decodeBatchEmbedContentsRequest(
      {
        requests: [{ model: 'models/m', content: { parts: [{ text: 'a' }] } }, { content: { parts: [{ text: 'b' }] } }],
      },
      { model: 'm' },
    );
    expect(decoded).toMatchObject({ ok: true, value: { inputs: [{ text: 'a' }, { text: 'b' }] } });
  });

  it.each([
    [{ requests: [] }, 'requests'],
    [{ requests: [{ model: 'models/other', content: { parts: [{ text: 'a' }] } }] }, 'requests.0.model'],
    [{ requests: [{ content: { parts: [{ inlineData: {} }] } }] }, 'requests.0.content.parts.0'],
    [{ requests: [{ content: { parts: [{ text: '' }] } }] }, 'requests.0.content'],
    [{ requests: [{ content: { parts: [{ text: 'a' }] }, taskType: 'NOPE' }] }, 'requests.0.taskType'],
    [
      {
        requests: [
          { content: { parts: [{ text: 'a' }] }, outputDimensionality: 4 },
          { content: { parts: [{ text: 'b' }] }, outputDimensionality: 8 },
        ],
      },
      'requests.1.outputDimensionality',
    ],
  ])('refuses %j naming %s', (body, param) => {
    expect(decodeBatchEmbedContentsRequest(body, { model: 'm' })).toMatchObject({ ok: false, param });
  });

  it('encodes embedContent and batchEmbedContents answers', () => {
    const request = { clientFormat: 'gemini', model: 'm', inputs: [], encoding: 'float' } as const;
    const answer = {
      vectors: [
        [1, 2],
        [3, 4],
      ],
      inputTokens: 2,
      usageSource: 'estimated',
    } as const;
    expect(geminiEmbedContentCodec.encodeAnswer(answer, { model: 'm', request })).toEqual({
      embedding: { values: [1, 2] },
    });
    expect(geminiBatchEmbedContentsCodec.encodeAnswer(answer, { model: 'm', request })).toEqual({
      embeddings: [{ values: [1, 2] }, { values: [3, 4] }],
    });
  });
});
