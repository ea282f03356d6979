/**
 * Embeddings are billed exactly, on both engine sets (embedded: file log, memory, chdb;
 * production: Kafka, Redis, ClickHouse 18.16): the openai SDK embeds through an OpenAI-style
 * channel (usage reported by the upstream) and a Gemini channel (input tokens counted by the
 * gateway), a chat request goes through the mock for comparison, and the consumers write
 * `consumption_log` rows with `operation = 'embedding'` (the chat's `generation`) and
 * `billing_lines` whose cost is the input tokens × the input price, to the nano-dollar, output 0.
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
import { startEmbeddingUpstream, type EmbeddingUpstream } from '../../support/embedding-upstream.ts';
import { TEST_KEY } from '../../support/start-gateway.ts';

const UPSTREAM_KEY = 'embedding-billing-upstream-key';
/** USD per million input tokens: 0.13 = 130 nano-USD a token, so every cost is exact. */
const INPUT_PRICE_USD = 0.13;
const NANO_PER_TOKEN = 130n;

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
  const embeddingIds: string[] = [];
  let chatId = '';

  beforeAll(async () => {
    fake = await startEmbeddingUpstream({ apiKey: UPSTREAM_KEY });
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
        { model: 'chat-model', inputPerMTok: 1, outputPerMTok: 2, effectiveFrom: '1970-01-01T00:00:00Z' },
      ],
    });
    const openai = new OpenAI({ apiKey: TEST_KEY, baseURL: `${system.origin}/v1`, maxRetries: 0 });
    for (const [model, input] of [
      ['oa-embed', 'one two three'],
      ['oa-embed', ['alpha beta', 'gamma delta epsilon', 'zeta']],
      ['gm-embed', ['the quick brown fox', 'jumps over the lazy dog']],
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
    await fake?.close();
  }, 60_000);

  const rows = (table: string): Promise<Row[]> =>
    system.analytics.query<Row>(
      `SELECT request_id, operation, toString(input_tokens) AS input_tokens, toString(output_tokens) AS output_tokens, toString(cost_usd) AS cost FROM ${table} FINAL ORDER BY request_id`,
    );

  it.each(['consumption_log', 'billing_lines'])(
    '%s: operation embedding, cost = input tokens × the input price exactly, output 0',
    async (table) => {
      await eventually(async () => (await rows(table)).length, 4);
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
      expect(byId.get(chatId)?.operation).toBe('generation');
    },
  );
});
