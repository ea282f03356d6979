import { describe, expect, it } from 'vitest';
import { makeUsage } from '../../../gateway/canonical/usage.ts';
import type { ExchangeOutcome } from '../../../gateway/exchange/exchange-outcome.ts';
import { GatewayMetrics, MAX_CACHE_KEY_LABELS, OTHER_KEYS } from '../../../gateway/metrics/gateway-metrics.ts';
import { buildPriceBook, findPrice } from '../../../schemas/billing/price-book.ts';
import { parsePrometheusText, sampleSum } from '../../support/prometheus-text.ts';

const served = (keyId: string, over: Partial<ExchangeOutcome> = {}): ExchangeOutcome => ({
  requestId: `req-${keyId}`,
  keyId,
  userId: null,
  clientFormat: 'anthropic-messages',
  model: 'claude',
  stream: false,
  status: 'completed',
  httpStatus: 200,
  channelId: 'ch-1',
  provider: 'anthropic',
  upstreamModel: 'claude-sonnet-4-5',
  passThrough: false,
  attempts: 1,
  failovers: [],
  usage: makeUsage({ inputTotal: 100, cacheRead: 80, cacheWrite: 10, cacheWrite1h: 4, outputTotal: 5 }),
  latencyMs: 10,
  ...over,
});

async function samples(metrics: GatewayMetrics) {
  return parsePrometheusText(await metrics.render());
}

describe('prompt-cache families', () => {
  it('label the key id and the team, split writes by ttl, and price savings with the price source', async () => {
    const metrics = new GatewayMetrics();
    const book = buildPriceBook([
      {
        model: 'claude-sonnet-4-5',
        inputPerMTok: 3,
        outputPerMTok: 15,
        cacheReadPerMTok: 0.3,
        effectiveFrom: '1970-01-01',
      },
    ]);
    metrics.priceCacheReads({ priceOf: (model, channel, at) => findPrice(book, model, channel, at) });
    metrics.recordOutcome(served('key_a', { attribution: { teamId: 'team_x', endUserId: null, tags: [] } }));
    const labels = { channel: 'ch-1', model: 'claude', key: 'key_a', team: 'team_x' };
    const all = await samples(metrics);
    expect(sampleSum(all, 'tollgate_cache_input_tokens_total', labels)).toBe(100);
    expect(sampleSum(all, 'tollgate_cache_read_tokens_total', labels)).toBe(80);
    expect(sampleSum(all, 'tollgate_cache_write_tokens_total', { ...labels, ttl: '5m' })).toBe(6);
    expect(sampleSum(all, 'tollgate_cache_write_tokens_total', { ...labels, ttl: '1h' })).toBe(4);
    expect(sampleSum(all, 'tollgate_cache_savings_usd_total', labels)).toBeCloseTo(80 * 2.7e-6, 12);
  });

  it('count no savings without a price, and nothing for a request no channel served', async () => {
    const metrics = new GatewayMetrics();
    metrics.priceCacheReads({ priceOf: () => undefined });
    metrics.recordOutcome(served('key_a'));
    metrics.recordOutcome(served('key_b', { channelId: undefined }));
    const all = await samples(metrics);
    expect(sampleSum(all, 'tollgate_cache_read_tokens_total', { key: 'key_a' })).toBe(80);
    expect(sampleSum(all, 'tollgate_cache_savings_usd_total') ?? 0).toBe(0);
    expect(sampleSum(all, 'tollgate_cache_input_tokens_total', { key: 'key_b' }) ?? 0).toBe(0);
  });

  it(`count the keys past the first ${MAX_CACHE_KEY_LABELS} under the key "${OTHER_KEYS}"`, async () => {
    const metrics = new GatewayMetrics();
    for (let i = 0; i < MAX_CACHE_KEY_LABELS + 5; i++) metrics.recordOutcome(served(`key_${i}`));
    metrics.recordOutcome(served('key_0'));
    const all = await samples(metrics);
    const keys = new Set(all.filter((s) => s.name === 'tollgate_cache_input_tokens_total').map((s) => s.labels.key));
    expect(keys.size).toBe(MAX_CACHE_KEY_LABELS + 1);
    expect(sampleSum(all, 'tollgate_cache_input_tokens_total', { key: OTHER_KEYS })).toBe(500);
    expect(sampleSum(all, 'tollgate_cache_input_tokens_total', { key: 'key_0' })).toBe(200);
  });
});
