/**
 * Embeddings are billed exactly, on both engine sets (embedded: file log, memory, chdb;
 * production: Kafka, Redis, ClickHouse 18.16): the openai SDK embeds through an OpenAI-style
 * channel (usage reported by the upstream), a Gemini channel (input tokens counted by the
 * gateway), a SigV4 Bedrock channel with Titan Text Embeddings v2 (one call per text, each
 * reporting `inputTextTokenCount`; test/support/bedrock-upstream.ts), a Vertex AI channel
 * (`:predict` token statistics; test/support/vertex-upstream.ts), and a batch split over a
 * DashScope channel whose second call fails and then served whole by an OpenAI channel (both the
 * served first call and the final attempt billed); a chat request goes through the mock for
 * comparison, and the consumers write `consumption_log` rows with `operation = 'embedding'` (the
 * chat's `generation`) and `billing_lines` whose cost is the input tokens × the input price, to
 * the nano-dollar, output 0.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decimalToNano,
  eventually,
  isolatedEngineSettings,
  startTestSystem,
  ENGINE_SETS,
  type EngineSet,
  type TestSystem,
} from '../../support/pipeline-harness.ts';
import {
  BEDROCK_FAKE_REGION,
  BEDROCK_TEST_CREDENTIALS,
  startBedrockUpstream,
  type BedrockUpstream,
} from '../../support/bedrock-upstream.ts';
import { fakeTokenCount, startEmbeddingUpstream, type EmbeddingUpstream } from '../../support/embedding-upstream.ts';
import { TEST_KEY } from '../../support/start-gateway.ts';
import { makeServiceAccountKey, startVertexFake, type VertexFake } from '../../support/vertex-upstream.ts';

const UPSTREAM_KEY = 'embedding-billing-upstream-key';
/** USD per million input tokens: 0.13 = 130 nano-USD a token, so every cost is exact. */
const INPUT_PRICE_USD = 0.13;
const NANO_PER_TOKEN = 130n;
const VERTEX = { project: 'my-project', location: 'us-central1' };
/** Texts of the batch split over the failing DashScope channel (10 a call): its first call is served, its second fails. */
const SPLIT_TEXTS = Array.from({ length: 15 }, (_, i) => `split text ${i}`);
const words = (texts: ReadonlyArray<string>) => texts.reduce((sum, text) => sum + fakeTokenCount(text), 0);

interface Row {
  request_id: string;
  operation: string;
  input_tokens: string;
  output_tokens: string;
  cost: string;
}

describe.each<EngineSet>(ENGINE_SETS)('embedding billing on %s engines', (engines) => {
  let system: TestSystem;
  let fake: EmbeddingUpstream;
  let failingMidBatch: EmbeddingUpstream;
  let bedrock: BedrockUpstream;
  let vertex: VertexFake;
  const embeddingIds: string[] = [];
  let chatId = '';

  beforeAll(async () => {
    fake = await startEmbeddingUpstream({ apiKey: UPSTREAM_KEY });
    failingMidBatch = await startEmbeddingUpstream({
      apiKey: UPSTREAM_KEY,
      maxOpenAiInputs: 10,
      acceptsTokenIds: false,
      failingCalls: { callNumbers: [2], status: 503 },
    });
    bedrock = await startBedrockUpstream();
    vertex = await startVertexFake(VERTEX);
    const serviceAccount = makeServiceAccountKey(vertex.tokenUri);
    vertex.register(serviceAccount);
    system = await startTestSystem({
      settings: await isolatedEngineSettings(engines),
      channels: [
        {
          id: 'emb-openai',
          provider: 'openai',
          protocol: 'openai-chat',
          baseUrl: `${fake.origin}/v1`,
          apiKey: UPSTREAM_KEY,
          modelMap: { 'oa-embed': 'embed-small' },
        },
        {
          id: 'emb-gemini',
          provider: 'gemini',
          protocol: 'gemini',
          baseUrl: fake.origin,
          apiKey: UPSTREAM_KEY,
          modelMap: { 'gm-embed': 'embed-large' },
        },
        {
          id: 'emb-bedrock',
          provider: 'bedrock',
          protocol: 'bedrock-converse',
          baseUrl: bedrock.origin,
          apiKey: `${BEDROCK_TEST_CREDENTIALS.accessKeyId}:${BEDROCK_TEST_CREDENTIALS.secretAccessKey}`,
          cloud: { auth: 'sigv4', region: BEDROCK_FAKE_REGION },
          modelMap: { 'bd-titan': 'amazon.titan-embed-text-v2:0' },
        },
        {
          id: 'emb-vertex',
          provider: 'vertex',
          protocol: 'gemini',
          baseUrl: vertex.origin,
          apiKey: serviceAccount.json,
          cloud: { project: VERTEX.project, region: VERTEX.location },
          modelMap: { 'vx-embed': 'text-embedding-005' },
        },
        {
          id: 'emb-split-failing',
          provider: 'dashscope',
          baseUrl: `${failingMidBatch.origin}/compatible-mode/v1`,
          apiKey: UPSTREAM_KEY,
          priority: 1,
          modelMap: { 'split-embed': 'embed-small' },
        },
        {
          id: 'emb-split-healthy',
          provider: 'openai',
          protocol: 'openai-chat',
          baseUrl: `${fake.origin}/v1`,
          apiKey: UPSTREAM_KEY,
          modelMap: { 'split-embed': 'embed-small' },
        },
        { id: 'chat', provider: 'mock', protocol: 'openai-chat', models: ['chat-model'] },
      ],
      prices: [
        {
          model: 'embed-small',
          inputPerMTok: INPUT_PRICE_USD,
          outputPerMTok: 99,
          effectiveFrom: '1970-01-01T00:00:00Z',
        },
        {
          model: 'embed-large',
          inputPerMTok: INPUT_PRICE_USD,
          outputPerMTok: 99,
          effectiveFrom: '1970-01-01T00:00:00Z',
        },
        ...['amazon.titan-embed-text-v2:0', 'text-embedding-005'].map((model) => ({
          model,
          inputPerMTok: INPUT_PRICE_USD,
          outputPerMTok: 99,
          effectiveFrom: '1970-01-01T00:00:00Z',
        })),
        { model: 'chat-model', inputPerMTok: 1, outputPerMTok: 2, effectiveFrom: '1970-01-01T00:00:00Z' },
      ],
    });
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${system.origin}/v1`, maxRetries: 0 });
    for (const [model, input] of [
      ['oa-embed', 'one two three'],
      ['oa-embed', ['alpha beta', 'gamma delta epsilon', 'zeta']],
      ['gm-embed', ['the quick brown fox', 'jumps over the lazy dog']],
      ['bd-titan', ['one two three four', 'five six']],
      ['vx-embed', ['alpha beta gamma', 'delta']],
      ['split-embed', SPLIT_TEXTS],
    ] as const) {
      const { response } = await openai.embeddings
        .create({ model, input: typeof input === 'string' ? input : [...input] })
        .withResponse();
      embeddingIds.push(response.headers.get('x-request-id') ?? '');
    }
    const { response } = await openai.chat.completions
      .create({ model: 'chat-model', messages: [{ role: 'user', content: 'hello' }] })
      .withResponse();
    chatId = response.headers.get('x-request-id') ?? '';
    await system.eventLog.flush();
  }, 120_000);

  afterAll(async () => {
    await system?.close();
    for (const upstream of [fake, failingMidBatch, bedrock, vertex]) await upstream?.close();
  }, 60_000);

  const rows = (table: string): Promise<Row[]> =>
    system.analytics.query<Row>(
      `SELECT request_id, operation, toString(input_tokens) AS input_tokens, toString(output_tokens) AS output_tokens, toString(cost_usd) AS cost FROM ${table} FINAL ORDER BY request_id`,
    );

  it.each(['consumption_log', 'billing_lines'])(
    '%s: operation embedding, cost = input tokens × the input price exactly, output 0',
    async (table) => {
      await eventually(async () => (await rows(table)).length, 7);
      const byId = new Map((await rows(table)).map((row) => [row.request_id, row]));
      for (const id of embeddingIds) {
        const row = byId.get(id);
        expect(row, id).toBeDefined();
        expect(row!.operation).toBe('embedding');
        expect(row!.output_tokens).toBe('0');
        expect(Number(row!.input_tokens)).toBeGreaterThan(0);
        expect(decimalToNano(row!.cost)).toBe(BigInt(row!.input_tokens) * NANO_PER_TOKEN);
      }
      // The fake counts words: the OpenAI-style channel's rows carry its reported counts.
      expect(byId.get(embeddingIds[0]!)?.input_tokens).toBe('3');
      expect(byId.get(embeddingIds[1]!)?.input_tokens).toBe('6');
      // Bedrock Titan: two calls of one text, each reporting inputTextTokenCount; Vertex: token_count statistics.
      expect(byId.get(embeddingIds[3]!)?.input_tokens).toBe('6');
      expect(byId.get(embeddingIds[4]!)?.input_tokens).toBe('4');
      // The split batch: the failing channel's served first call (10 texts) and the healthy channel's whole batch.
      expect(byId.get(embeddingIds[5]!)?.input_tokens).toBe(
        String(words(SPLIT_TEXTS.slice(0, 10)) + words(SPLIT_TEXTS)),
      );
      expect(failingMidBatch.calls.map((call) => (call.body.input as string[]).length)).toEqual([10, 5]);
      expect(byId.get(chatId)?.operation).toBe('generation');
    },
  );
});
