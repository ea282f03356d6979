/**
 * Prompt-cache economics are billed exactly, on both engine sets (embedded: file log, memory,
 * chdb; production: Kafka, Redis, ClickHouse 18.16): a fake Anthropic upstream replays
 * recorded-shape answers (`prompt-cache-1h`: 21 uncached input tokens, 1134 written to the
 * 5-minute cache and 4096 to the 1-hour cache; `text`: 14 uncached and 2048 read from the cache),
 * asked for in the Anthropic format (JSON and a stream) and the OpenAI Chat format. The billing
 * lines price the two write lifetimes apart and record the savings of the reads to the
 * nano-dollar, cache_by_channel_model_day sums them per channel, model, key and team, and the
 * README's analyst query reads the hit rate and the savings from it.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANALYST_QUERIES } from '../../../schemas/analytics/analyst-queries.ts';
import { startFixtureUpstream, type FixtureUpstream } from '../../support/fixture-upstream.ts';
import {
  decimalToNano,
  ENGINE_SETS,
  eventually,
  isolatedEngineSettings,
  startTestSystem,
  type EngineSet,
  type TestSystem,
} from '../../support/pipeline-harness.ts';
import { TEST_KEY } from '../../support/start-gateway.ts';

/** Claude Sonnet 4.5 list prices, USD per million tokens, under the fixtures' model names. */
const CLAUDE_PRICE = {
  inputPerMTok: 3,
  outputPerMTok: 15,
  cacheReadPerMTok: 0.3,
  cacheWritePerMTok: 3.75,
  cacheWrite1hPerMTok: 6,
};
/** 21 × 3 + 1134 × 3.75 + 4096 × 6 + 15 × 15 µUSD. */
const WRITES_COST_NANO = 29_116_500n;
/** 14 × 3 + 2048 × 0.3 + 12 × 15 µUSD. */
const READS_COST_NANO = 836_400n;
/** 2048 × (3 − 0.3) µUSD. */
const READS_SAVINGS_NANO = 5_529_600n;

interface Line {
  request_id: string;
  upstream_model: string;
  cached: string;
  writes: string;
  writes_1h: string;
  write_1h_price: string;
  cost: string;
  savings: string;
}

describe.each<EngineSet>(ENGINE_SETS)('prompt-cache billing on %s engines', (engines) => {
  let system: TestSystem;
  let upstream: FixtureUpstream;
  const writeIds: string[] = [];
  let readId = '';

  beforeAll(async () => {
    upstream = await startFixtureUpstream();
    system = await startTestSystem({
      settings: await isolatedEngineSettings(engines),
      channels: [
        {
          id: 'claude-direct',
          provider: 'anthropic',
          baseUrl: upstream.baseUrl('anthropic-messages'),
          apiKey: 'upstream-secret',
          models: ['claude-reads', 'claude-writes'],
          modelMap: { 'claude-reads': 'text', 'claude-writes': 'prompt-cache-1h' },
        },
      ],
      prices: ['text', 'prompt-cache-1h'].map((model) => ({
        model,
        ...CLAUDE_PRICE,
        effectiveFrom: '1970-01-01T00:00:00Z',
      })),
    });
    const messages = [{ role: 'user', content: 'What is the notice period?' }];
    const anthropicHeaders = {
      'content-type': 'application/json',
      'x-api-key': TEST_KEY,
      'anthropic-version': '2023-06-01',
    };
    for (const stream of [false, true]) {
      const response = await request(`${system.origin}/v1/messages`, {
        method: 'POST',
        headers: anthropicHeaders,
        body: JSON.stringify({ model: 'claude-writes', max_tokens: 64, stream, messages }),
      });
      const text = await response.body.text();
      expect(response.statusCode, text).toBe(200);
      // The client sees the split by lifetime in Anthropic's own shape.
      expect(text).toMatch(/"ephemeral_1h_input_tokens":\s*4096/);
      writeIds.push(String(response.headers['x-request-id']));
    }
    const chat = await request(`${system.origin}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TEST_KEY}` },
      body: JSON.stringify({ model: 'claude-reads', messages }),
    });
    const answer = (await chat.body.json()) as { usage: { prompt_tokens_details: { cached_tokens: number } } };
    expect(chat.statusCode).toBe(200);
    expect(answer.usage.prompt_tokens_details.cached_tokens).toBe(2048);
    readId = String(chat.headers['x-request-id']);
    await system.eventLog.flush();
  }, 120_000);

  afterAll(async () => {
    await system?.close();
    await upstream?.close();
  }, 60_000);

  const lines = (): Promise<Line[]> =>
    system.analytics.query<Line>(
      'SELECT request_id, upstream_model, toString(cached_input_tokens) AS cached, toString(cache_write_tokens) AS writes, ' +
        'toString(cache_write_1h_tokens) AS writes_1h, toString(cache_write_1h_per_mtok) AS write_1h_price, ' +
        'toString(cost_usd) AS cost, toString(cache_savings_usd) AS savings FROM billing_lines FINAL ORDER BY request_id',
    );

  it('bills 5-minute and 1-hour cache writes at their prices and records the savings of the reads, to the nano-dollar', async () => {
    await eventually(async () => (await lines()).length, 3);
    const byId = new Map((await lines()).map((line) => [line.request_id, line]));
    for (const id of writeIds) {
      const line = byId.get(id)!;
      expect(line, id).toBeDefined();
      expect([line.writes, line.writes_1h, line.cached]).toEqual(['5230', '4096', '0']);
      expect(decimalToNano(line.write_1h_price)).toBe(6_000_000_000n);
      expect(decimalToNano(line.cost)).toBe(WRITES_COST_NANO);
      expect(decimalToNano(line.savings)).toBe(0n);
    }
    const read = byId.get(readId)!;
    expect([read.cached, read.writes, read.writes_1h]).toEqual(['2048', '0', '0']);
    expect(decimalToNano(read.cost)).toBe(READS_COST_NANO);
    expect(decimalToNano(read.savings)).toBe(READS_SAVINGS_NANO);
  });

  it('sums them in cache_by_channel_model_day, and the README query reads the hit rate and savings per channel, model, key and team', async () => {
    const spend = () =>
      system.analytics.query<Record<string, string>>(
        'SELECT upstream_model, toString(sum(requests)) AS requests, toString(sum(input_tokens)) AS input, ' +
          'toString(sum(cached_input_tokens)) AS cached, toString(sum(cache_write_1h_tokens)) AS writes_1h, ' +
          'toString(sum(cost_usd)) AS cost, toString(sum(cache_savings_usd)) AS savings ' +
          'FROM cache_by_channel_model_day GROUP BY upstream_model ORDER BY upstream_model',
      );
    await eventually(async () => (await spend()).map((r) => r.requests), ['2', '1']);
    const [writes, reads] = await spend();
    expect(writes).toMatchObject({ upstream_model: 'prompt-cache-1h', input: '10502', cached: '0', writes_1h: '8192' });
    expect(decimalToNano(writes!.cost!)).toBe(2n * WRITES_COST_NANO);
    expect(reads).toMatchObject({ upstream_model: 'text', input: '2062', cached: '2048', writes_1h: '0' });
    expect(decimalToNano(reads!.savings!)).toBe(READS_SAVINGS_NANO);

    const query = ANALYST_QUERIES.find((q) => q.title.startsWith('Cache hit rate and money saved'))!;
    const rows = await system.analytics.query<Record<string, unknown>>(query.sql);
    expect(rows).toHaveLength(2);
    const keyId = system.outcomes[0]!.keyId;
    // Largest savings first.
    expect(rows.map((r) => r.upstream_model)).toEqual(['text', 'prompt-cache-1h']);
    for (const row of rows) expect(row).toMatchObject({ channel_id: 'claude-direct', key_id: keyId, team_id: '' });
    expect(Number(rows[0]!.hit_rate)).toBe(0.9932); // 2048 ÷ 2062, 4 decimals
    expect(decimalToNano(String(rows[0]!.savings_usd))).toBe(READS_SAVINGS_NANO);
    expect(Number(rows[1]!.hit_rate)).toBe(0);
    expect(Number(rows[1]!.cache_write_1h_tokens)).toBe(8192);
    expect(decimalToNano(String(rows[1]!.cost_usd))).toBe(2n * WRITES_COST_NANO);
  });
});
