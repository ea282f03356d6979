/**
 * The prompt-cache families on the gateway's /metrics move with real Anthropic traffic through the
 * real app: a fake Anthropic upstream replays recorded-shape bodies (`text`: 2048 tokens read from
 * the cache; `prompt-cache-1h`: 1134 tokens written for 5 minutes and 4096 for 1 hour), the price
 * book is the config file's, and the counters are scraped before and after.
 */
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFixtureUpstream, type FixtureUpstream } from '../../support/fixture-upstream.ts';
import { parsePrometheusText, sampleSum, type PrometheusSample } from '../../support/prometheus-text.ts';
import { startTestGateway, TEST_KEY, waitFor, type TestGateway } from '../../support/start-gateway.ts';

let upstream: FixtureUpstream;
let gateway: TestGateway;

beforeAll(async () => {
  upstream = await startFixtureUpstream();
  gateway = await startTestGateway({
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
    prices: [
      // Claude Sonnet 4.5 list prices, USD per million tokens, under the fixtures' model names.
      ...['text', 'prompt-cache-1h'].map((model) => ({
        model,
        inputPerMTok: 3,
        outputPerMTok: 15,
        cacheReadPerMTok: 0.3,
        cacheWritePerMTok: 3.75,
        cacheWrite1hPerMTok: 6,
      })),
    ],
  });
});

afterAll(async () => {
  await gateway?.close();
  await upstream?.close();
});

async function scrape(): Promise<PrometheusSample[]> {
  const response = await request(`${gateway.origin}/metrics`);
  expect(response.statusCode).toBe(200);
  return parsePrometheusText(await response.body.text());
}

async function ask(model: string): Promise<void> {
  const before = gateway.outcomes.length;
  const response = await request(`${gateway.origin}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': TEST_KEY, 'anthropic-version': '2023-06-01' },
    body: JSON.stringify({
      model,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'What is the notice period?' }],
    }),
  });
  expect(response.statusCode).toBe(200);
  await response.body.json();
  await waitFor(() => gateway.outcomes.length > before);
}

describe('the prompt-cache families', () => {
  it('count input, cache-read and cache-write tokens by lifetime, and the USD the reads saved, by channel, model, key and team', async () => {
    await ask('claude-reads');
    await ask('claude-writes');
    const keyId = gateway.outcomes[0]!.keyId;
    expect(keyId).not.toBe(TEST_KEY);
    const samples = await scrape();
    const labels = (model: string) => ({ channel: 'claude-direct', model, key: keyId, team: '' });

    expect(sampleSum(samples, 'tollgate_cache_input_tokens_total', labels('claude-reads'))).toBe(2062);
    expect(sampleSum(samples, 'tollgate_cache_read_tokens_total', labels('claude-reads'))).toBe(2048);
    // 2048 × (3 − 0.30) USD per million tokens
    expect(sampleSum(samples, 'tollgate_cache_savings_usd_total', labels('claude-reads'))).toBeCloseTo(0.0055296, 12);

    expect(sampleSum(samples, 'tollgate_cache_input_tokens_total', labels('claude-writes'))).toBe(5251);
    expect(sampleSum(samples, 'tollgate_cache_write_tokens_total', { ...labels('claude-writes'), ttl: '5m' })).toBe(
      1134,
    );
    expect(sampleSum(samples, 'tollgate_cache_write_tokens_total', { ...labels('claude-writes'), ttl: '1h' })).toBe(
      4096,
    );
    expect(sampleSum(samples, 'tollgate_cache_read_tokens_total', labels('claude-writes')) ?? 0).toBe(0);
    expect(sampleSum(samples, 'tollgate_cache_savings_usd_total', labels('claude-writes')) ?? 0).toBe(0);

    // the key label is the key's id, never the key
    expect(samples.some((s) => Object.values(s.labels).includes(TEST_KEY))).toBe(false);

    await ask('claude-reads');
    const after = await scrape();
    expect(sampleSum(after, 'tollgate_cache_read_tokens_total', labels('claude-reads'))).toBe(4096);
    expect(sampleSum(after, 'tollgate_cache_savings_usd_total', labels('claude-reads'))).toBeCloseTo(0.0110592, 12);
  });
});
