/**
 * The order in which the config topic and the traffic topics reach the consumers cannot change a
 * bill: a usage event naming a price revision the consumers' fold has not applied yet waits for
 * it (and is then priced with it), and after the wait limit the batch is rejected — to be
 * redelivered — rather than billed without its price.
 */
import { describe, expect, it } from 'vitest';
import { createBillingConsumer } from '../../../../consumers/billing/billing-consumer.ts';
import { ConsumerControlPlane } from '../../../../consumers/control-plane/consumer-control-plane.ts';
import type { Decimal } from '../../../../schemas/analytics/analytics-store.ts';
import type { ControlEvent } from '../../../../schemas/control-plane/control-plane-events.ts';
import { consumed } from '../consumed-events.ts';
import { createFakeAnalyticsStore } from './fake-analytics-store.ts';
import { createFakeSpendStore } from './fake-spend-store.ts';
import { usageRecorded } from './traffic-event-builders.ts';

const priceSet = (inputPerMTok: number): ControlEvent => ({
  type: 'PriceSet',
  event: {
    eventId: `price-${inputPerMTok}`,
    occurredAt: 0,
    actor: 'cli',
    priceId: `priced-model|${inputPerMTok}`,
    model: 'priced-model',
    channel: null,
    inputPerMTok,
    outputPerMTok: 0,
    cacheReadPerMTok: null,
    cacheWritePerMTok: null,
    effectiveFrom: 0,
  },
});

describe('billing waits for the price revision its events name', () => {
  it('prices an event whose PriceSet arrives after it with that price', async () => {
    const controlPlane = new ConsumerControlPlane();
    controlPlane.applyBatch([priceSet(1)]);
    const analytics = createFakeAnalyticsStore();
    const consumer = createBillingConsumer({
      analytics,
      state: createFakeSpendStore(),
      prices: controlPlane,
      priceWaitMs: 5_000,
    });
    // 100 input tokens; revision 2 = the second PriceSet (10 USD per million input tokens)
    const handled = consumer.handleBatch(
      consumed([{ type: 'UsageRecorded', event: usageRecorded({ priceRevision: 2 }) }]),
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(analytics.inserts).toHaveLength(0);
    controlPlane.applyBatch([priceSet(10)]);
    await handled;
    expect((analytics.inserts[0]?.rows[0]?.cost_usd as Decimal).toString()).toBe('0.001000000');
  });

  it('rejects the batch after the wait limit instead of billing it without its price', async () => {
    const controlPlane = new ConsumerControlPlane();
    const analytics = createFakeAnalyticsStore();
    const consumer = createBillingConsumer({
      analytics,
      state: createFakeSpendStore(),
      prices: controlPlane,
      priceWaitMs: 50,
    });
    await expect(
      consumer.handleBatch(consumed([{ type: 'UsageRecorded', event: usageRecorded({ priceRevision: 1 }) }])),
    ).rejects.toThrow(/price revision 1 not applied within 50 ms/);
    expect(analytics.inserts).toHaveLength(0);
  });

  it('prices an event with a lower revision without the prices set after it', async () => {
    const controlPlane = new ConsumerControlPlane();
    controlPlane.applyBatch([priceSet(1), priceSet(10)]);
    const analytics = createFakeAnalyticsStore();
    const consumer = createBillingConsumer({ analytics, state: createFakeSpendStore(), prices: controlPlane });
    await consumer.handleBatch(consumed([{ type: 'UsageRecorded', event: usageRecorded({ priceRevision: 1 }) }]));
    expect((analytics.inserts[0]?.rows[0]?.cost_usd as Decimal).toString()).toBe('0.000100000');
  });
});
