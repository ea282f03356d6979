import { consumed, staticPriceSource } from '../consumed-events.ts';
import { describe, expect, it } from 'vitest';
import { createBillingConsumer } from '../../../../consumers/billing/billing-consumer.ts';
import type { Decimal } from '../../../../schemas/analytics/analytics-store.ts';
import type { TrafficEvent } from '../../../../schemas/events/traffic-events.ts';
import { TOPICS } from '../../../../schemas/topics.ts';
import { createFakeAnalyticsStore } from './fake-analytics-store.ts';
import { createFakeSpendStore } from './fake-spend-store.ts';
import { PRICES, UNPRICED_WARNING } from './priced-cases.ts';
import { requestCompleted, usageRecorded } from './traffic-event-builders.ts';

function setup() {
  const analytics = createFakeAnalyticsStore();
  const state = createFakeSpendStore();
  const warnings: string[] = [];
  const consumer = createBillingConsumer({
    analytics,
    state,
    prices: staticPriceSource(PRICES),
    onWarning: (m) => warnings.push(m),
  });
  return { analytics, state, warnings, consumer };
}

// priced-model on ch-a: 100 × 3 + 20 × 15 = 600 USD·tok/MTok → 600 000 nano-USD each
const batch: TrafficEvent[] = [
  { type: 'UsageRecorded', event: usageRecorded({ keyId: 'k1', userId: 'u1' }) },
  { type: 'RequestCompleted', event: requestCompleted() },
  { type: 'UsageRecorded', event: usageRecorded({ keyId: 'k1', userId: null }) },
  { type: 'UsageRecorded', event: usageRecorded({ keyId: 'k2', userId: 'u1', upstreamModel: 'unpriced-model' }) },
];

describe('createBillingConsumer (fakes)', () => {
  it('reads the usage topic, inserts one batch of lines, then adds each priced cost once', async () => {
    const { analytics, state, warnings, consumer } = setup();
    expect(consumer.name).toBe('billing');
    expect(consumer.topics).toEqual([TOPICS.usage]);
    await consumer.handleBatch(consumed(batch));
    expect(analytics.inserts).toHaveLength(1);
    expect(analytics.inserts[0]?.table).toBe('billing_lines');
    expect(analytics.inserts[0]?.rows.map((r) => (r.cost_usd as Decimal).toString())).toEqual([
      '0.000600000',
      '0.000600000',
      '0.000000000',
    ]);
    expect(state.calls.map((c) => [c.keyId, c.userId, c.costNanoUsd])).toEqual([
      ['k1', 'u1', 600_000n],
      ['k1', null, 600_000n],
    ]);
    expect(await state.getSpend('k1', 'u1')).toEqual({ keyNanoUsd: 1_200_000n, userNanoUsd: 600_000n });
    expect(warnings).toEqual([UNPRICED_WARNING]);
  });

  it('rejects when the insert fails after the spend was added, and a redelivery counts everything once', async () => {
    const { analytics, state, consumer } = setup();
    analytics.failNext = 1;
    await expect(consumer.handleBatch(consumed(batch))).rejects.toThrow('Connection refused');
    expect(analytics.inserts).toHaveLength(0);
    expect(await state.getSpend('k1', 'u1')).toEqual({ keyNanoUsd: 1_200_000n, userNanoUsd: 600_000n });
    await consumer.handleBatch(consumed(batch));
    await consumer.handleBatch(consumed(batch));
    expect(await state.getSpend('k1', 'u1')).toEqual({ keyNanoUsd: 1_200_000n, userNanoUsd: 600_000n });
  });

  it('rejects when the spend store fails, and the redelivered batch completes without double counting', async () => {
    const { state, consumer } = setup();
    state.failNext = 1;
    await expect(consumer.handleBatch(consumed(batch))).rejects.toThrow('state store unavailable');
    await consumer.handleBatch(consumed(batch));
    expect(await state.getSpend('k1', 'u1')).toEqual({ keyNanoUsd: 1_200_000n, userNanoUsd: 600_000n });
  });

  it('does nothing for a batch without usage events', async () => {
    const { analytics, state, consumer } = setup();
    await consumer.handleBatch(consumed([{ type: 'RequestCompleted', event: requestCompleted() }]));
    await consumer.handleBatch(consumed([]));
    expect(analytics.inserts).toHaveLength(0);
    expect(state.calls).toHaveLength(0);
  });
});
