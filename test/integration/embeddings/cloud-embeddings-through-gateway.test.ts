/**
 * Embeddings through the gateway's cloud channels and every OpenAI-style preset, with the official
 * SDKs as clients:
 * - the `openai` SDK's embeddings.create (single, a batch larger than the per-call limit — Titan
 *   Text Embeddings 1, Cohere Embed 96 —, `dimensions`, its default base64 and explicit float) and
 *   @google/genai's models.embedContent (one and several contents, `outputDimensionality`,
 *   `taskType` reaching Vertex's `task_type` and Cohere's `input_type`) against a SigV4-signed
 *   Bedrock channel (and one with a Bedrock API key) serving Titan and Cohere models through the
 *   fake Bedrock Runtime (test/support/bedrock-upstream.ts), and a Vertex AI channel whose
 *   service-account key is made here (test/support/vertex-upstream.ts); each case checks the
 *   vectors and usage the client got, what reached the fake, and the outcome recorded;
 * - one `openai.embeddings.create` through a channel of each preset whose `quirks.embeddings`
 *   serves the OpenAI embeddings API (gateway/providers/presets.ts), pointed at the fake embeddings
 *   upstream (test/support/embedding-upstream.ts) configured with that preset's documented limits:
 *   the path under the preset's base URL, the credential header (none for keyless local servers),
 *   the vector-length field, and the split of a batch one input over the preset's per-call limit;
 * - a batch split into several calls whose second call fails: the request fails over (or fails),
 *   and the outcome's input tokens are those of every call the upstreams served.
 */
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UpstreamProtocol } from '../../../gateway/canonical/formats.ts';
import { getProviderPreset, listProviderPresets } from '../../../gateway/providers/presets.ts';
import type { ProviderId } from '../../../gateway/providers/provider-preset.ts';
import { embeddingStyleFor } from '../../../gateway/upstream/embedding-adapter.ts';
import {
  BEDROCK_FAKE_REGION,
  BEDROCK_TEST_API_KEY,
  BEDROCK_TEST_CREDENTIALS,
  expectedBedrockVector,
  startBedrockUpstream,
  type BedrockUpstream,
} from '../../support/bedrock-upstream.ts';
import {
  expectedVector,
  fakeTokenCount,
  startEmbeddingUpstream,
  type EmbeddingUpstream,
} from '../../support/embedding-upstream.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../../support/start-gateway.ts';
import { makeServiceAccountKey, startVertexFake, type VertexFake } from '../../support/vertex-upstream.ts';

const SIGV4_KEY = `${BEDROCK_TEST_CREDENTIALS.accessKeyId}:${BEDROCK_TEST_CREDENTIALS.secretAccessKey}`;
const VERTEX = { project: 'my-project', location: 'us-central1' };
const SPLIT_KEY = 'split-upstream-key';

/** The OpenAI-style presets that serve embeddings, with the first protocol whose embedding API is OpenAI's (or Azure's). */
const OPENAI_STYLE_PRESETS = listProviderPresets().flatMap((preset) => {
  const protocol = (Object.keys(preset.endpoints) as UpstreamProtocol[]).find((candidate) => {
    const style = embeddingStyleFor(preset, candidate);
    return style === 'openai' || style === 'azure';
  });
  return protocol === undefined ? [] : [{ id: preset.id, protocol }];
});

/** The path of a preset's default base URL (`/v1` when it has none), where the fake is mounted. */
function basePathOf(id: ProviderId, protocol: UpstreamProtocol): string {
  if (id === 'azure') return '';
  const baseUrl = getProviderPreset(id).endpoints[protocol]?.baseUrl;
  return baseUrl === undefined ? '/v1' : new URL(baseUrl).pathname.replace(/\/+$/, '');
}

const isKeyless = (id: ProviderId, protocol: UpstreamProtocol) =>
  getProviderPreset(id).endpoints[protocol]?.auth === 'optional-bearer';

let bedrock: BedrockUpstream;
let vertex: VertexFake;
let splitBroken: EmbeddingUpstream;
let splitAlone: EmbeddingUpstream;
let splitHealthy: EmbeddingUpstream;
const presetFakes = new Map<ProviderId, EmbeddingUpstream>();
let gateway: TestGateway;
let openai: OpenAI;
let genai: GoogleGenAI;

beforeAll(async () => {
  bedrock = await startBedrockUpstream();
  vertex = await startVertexFake(VERTEX);
  const serviceAccount = makeServiceAccountKey(vertex.tokenUri);
  vertex.register(serviceAccount);
  // DashScope's limit (10 a call); the second call of the first split batch fails.
  splitBroken = await startEmbeddingUpstream({
    apiKey: SPLIT_KEY,
    maxOpenAiInputs: 10,
    acceptsTokenIds: false,
    failingCalls: { callNumbers: [2], status: 503 },
  });
  splitAlone = await startEmbeddingUpstream({
    apiKey: SPLIT_KEY,
    maxOpenAiInputs: 10,
    acceptsTokenIds: false,
    failingCalls: { callNumbers: [2], status: 503 },
  });
  splitHealthy = await startEmbeddingUpstream({ apiKey: SPLIT_KEY });
  for (const { id, protocol } of OPENAI_STYLE_PRESETS) {
    const support = getProviderPreset(id).quirks.embeddings;
    presetFakes.set(
      id,
      await startEmbeddingUpstream({
        apiKey: `key-${id}`,
        maxOpenAiInputs: support?.maxInputsPerCall ?? 100_000,
        acceptsTokenIds: support?.acceptsTokenIds === true,
        ...(support?.dimensionsField === undefined ? {} : { dimensionsField: support.dimensionsField }),
        keyless: isKeyless(id, protocol),
      }),
    );
  }
  const bedrockChannel = (id: string, auth: 'sigv4' | 'api-key', apiKey: string, modelMap: Record<string, string>) => ({
    id,
    provider: 'bedrock',
    protocol: 'bedrock-converse',
    baseUrl: bedrock.origin,
    apiKey,
    cloud: { auth, region: BEDROCK_FAKE_REGION },
    modelMap,
  });
  gateway = await startTestGateway({
    channels: [
      bedrockChannel('bedrock-sigv4', 'sigv4', SIGV4_KEY, {
        'titan-v2': 'amazon.titan-embed-text-v2:0',
        'titan-v1': 'amazon.titan-embed-text-v1',
        'cohere-v3': 'cohere.embed-english-v3',
        'cohere-v4': 'us.cohere.embed-v4:0',
      }),
      bedrockChannel('bedrock-api-key', 'api-key', BEDROCK_TEST_API_KEY, {
        'cohere-multilingual': 'cohere.embed-multilingual-v3',
      }),
      {
        id: 'vertex',
        provider: 'vertex',
        protocol: 'gemini',
        baseUrl: vertex.origin,
        apiKey: serviceAccount.json,
        cloud: { project: VERTEX.project, region: VERTEX.location },
        modelMap: { 'vx-005': 'text-embedding-005', 'vx-gemini': 'gemini-embedding-001' },
      },
      ...OPENAI_STYLE_PRESETS.map(({ id, protocol }) => ({
        id: `preset-${id}`,
        provider: id,
        protocol,
        baseUrl: `${presetFakes.get(id)!.origin}${basePathOf(id, protocol)}`,
        ...(isKeyless(id, protocol) ? {} : { apiKey: `key-${id}` }),
        modelMap: { [`via-${id}`]: 'embed-small' },
      })),
      {
        id: 'split-broken',
        provider: 'dashscope',
        baseUrl: `${splitBroken.origin}/compatible-mode/v1`,
        apiKey: SPLIT_KEY,
        priority: 1,
        modelMap: { 'split-failover': 'embed-small' },
      },
      {
        id: 'split-healthy',
        provider: 'openai',
        protocol: 'openai-chat',
        baseUrl: `${splitHealthy.origin}/v1`,
        apiKey: SPLIT_KEY,
        modelMap: { 'split-failover': 'embed-small' },
      },
      {
        id: 'split-alone',
        provider: 'dashscope',
        baseUrl: `${splitAlone.origin}/compatible-mode/v1`,
        apiKey: SPLIT_KEY,
        modelMap: { 'split-fails': 'embed-small' },
      },
    ],
  });
  openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${gateway.origin}/v1`, maxRetries: 0 });
  genai = new GoogleGenAI({ apiKey: TEST_KEY, httpOptions: { baseUrl: gateway.origin } });
}, 60_000);

afterAll(async () => {
  await gateway?.close();
  for (const fake of [bedrock, vertex, splitBroken, splitAlone, splitHealthy, ...presetFakes.values()])
    await fake?.close();
});

/** The recorded outcome of the request that answered with `requestId`. */
async function outcomeOf(requestId: string | null) {
  await waitFor(() => gateway.outcomes.some((outcome) => outcome.requestId === requestId));
  return gateway.outcomes.find((outcome) => outcome.requestId === requestId)!;
}

/** The bodies the Bedrock fake received since `from`. */
const bedrockBodies = (from: number) =>
  bedrock.requests.slice(from).map((request) => JSON.parse(request.body) as Record<string, unknown>);

const words = (texts: ReadonlyArray<string>) => texts.reduce((sum, text) => sum + fakeTokenCount(text), 0);

describe('the openai SDK through a SigV4 Bedrock channel', () => {
  it('Titan v2: one text with the default base64, SigV4-signed InvokeModel, usage from inputTextTokenCount', async () => {
    const from = bedrock.requests.length;
    const { data: answer, response } = await openai.embeddings
      .create({ model: 'titan-v2', input: 'hello brave new world' })
      .withResponse();
    expect(Array.from(answer.data[0]!.embedding)).toEqual(expectedBedrockVector('hello brave new world', 1024, true));
    expect(answer.model).toBe('titan-v2');
    expect(answer.usage).toEqual({ prompt_tokens: 4, total_tokens: 4 });
    const seen = bedrock.requests.slice(from);
    expect(seen.map((r) => r.path)).toEqual(['/model/amazon.titan-embed-text-v2%3A0/invoke']);
    expect(seen[0]!.headers.authorization).toMatch(
      new RegExp(`^AWS4-HMAC-SHA256 Credential=${BEDROCK_TEST_CREDENTIALS.accessKeyId}/\\d{8}/us-east-1/bedrock/`),
    );
    expect(JSON.stringify(seen[0]!.headers)).not.toContain(BEDROCK_TEST_CREDENTIALS.secretAccessKey);
    expect(bedrockBodies(from)).toEqual([{ inputText: 'hello brave new world', normalize: true }]);
    expect(await outcomeOf(response.headers.get('x-request-id'))).toMatchObject({
      operation: 'embedding',
      status: 'completed',
      channelId: 'bedrock-sigv4',
      upstreamModel: 'amazon.titan-embed-text-v2:0',
      usage: { input: { total: 4 }, output: { total: 0 }, source: 'reported' },
    });
  });

  it('Titan v2: a batch of three is three calls of one text each, dimensions carried, floats in order, usage summed', async () => {
    const texts = ['alpha', 'beta gamma', 'delta epsilon zeta'];
    const from = bedrock.requests.length;
    const answer = await openai.embeddings.create({
      model: 'titan-v2',
      input: texts,
      dimensions: 256,
      encoding_format: 'float',
    });
    expect(bedrockBodies(from)).toEqual(texts.map((inputText) => ({ inputText, dimensions: 256, normalize: true })));
    expect(answer.data.map((d) => d.embedding)).toEqual(texts.map((t) => expectedBedrockVector(t, 256, true)));
    expect(answer.data.map((d) => d.index)).toEqual([0, 1, 2]);
    expect(answer.usage.prompt_tokens).toBe(words(texts));
  });

  it('Titan v1 refuses dimensions before anything is sent, naming the field', async () => {
    const from = bedrock.requests.length;
    await expect(openai.embeddings.create({ model: 'titan-v1', input: 'x', dimensions: 256 })).rejects.toMatchObject({
      status: 400,
      param: 'dimensions',
    });
    expect(bedrock.requests.length).toBe(from);
    const answer = await openai.embeddings.create({ model: 'titan-v1', input: 'plain', encoding_format: 'float' });
    expect(answer.data[0]!.embedding).toEqual(expectedBedrockVector('plain', 1536));
    expect(bedrockBodies(from)).toEqual([{ inputText: 'plain' }]);
  });

  it('Cohere v3: a batch of 100 is split 96 + 4, search_document, usage from the token-count header', async () => {
    const texts = Array.from({ length: 100 }, (_, i) => `passage number ${i}`);
    const from = bedrock.requests.length;
    const { data: answer, response } = await openai.embeddings
      .create({ model: 'cohere-v3', input: texts })
      .withResponse();
    const bodies = bedrockBodies(from);
    expect(bodies.map((b) => (b.texts as string[]).length)).toEqual([96, 4]);
    expect(bodies[0]).toMatchObject({ input_type: 'search_document', embedding_types: ['float'] });
    expect(bodies.flatMap((b) => b.texts as string[])).toEqual(texts);
    expect(answer.data.map((d) => Array.from(d.embedding))).toEqual(texts.map((t) => expectedBedrockVector(t, 1024)));
    expect(answer.usage.prompt_tokens).toBe(words(texts));
    expect((await outcomeOf(response.headers.get('x-request-id'))).usage).toMatchObject({
      input: { total: words(texts) },
      source: 'reported',
    });
  });

  it('Cohere v4: dimensions become output_dimension (inference-profile id in the path)', async () => {
    const from = bedrock.requests.length;
    const answer = await openai.embeddings.create({ model: 'cohere-v4', input: ['one', 'two'], dimensions: 256 });
    expect(bedrock.requests.at(-1)?.path).toBe('/model/us.cohere.embed-v4%3A0/invoke');
    expect(bedrockBodies(from)).toEqual([
      { texts: ['one', 'two'], input_type: 'search_document', embedding_types: ['float'], output_dimension: 256 },
    ]);
    expect(answer.data.map((d) => Array.from(d.embedding))).toEqual([
      expectedBedrockVector('one', 256),
      expectedBedrockVector('two', 256),
    ]);
  });

  it('a Bedrock API-key channel sends the key as a bearer token', async () => {
    const answer = await openai.embeddings.create({ model: 'cohere-multilingual', input: 'hej verden' });
    expect(bedrock.requests.at(-1)?.headers.authorization).toBe(`Bearer ${BEDROCK_TEST_API_KEY}`);
    expect(Array.from(answer.data[0]!.embedding)).toEqual(expectedBedrockVector('hej verden', 1024));
  });
});

describe('a body the cloud refuses', () => {
  it('reaches the client as its own 400 with the cloud’s message, without failover', async () => {
    await expect(openai.embeddings.create({ model: 'titan-v2', input: 'x', dimensions: 300 })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('#/dimensions: 300 is not a valid enum value'),
    });
    await expect(openai.embeddings.create({ model: 'vx-005', input: 'x', dimensions: 769 })).rejects.toMatchObject({
      status: 400,
      message: expect.stringContaining('outputDimensionality'),
    });
    const refused = await genai.models
      .embedContent({ model: 'cohere-v4', contents: 'x', config: { outputDimensionality: 100 } })
      .catch((error: unknown) => error as { status?: number; message: string });
    expect(refused).toMatchObject({ status: 400, message: expect.stringContaining('INVALID_ARGUMENT') });
  });
});

describe('@google/genai through a Bedrock Cohere channel', () => {
  it('taskType reaches Cohere as input_type', async () => {
    const from = bedrock.requests.length;
    const query = await genai.models.embedContent({
      model: 'cohere-v3',
      contents: ['where is the station?', 'and the harbour?'],
      config: { taskType: 'RETRIEVAL_QUERY' },
    });
    expect(query.embeddings?.map((e) => e.values)).toEqual([
      expectedBedrockVector('where is the station?', 1024),
      expectedBedrockVector('and the harbour?', 1024),
    ]);
    await genai.models.embedContent({
      model: 'cohere-v3',
      contents: 'sort me',
      config: { taskType: 'CLASSIFICATION' },
    });
    expect(bedrockBodies(from).map((b) => b.input_type)).toEqual(['search_query', 'classification']);
  });
});

describe('the openai SDK and @google/genai through a Vertex AI channel', () => {
  const lastVertexBody = () => JSON.parse(vertex.requests.at(-1)!.body) as Record<string, unknown>;

  it('openai: a batch with dimensions goes to :predict with a bearer token; usage from the token statistics', async () => {
    const texts = ['first vertex text', 'second one'];
    const { data: answer, response } = await openai.embeddings
      .create({ model: 'vx-005', input: texts, dimensions: 32 })
      .withResponse();
    expect(vertex.requests.at(-1)?.path).toBe(
      `/v1/projects/${VERTEX.project}/locations/${VERTEX.location}/publishers/google/models/text-embedding-005:predict`,
    );
    expect(vertex.requests.at(-1)?.headers.authorization).toMatch(/^Bearer ya29\.fake-/);
    expect(lastVertexBody()).toEqual({
      instances: texts.map((content) => ({ content })),
      parameters: { outputDimensionality: 32 },
    });
    expect(answer.data.map((d) => Array.from(d.embedding))).toEqual(texts.map((t) => expectedVector(t, 32)));
    expect(answer.usage.prompt_tokens).toBe(words(texts));
    expect(await outcomeOf(response.headers.get('x-request-id'))).toMatchObject({
      channelId: 'vertex',
      upstreamModel: 'text-embedding-005',
      usage: { input: { total: words(texts) }, source: 'reported' },
    });
  });

  it('openai: gemini-embedding-001 takes one instance a call, so a batch of three is three calls', async () => {
    const from = vertex.requests.length;
    const texts = ['a b', 'c', 'd e f'];
    const answer = await openai.embeddings.create({
      model: 'vx-gemini',
      input: texts,
      dimensions: 8,
      encoding_format: 'float',
    });
    expect(vertex.requests.slice(from).map((r) => (JSON.parse(r.body) as { instances: unknown[] }).instances)).toEqual(
      texts.map((content) => [{ content }]),
    );
    expect(answer.data.map((d) => d.embedding)).toEqual(texts.map((t) => expectedVector(t, 8)));
    expect(answer.usage.prompt_tokens).toBe(words(texts));
  });

  it('genai: one content at the model full length, then several with outputDimensionality, taskType and title', async () => {
    const one = await genai.models.embedContent({ model: 'vx-005', contents: 'hello vertex' });
    expect(one.embeddings?.[0]?.values).toEqual(expectedVector('hello vertex', 768));
    expect(lastVertexBody()).toEqual({ instances: [{ content: 'hello vertex' }] });
    const several = await genai.models.embedContent({
      model: 'vx-005',
      contents: ['doc one', 'doc two'],
      config: { outputDimensionality: 16, taskType: 'RETRIEVAL_DOCUMENT', title: 'Handbook' },
    });
    expect(several.embeddings?.map((e) => e.values)).toEqual([
      expectedVector('doc one', 16),
      expectedVector('doc two', 16),
    ]);
    expect(lastVertexBody()).toEqual({
      instances: [
        { content: 'doc one', task_type: 'RETRIEVAL_DOCUMENT', title: 'Handbook' },
        { content: 'doc two', task_type: 'RETRIEVAL_DOCUMENT', title: 'Handbook' },
      ],
      parameters: { outputDimensionality: 16 },
    });
    await genai.models.embedContent({ model: 'vx-005', contents: 'a query', config: { taskType: 'RETRIEVAL_QUERY' } });
    expect(lastVertexBody()).toEqual({ instances: [{ content: 'a query', task_type: 'RETRIEVAL_QUERY' }] });
  });
});

describe('every OpenAI-style embedding preset on the wire', () => {
  it('covers the presets the README lists', () => {
    expect(OPENAI_STYLE_PRESETS.map((p) => p.id)).toEqual(
      expect.arrayContaining([
        'openai',
        'gemini',
        'dashscope',
        'zhipu',
        'mistral',
        'together',
        'fireworks',
        'volcengine-ark',
        'siliconflow',
        'ollama',
        'vllm',
        'lmstudio',
        'openai-compatible',
        'azure',
      ]),
    );
  });

  it.each(OPENAI_STYLE_PRESETS)(
    '$id ($protocol): path, credential, vector-length field and per-call split',
    async ({ id, protocol }) => {
      const fake = presetFakes.get(id)!;
      const support = getProviderPreset(id).quirks.embeddings;
      const limit = support?.maxInputsPerCall;
      const texts = Array.from({ length: limit === undefined ? 3 : limit + 1 }, (_, i) => `item ${i}`);
      const from = fake.calls.length;
      const answer = await openai.embeddings.create({ model: `via-${id}`, input: texts, dimensions: 4 });
      const calls = fake.calls.slice(from);
      expect(calls.map((call) => (call.body.input as string[]).length)).toEqual(
        limit === undefined ? [texts.length] : [limit, 1],
      );
      const path = id === 'azure' ? '/openai/v1/embeddings' : `${basePathOf(id, protocol)}/embeddings`;
      for (const call of calls) {
        expect(call.path).toBe(path);
        expect(call.body).toMatchObject({
          model: 'embed-small',
          encoding_format: 'float',
          [support?.dimensionsField ?? 'dimensions']: 4,
        });
        if (id === 'azure') {
          expect(call.headers['api-key']).toBe(`key-${id}`);
          expect(call.headers.authorization).toBeUndefined();
        } else if (isKeyless(id, protocol)) expect(call.headers.authorization).toBeUndefined();
        else expect(call.headers.authorization).toBe(`Bearer key-${id}`);
      }
      expect(answer.data.map((d) => Array.from(d.embedding))).toEqual(texts.map((t) => expectedVector(t, 4)));
      expect(answer.usage.prompt_tokens).toBe(words(texts));
    },
  );
});

describe('a split batch whose later call fails: the served calls are recorded', () => {
  const texts = Array.from({ length: 15 }, (_, i) => `split text ${i}`);

  it('fails over after the second call fails; the outcome counts the first call and the whole final attempt', async () => {
    const { data: answer, response } = await openai.embeddings
      .create({ model: 'split-failover', input: texts, encoding_format: 'float' })
      .withResponse();
    expect(splitBroken.calls.map((call) => (call.body.input as string[]).length)).toEqual([10, 5]);
    expect(splitHealthy.calls.map((call) => (call.body.input as string[]).length)).toEqual([15]);
    expect(answer.data.map((d) => d.embedding)).toEqual(texts.map((t) => expectedVector(t, 8)));
    // The client's usage is its answer's; the recorded usage adds what the first channel served.
    expect(answer.usage.prompt_tokens).toBe(words(texts));
    const outcome = await outcomeOf(response.headers.get('x-request-id'));
    expect(outcome).toMatchObject({
      status: 'completed',
      channelId: 'split-healthy',
      attempts: 2,
      failovers: [{ channelId: 'split-broken', nextChannelId: 'split-healthy' }],
      usage: { input: { total: words(texts.slice(0, 10)) + words(texts) }, source: 'reported' },
    });
  });

  it('fails when no channel is left; the outcome still counts the served first call', async () => {
    const failed = await openai.embeddings
      .create({ model: 'split-fails', input: texts, encoding_format: 'float' })
      .catch((error: unknown) => error as InstanceType<typeof OpenAI.APIError>);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    expect(splitAlone.calls.map((call) => (call.body.input as string[]).length)).toEqual([10, 5]);
    const requestId = (failed as InstanceType<typeof OpenAI.APIError>).headers?.get('x-request-id') ?? null;
    expect(await outcomeOf(requestId)).toMatchObject({
      status: 'failed',
      channelId: 'split-alone',
      usage: { input: { total: words(texts.slice(0, 10)) }, output: { total: 0 }, source: 'reported' },
    });
  });
});
