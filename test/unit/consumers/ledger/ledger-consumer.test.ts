import { describe, expect, it } from 'vitest';
import { createLedgerConsumer } from '../../../../consumers/ledger/ledger-consumer.ts';
import { TOPICS } from '../../../../schemas/topics.ts';
import { createFakeAnalyticsStore } from '../billing/fake-analytics-store.ts';
import { PRICES } from '../billing/priced-cases.ts';
import { requestCompleted, usageRecorded } from '../billing/traffic-event-builders.ts';

describe('createLedgerConsumer (fake store)', () => {
  it('inserts one consumption_log row per RequestCompleted, in one insert per batch, ignoring other events', async () => {
    const analytics = createFakeAnalyticsStore();
    const warnings: string[] = [];
    const consumer = createLedgerConsumer({ analytics, prices: PRICES, onWarning: (m) => warnings.push(m) });
    expect(consumer.name).toBe('ledger');
    expect(consumer.topics).toEqual([TOPICS.requests]);
    const requests = [requestCompleted(), requestCompleted({ upstreamModel: 'unpriced-model', channelId: 'ch-z' }), requestCompleted({ upstreamModel: 'unpriced-model', channelId: 'ch-z' })];
    await consumer.handleBatch([
      { type: 'RequestCompleted', event: requests[0]! },
      { type: 'UsageRecorded', event: usageRecorded() },
      { type: 'RequestCompleted', event: requests[1]! },
      { type: 'RequestCompleted', event: requests[2]! },
    ]);
    expect(analytics.inserts).toHaveLength(1);
    expect(analytics.inserts[0]?.table).toBe('consumption_log');
    expect(analytics.inserts[0]?.rows.map((r) => r.event_id)).toEqual(requests.map((r) => r.eventId));
    expect(warnings).toEqual(['no price for model "unpriced-model" on channel "ch-z": 2 request(s) costed at 0']);
  });

  it('rejects when the insert fails (so the runner redelivers) and skips empty batches', async () => {
    const analytics = createFakeAnalyticsStore();
    const consumer = createLedgerConsumer({ analytics, prices: PRICES });
    analytics.failNext = 1;
    await expect(consumer.handleBatch([{ type: 'RequestCompleted', event: requestCompleted() }])).rejects.toThrow('Connection refused');
    await consumer.handleBatch([{ type: 'UsageRecorded', event: usageRecorded() }]);
    expect(analytics.inserts).toHaveLength(0);
  });
});
