/**
 * The routing families count into one series per label set however many requests arrive:
 * affinity results by model, and fallback chains by the model that answered.
 */
import { describe, expect, it } from 'vitest';
import { makeUsage } from '../../../gateway/canonical/usage.ts';
import type { ExchangeOutcome } from '../../../gateway/exchange/exchange-outcome.ts';
import { GatewayMetrics } from '../../../gateway/metrics/gateway-metrics.ts';
import type { OutcomeFamilies } from '../../../gateway/metrics/outcome-families.ts';
import { parsePrometheusText } from '../../support/prometheus-text.ts';

const served = (over: Partial<ExchangeOutcome> = {}): ExchangeOutcome => ({
  requestId: 'req-1',
  keyId: 'key_a',
  userId: null,
  clientFormat: 'openai-chat',
  model: 'gpt-5',
  stream: false,
  status: 'completed',
  httpStatus: 200,
  channelId: 'ch-1',
  provider: 'openai',
  upstreamModel: 'gpt-5',
  passThrough: false,
  attempts: 1,
  failovers: [],
  usage: makeUsage({ inputTotal: 10, outputTotal: 5 }),
  latencyMs: 10,
  ...over,
});

describe('routing families', () => {
  it('add every request to one series per model and result', async () => {
    const metrics = new GatewayMetrics();
    for (let i = 0; i < 3; i++) metrics.recordOutcome(served({ affinity: 'hit' }));
    metrics.recordOutcome(served({ affinity: 'new' }));
    metrics.recordOutcome(served());
    for (let i = 0; i < 2; i++)
      metrics.recordOutcome(served({ modelChain: ['gpt-5', 'claude'], answeredModel: 'claude' }));
    metrics.recordOutcome(served({ status: 'failed', httpStatus: 503, modelChain: ['gpt-5', 'claude'] }));
    const all = parsePrometheusText(await metrics.render());
    const series = (name: string) =>
      all.filter((s) => s.name === name).map((s) => ({ labels: s.labels, value: s.value }));
    expect(series('tollgate_affinity_requests_total')).toEqual(
      expect.arrayContaining([
        { labels: { model: 'gpt-5', result: 'hit' }, value: 3 },
        { labels: { model: 'gpt-5', result: 'new' }, value: 1 },
        { labels: { model: 'gpt-5', result: 'off' }, value: 3 },
      ]),
    );
    expect(series('tollgate_affinity_requests_total')).toHaveLength(3);
    // One cell per label set, not one per request: the families hold no more than they publish.
    const families = (metrics as unknown as { families: OutcomeFamilies }).families;
    expect([families.affinity.size, families.modelFallbacks.size]).toEqual([3, 2]);
    expect(series('tollgate_model_fallbacks_total')).toEqual([
      { labels: { model: 'gpt-5', answered_model: 'claude' }, value: 2 },
      { labels: { model: 'gpt-5', answered_model: '' }, value: 1 },
    ]);
  });
});
