import { consumed, staticPriceSource } from '../consumed-events.ts';
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
    const consumer = createLedgerConsumer({
      analytics,
      prices: staticPriceSource(PRICES),
      onWarning: (m) => warnings.push(m),
    });
    expect(consumer.name).toBe('ledger');
    expect(consumer.topics).toEqual([TOPICS.requests]);
    const requests = [
      requestCompleted(),
      requestCompleted({ upstreamModel: 'unpriced-model', channelId: 'ch-z' }),
      requestCompleted({ upstreamModel: 'unpriced-model', channelId: 'ch-z' }),
    ];
    await consumer.handleBatch(
      consumed([
        { type: 'RequestCompleted', event: requests[0]! },
        { type: 'UsageRecorded', event: usageRecorded() },
        { type: 'RequestCompleted', event: requests[1]! },
        { type: 'RequestCompleted', event: requests[2]! },
      ]),
    );
    expect(analytics.inserts).toHaveLength(1);
    expect(analytics.inserts[0]?.table).toBe('consumption_log');
    expect(analytics.inserts[0]?.rows.map((r) => r.event_id)).toEqual(requests.map((r) => r.eventId));
    expect(warnings).toEqual(['no price for model "unpriced-model" on channel "ch-z": 2 request(s) costed at 0']);
  });

  it('stamps every row of a batch with one ingested_at_ms, read from the clock once per batch', async () => {
    const analytics = createFakeAnalyticsStore();
    const clock = [1_750_000_000_100, 1_750_000_000_900];
    let reads = 0;
    const consumer = createLedgerConsumer({
      analytics,
      prices: staticPriceSource(PRICES),
      now: () => clock[reads++] ?? Number.NaN,
    });
    await consumer.handleBatch(consumed([{ type: 'UsageRecorded', event: usageRecorded() }]));
    expect(reads).toBe(0); // no RequestCompleted: nothing built, clock untouched
    await consumer.handleBatch(
      consumed([
        { type: 'RequestCompleted', event: requestCompleted() },
        { type: 'RequestCompleted', event: requestCompleted() },
      ]),
    );
    await consumer.handleBatch(consumed([{ type: 'RequestCompleted', event: requestCompleted() }]));
    expect(analytics.inserts.map((insert) => insert.rows.map((row) => row.ingested_at_ms))).toEqual([
      [1_750_000_000_100, 1_750_000_000_100],
      [1_750_000_000_900],
    ]);
  });

  it('defaults ingested_at_ms to the wall clock', async () => {
    const analytics = createFakeAnalyticsStore();
    const before = Date.now();
    await createLedgerConsumer({ analytics, prices: staticPriceSource(PRICES) }).handleBatch(
      consumed([{ type: 'RequestCompleted', event: requestCompleted() }]),
    );
    const stamped = analytics.inserts[0]?.rows[0]?.ingested_at_ms as number;
    expect(stamped).toBeGreaterThanOrEqual(before);
    expect(stamped).toBeLessThanOrEqual(Date.now());
  });

  it('rejects when the insert fails (so the runner redelivers) and skips empty batches', async () => {
    const analytics = createFakeAnalyticsStore();
    const consumer = createLedgerConsumer({ analytics, prices: staticPriceSource(PRICES) });
    analytics.failNext = 1;
    await expect(
      consumer.handleBatch(consumed([{ type: 'RequestCompleted', event: requestCompleted() }])),
    ).rejects.toThrow('Connection refused');
    await consumer.handleBatch(consumed([{ type: 'UsageRecorded', event: usageRecorded() }]));
    expect(analytics.inserts).toHaveLength(0);
  });
});
