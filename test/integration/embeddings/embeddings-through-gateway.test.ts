/**
 * Embeddings through the gateway with the official SDKs as clients and the fake embeddings
 * upstream (test/support/embedding-upstream.ts) behind channels of several providers: the
 * `openai` SDK's embeddings.create (single, a batch larger than a provider's per-call limit,
 * dimensions, its default base64 and explicit float, token ids) and @google/genai's
 * models.embedContent (one and several contents, outputDimensionality), each against an
 * OpenAI-style channel and a Gemini channel; the limits (a key's TPM counts the input tokens),
 * failover from a failing channel, refusals in the client's shape, and the outcome each request
 * records (operation `embedding`, the input tokens).
 */
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  expectedVector,
  fakeTokenCount,
  startEmbeddingUpstream,
  type EmbeddingUpstream,
} from '../../support/embedding-upstream.ts';
import { countEmbeddingInputTokens } from '../../../gateway/exchange/plan-embedding-calls.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../../support/start-gateway.ts';

const UPSTREAM_KEY = 'upstream-key-embeddings';
const ADMIN = 'embeddings-admin-token-00000000';
let openaiFake: EmbeddingUpstream;
let dashscopeFake: EmbeddingUpstream;
let mistralFake: EmbeddingUpstream;
let geminiFake: EmbeddingUpstream;
let brokenFake: EmbeddingUpstream;
let gateway: TestGateway;
let openai: OpenAI;
let genai: GoogleGenAI;

beforeAll(async () => {
  openaiFake = await startEmbeddingUpstream({ apiKey: UPSTREAM_KEY });
  dashscopeFake = await startEmbeddingUpstream({ apiKey: UPSTREAM_KEY, maxOpenAiInputs: 10, acceptsTokenIds: false });
  mistralFake = await startEmbeddingUpstream({ apiKey: UPSTREAM_KEY, dimensionsField: 'output_dimension' });
  geminiFake = await startEmbeddingUpstream({ apiKey: UPSTREAM_KEY });
  brokenFake = await startEmbeddingUpstream({ apiKey: UPSTREAM_KEY, failStatus: 503 });
  const channel = (id: string, provider: string, baseUrl: string, modelMap: Record<string, string>, extra = {}) => ({
    id,
    provider,
    baseUrl,
    apiKey: UPSTREAM_KEY,
    modelMap,
    ...extra,
  });
  gateway = await startTestGateway(
    {
      channels: [
        channel(
          'openai',
          'openai',
          `${openaiFake.origin}/v1`,
          { 'oa-small': 'embed-small', 'oa-large': 'embed-large' },
          {
            protocol: 'openai-chat',
          },
        ),
        channel('dashscope', 'dashscope', `${dashscopeFake.origin}/compatible-mode/v1`, { 'ds-large': 'embed-large' }),
        channel('mistral', 'mistral', `${mistralFake.origin}/v1`, { 'mi-large': 'embed-large' }),
        channel(
          'gemini',
          'gemini',
          geminiFake.origin,
          { 'gm-small': 'embed-small', 'gm-large': 'embed-large' },
          {
            protocol: 'gemini',
          },
        ),
        channel(
          'broken',
          'openai',
          `${brokenFake.origin}/v1`,
          { 'fo-small': 'embed-small' },
          {
            protocol: 'openai-chat',
            priority: 1,
          },
        ),
        channel(
          'healthy',
          'openai',
          `${openaiFake.origin}/v1`,
          { 'fo-small': 'embed-small' },
          {
            protocol: 'openai-chat',
          },
        ),
        channel(
          'azure-dated',
          'azure',
          openaiFake.origin,
          { 'az-dated': 'embed-small' },
          {
            cloud: { apiVersion: '2024-10-21' },
          },
        ),
        channel('azure-v1', 'azure', `${openaiFake.origin}/openai/v1`, { 'az-v1': 'embed-large' }),
        channel('chat-only', 'anthropic', `${openaiFake.origin}`, { 'claude-only': 'claude' }),
      ],
    },
    {},
    { TOLLGATE_ADMIN_TOKEN: ADMIN },
  );
  openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
  genai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gateway.origin } });
});

afterAll(async () => {
  await gateway?.close();
  for (const fake of [openaiFake, dashscopeFake, mistralFake, geminiFake, brokenFake]) await fake?.close();
});

describe('the openai SDK through an OpenAI-style channel', () => {
  it('embeds a single string with the default base64 and records an embedding outcome', async () => {
    const before = gateway.outcomes.length;
    const answer = await openai.embeddings.create({ model: 'oa-small', input: 'hello brave new world' });
    expect(Array.from(answer.data[0]!.embedding)).toEqual(expectedVector('hello brave new world', 8));
    expect(answer.model).toBe('oa-small');
    expect(answer.usage).toEqual({ prompt_tokens: 4, total_tokens: 4 });
    expect(openaiFake.calls.at(-1)?.body).toEqual({
      model: 'embed-small',
      input: ['hello brave new world'],
      encoding_format: 'float',
    });
    await waitFor(() => gateway.outcomes.length > before);
    const outcome = gateway.outcomes.at(-1)!;
    expect(outcome).toMatchObject({
      operation: 'embedding',
      clientFormat: 'openai-chat',
      status: 'completed',
      httpStatus: 200,
      channelId: 'openai',
      upstreamModel: 'embed-small',
      usage: { input: { total: 4 }, output: { total: 0 }, source: 'reported' },
    });
  });

  it('embeds a batch as floats with dimensions, and token ids', async () => {
    const answer = await openai.embeddings.create({
      model: 'oa-large',
      input: ['one', 'two three'],
      dimensions: 4,
      encoding_format: 'float',
    });
    expect(answer.data.map((d) => d.embedding)).toEqual([expectedVector('one', 4), expectedVector('two three', 4)]);
    const tokens = await openai.embeddings.create({
      model: 'oa-small',
      input: [[5, 6], [7]],
      encoding_format: 'float',
    });
    expect(tokens.data.map((d) => d.embedding)).toEqual([expectedVector('[5,6]', 8), expectedVector('[7]', 8)]);
  });

  it('splits a batch over the provider per-call limit (DashScope: 10) and joins it in order, usage summed', async () => {
    const texts = Array.from({ length: 25 }, (_, i) => `text number ${i}`);
    const calls = dashscopeFake.calls.length;
    const answer = await openai.embeddings.create({ model: 'ds-large', input: texts, dimensions: 8 });
    expect(dashscopeFake.calls.slice(calls).map((c) => (c.body.input as string[]).length)).toEqual([10, 10, 5]);
    expect(dashscopeFake.calls.at(-1)?.path).toBe('/compatible-mode/v1/embeddings');
    expect(answer.data.map((d) => Array.from(d.embedding))).toEqual(texts.map((t) => expectedVector(t, 8)));
    expect(answer.data.map((d) => d.index)).toEqual(texts.map((_, i) => i));
    expect(answer.usage.prompt_tokens).toBe(texts.reduce((sum, t) => sum + fakeTokenCount(t), 0));
  });

  it('sends the vector length in Mistral output_dimension', async () => {
    const answer = await openai.embeddings.create({ model: 'mi-large', input: 'code', dimensions: 8 });
    expect(mistralFake.calls.at(-1)?.body).toMatchObject({ output_dimension: 8 });
    expect(Array.from(answer.data[0]!.embedding)).toEqual(expectedVector('code', 8));
  });

  it('refuses token ids to a provider that takes only text, naming input', async () => {
    await expect(openai.embeddings.create({ model: 'ds-large', input: [1, 2, 3] })).rejects.toMatchObject({
      status: 400,
      param: 'input',
    });
  });
});

describe('the openai SDK through Azure OpenAI channels (the resource key added by the credentials step)', () => {
  it('embeds through a deployment with api-version and through the v1 surface', async () => {
    const dated = await openai.embeddings.create({ model: 'az-dated', input: ['x y'], encoding_format: 'float' });
    expect(openaiFake.calls.at(-1)?.path).toBe('/openai/deployments/embed-small/embeddings');
    expect(openaiFake.calls.at(-1)?.headers['api-key']).toBe(UPSTREAM_KEY);
    expect(openaiFake.calls.at(-1)?.headers.authorization).toBeUndefined();
    expect(dated.data[0]!.embedding).toEqual(expectedVector('x y', 8));
    const v1 = await openai.embeddings.create({ model: 'az-v1', input: 'z', dimensions: 4 });
    expect(openaiFake.calls.at(-1)?.path).toBe('/openai/v1/embeddings');
    expect(openaiFake.calls.at(-1)?.body).toMatchObject({ model: 'embed-large', dimensions: 4 });
    expect(Array.from(v1.data[0]!.embedding)).toEqual(expectedVector('z', 4));
  });
});

describe('the openai SDK through a Gemini channel (translated)', () => {
  it('embeds a batch with dimensions, base64 by default, input tokens counted by the gateway', async () => {
    const before = gateway.outcomes.length;
    const answer = await openai.embeddings.create({ model: 'gm-large', input: ['alpha beta', 'gamma'], dimensions: 4 });
    expect(geminiFake.calls.at(-1)?.path).toBe('/v1beta/models/embed-large:batchEmbedContents');
    expect(geminiFake.calls.at(-1)?.body).toEqual({
      requests: [
        { model: 'models/embed-large', content: { parts: [{ text: 'alpha beta' }] }, outputDimensionality: 4 },
        { model: 'models/embed-large', content: { parts: [{ text: 'gamma' }] }, outputDimensionality: 4 },
      ],
    });
    expect(answer.data.map((d) => Array.from(d.embedding))).toEqual([
      expectedVector('alpha beta', 4),
      expectedVector('gamma', 4),
    ]);
    const counted = countEmbeddingInputTokens([
      { kind: 'text', text: 'alpha beta' },
      { kind: 'text', text: 'gamma' },
    ]).reduce((a, b) => a + b, 0);
    expect(answer.usage.prompt_tokens).toBe(counted);
    await waitFor(() => gateway.outcomes.length > before);
    expect(gateway.outcomes.at(-1)).toMatchObject({ usage: { input: { total: counted }, source: 'estimated' } });
  });

  it('refuses token ids by name', async () => {
    await expect(openai.embeddings.create({ model: 'gm-small', input: [1, 2] })).rejects.toMatchObject({
      status: 400,
      param: 'input',
    });
  });
});

describe('@google/genai through the gateway', () => {
  it('embeds one and several contents on a Gemini channel, with outputDimensionality and taskType', async () => {
    const one = await genai.models.embedContent({ model: 'gm-small', contents: 'hello' });
    expect(one.embeddings?.[0]?.values).toEqual(expectedVector('hello', 8));
    const several = await genai.models.embedContent({
      model: 'gm-large',
      contents: ['first', 'second'],
      config: { outputDimensionality: 4, taskType: 'RETRIEVAL_DOCUMENT' },
    });
    expect(several.embeddings?.map((e) => e.values)).toEqual([expectedVector('first', 4), expectedVector('second', 4)]);
    expect((geminiFake.calls.at(-1)?.body.requests as Array<Record<string, unknown>>)[0]).toMatchObject({
      taskType: 'RETRIEVAL_DOCUMENT',
    });
    expect(gateway.outcomes.at(-1)).toMatchObject({ operation: 'embedding', clientFormat: 'gemini' });
  });

  it('embeds on an OpenAI-style channel (translated), dropping taskType', async () => {
    const several = await genai.models.embedContent({
      model: 'oa-large',
      contents: ['first', 'second'],
      config: { outputDimensionality: 4, taskType: 'RETRIEVAL_QUERY' },
    });
    expect(several.embeddings?.map((e) => e.values)).toEqual([expectedVector('first', 4), expectedVector('second', 4)]);
    expect(openaiFake.calls.at(-1)?.body).toEqual({
      model: 'embed-large',
      input: ['first', 'second'],
      dimensions: 4,
      encoding_format: 'float',
    });
  });

  it('serves :embedContent with one content', async () => {
    const response = await request(`${gateway.origin}/v1beta/models/oa-small:embedContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': TEST_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ content: { parts: [{ text: 'solo' }] } }),
    });
    expect(response.statusCode).toBe(200);
    expect(await response.body.json()).toEqual({ embedding: { values: expectedVector('solo', 8) } });
  });

  it('refuses an unsupported part in the Gemini error shape', async () => {
    const response = await request(`${gateway.origin}/v1beta/models/gm-small:embedContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': TEST_KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ content: { parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }] } }),
    });
    expect(response.statusCode).toBe(400);
    expect(await response.body.json()).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
  });
});

describe('routing, limits and refusals', () => {
  it('fails over from a failing channel to a healthy one', async () => {
    const before = gateway.outcomes.length;
    const answer = await openai.embeddings.create({ model: 'fo-small', input: 'resilient', encoding_format: 'float' });
    expect(answer.data[0]!.embedding).toEqual(expectedVector('resilient', 8));
    await waitFor(() => gateway.outcomes.length > before);
    expect(gateway.outcomes.at(-1)).toMatchObject({
      channelId: 'healthy',
      attempts: 2,
      failovers: [{ channelId: 'broken', errorKind: 'upstream-unavailable', nextChannelId: 'healthy' }],
    });
  });

  it('answers an unknown model and a chat-only model 404 in the OpenAI shape', async () => {
    await expect(openai.embeddings.create({ model: 'nope', input: 'x' })).rejects.toMatchObject({
      status: 404,
      code: 'model_not_found',
    });
    await expect(openai.embeddings.create({ model: 'claude-only', input: 'x' })).rejects.toMatchObject({
      status: 404,
      message: expect.stringContaining('embeddings'),
    });
  });

  it('refuses a bad body naming the field', async () => {
    await expect(openai.embeddings.create({ model: 'oa-small', input: [] })).rejects.toMatchObject({
      status: 400,
      param: 'input',
    });
    await expect(openai.embeddings.create({ model: 'oa-small', input: 'x', dimensions: -1 })).rejects.toMatchObject({
      status: 400,
      param: 'dimensions',
    });
  });

  it("refuses a batch over a key's TPM limit (input tokens only)", async () => {
    const created = await request(`${gateway.origin}/admin/api/keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'tpm-embed', tpm: 20 }),
    });
    expect(created.statusCode).toBeLessThan(300);
    const key = ((await created.body.json()) as { apiKey: string }).apiKey;
    const limited = new OpenAI({ apiKey: key, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
    // Under the limit: ten input tokens, no output reserved.
    await expect(
      limited.embeddings.create({ model: 'oa-small', input: 'one two three four five six seven eight nine ten' }),
    ).resolves.toBeTruthy();
    const big = Array.from({ length: 30 }, (_, i) => `word${i} another`);
    await expect(limited.embeddings.create({ model: 'oa-small', input: big })).rejects.toMatchObject({ status: 429 });
  });
});
