/**
 * The fake embeddings upstream (test/support/embedding-upstream.ts) checked by the official SDKs
 * pointed straight at it: the `openai` SDK's embeddings.create (single, batch, token ids,
 * dimensions, its default base64 and explicit float) and @google/genai's models.embedContent
 * (one and several contents, outputDimensionality, taskType), and the refusals the real APIs
 * answer (unknown fields, too many inputs, an unsupported length, a wrong key) surfacing as the
 * SDKs' own errors.
 */
import { GoogleGenAI } from '@google/genai';
import OpenAI, { AzureOpenAI } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedVector, startEmbeddingUpstream, type EmbeddingUpstream } from '../../support/embedding-upstream.ts';

const KEY = 'upstream-key-1';
let fake: EmbeddingUpstream;
let openai: OpenAI;
let genai: GoogleGenAI;

beforeAll(async () => {
  fake = await startEmbeddingUpstream({ apiKey: KEY, maxOpenAiInputs: 5 });
  openai = new OpenAI({ apiKey: KEY, baseURL: `${fake.origin}/v1`, maxRetries: 0 });
  genai = new GoogleGenAI({ apiKey: KEY, httpOptions: { baseUrl: fake.origin } });
});

afterAll(async () => {
  await fake?.close();
});

describe('the fake OpenAI embeddings API, through the openai SDK', () => {
  it('answers a single string with its default base64, decoded by the SDK into the fake vector', async () => {
    const answer = await openai.embeddings.create({ model: 'embed-small', input: 'hello world' });
    expect(fake.calls.at(-1)?.body.encoding_format).toBe('base64');
    expect(Array.from(answer.data[0]!.embedding)).toEqual(expectedVector('hello world', 8));
    expect(answer.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 });
  });

  it('answers a batch as floats with dimensions, and token ids', async () => {
    const answer = await openai.embeddings.create({
      model: 'embed-large',
      input: ['a b', 'c'],
      dimensions: 4,
      encoding_format: 'float',
    });
    expect(answer.data.map((d) => d.embedding)).toEqual([expectedVector('a b', 4), expectedVector('c', 4)]);
    const tokens = await openai.embeddings.create({ model: 'embed-small', input: [1, 2, 3], encoding_format: 'float' });
    expect(tokens.data[0]!.embedding).toEqual(expectedVector('[1,2,3]', 8));
    expect(tokens.usage.prompt_tokens).toBe(3);
  });

  it('refuses an unknown field, too many inputs, an unsupported length and a wrong key', async () => {
    await expect(
      openai.embeddings.create(
        { model: 'embed-small', input: 'x', encoding_format: 'float' },
        {
          body: { model: 'embed-small', input: 'x', taskType: 'RETRIEVAL_QUERY' },
        },
      ),
    ).rejects.toMatchObject({ status: 400, message: expect.stringContaining('Unrecognized request argument') });
    await expect(
      openai.embeddings.create({ model: 'embed-small', input: ['1', '2', '3', '4', '5', '6'] }),
    ).rejects.toMatchObject({ status: 400 });
    await expect(openai.embeddings.create({ model: 'embed-small', input: 'x', dimensions: 16 })).rejects.toMatchObject({
      status: 400,
      param: 'dimensions',
    });
    const stranger = new OpenAI({ apiKey: 'wrong', baseURL: `${fake.origin}/v1`, maxRetries: 0 });
    await expect(stranger.embeddings.create({ model: 'embed-small', input: 'x' })).rejects.toMatchObject({
      status: 401,
    });
  });
});

describe('the fake Azure OpenAI embeddings paths, through the openai SDK', () => {
  it('answers a deployment with api-version and the v1 surface, the key in api-key', async () => {
    const azure = new AzureOpenAI({
      apiKey: KEY,
      endpoint: fake.origin,
      apiVersion: '2024-10-21',
      deployment: 'embed-small',
      maxRetries: 0,
    });
    const answer = await azure.embeddings.create({ model: 'ignored', input: 'hi there', encoding_format: 'float' });
    expect(fake.calls.at(-1)?.path).toBe('/openai/deployments/embed-small/embeddings');
    expect(fake.calls.at(-1)?.headers['api-key']).toBe(KEY);
    expect(answer.data[0]!.embedding).toEqual(expectedVector('hi there', 8));
    const v1 = new OpenAI({
      apiKey: 'unused',
      baseURL: `${fake.origin}/openai/v1`,
      defaultHeaders: { 'api-key': KEY },
      maxRetries: 0,
    });
    expect(
      (await v1.embeddings.create({ model: 'embed-large', input: 'x', encoding_format: 'float' })).data,
    ).toHaveLength(1);
    const stranger = new AzureOpenAI({
      apiKey: 'wrong',
      endpoint: fake.origin,
      apiVersion: '2024-10-21',
      deployment: 'embed-small',
      maxRetries: 0,
    });
    await expect(stranger.embeddings.create({ model: 'x', input: 'x' })).rejects.toMatchObject({ status: 401 });
  });
});

describe('the fake Gemini embeddings API, through @google/genai', () => {
  it('answers embedContent with one and several contents (batchEmbedContents on the wire)', async () => {
    const one = await genai.models.embedContent({ model: 'embed-small', contents: 'hello world' });
    expect(fake.calls.at(-1)?.path).toBe('/v1beta/models/embed-small:batchEmbedContents');
    expect(one.embeddings?.[0]?.values).toEqual(expectedVector('hello world', 8));
    const several = await genai.models.embedContent({
      model: 'embed-large',
      contents: ['first', 'second'],
      config: { outputDimensionality: 4, taskType: 'RETRIEVAL_DOCUMENT', title: 'Doc' },
    });
    expect(several.embeddings?.map((e) => e.values)).toEqual([expectedVector('first', 4), expectedVector('second', 4)]);
    const sent = fake.calls.at(-1)?.body.requests as Array<Record<string, unknown>>;
    expect(sent[1]).toMatchObject({ model: 'models/embed-large', taskType: 'RETRIEVAL_DOCUMENT', title: 'Doc' });
  });

  it('refuses an unsupported length, more than 100 requests and a wrong key', async () => {
    await expect(
      genai.models.embedContent({ model: 'embed-small', contents: 'x', config: { outputDimensionality: 16 } }),
    ).rejects.toMatchObject({ status: 400 });
    const many = Array.from({ length: 101 }, (_, i) => `t${i}`);
    await expect(genai.models.embedContent({ model: 'embed-small', contents: many })).rejects.toThrow(
      /at most 100 requests/,
    );
    const stranger = new GoogleGenAI({ apiKey: 'wrong', httpOptions: { baseUrl: fake.origin } });
    await expect(stranger.models.embedContent({ model: 'embed-small', contents: 'x' })).rejects.toMatchObject({
      status: 400,
    });
  });
});
