import { randomUUID } from 'node:crypto';
import { consumed, staticPriceSource } from '../../unit/consumers/consumed-events.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBillingConsumer } from '../../../consumers/billing/billing-consumer.ts';
import type { AnalyticsStore } from '../../../schemas/analytics/analytics-store.ts';
import { migrate } from '../../../infra/analytics/migrate.ts';
import type { TrafficEvent, UsageRecorded } from '../../../schemas/events/traffic-events.ts';
import { createFakeSpendStore } from '../../unit/consumers/billing/fake-spend-store.ts';
import {
  PRICED_CASES,
  PRICED_CASES_TOTAL_NANO,
  PRICES,
  SWITCH_AT,
  UNPRICED_WARNING,
} from '../../unit/consumers/billing/priced-cases.ts';
import { requestCompleted, usageRecorded } from '../../unit/consumers/billing/traffic-event-builders.ts';
import { ANALYTICS_ENGINES, decimalNano, type TestAnalyticsStore } from './analytics-engines.ts';

const KEYS = ['key-a', 'key-b'];
const USERS = [null, 'user-x', 'user-y'];

/** PRICED_CASES as usage events spread over two keys, two users (and none) and three days. */
const events: UsageRecorded[] = PRICED_CASES.map((c, i) =>
  usageRecorded({
    keyId: KEYS[i % 2]!,
    userId: USERS[i % 3]!,
    upstreamModel: c.upstreamModel,
    channelId: c.channelId,
    occurredAt: c.occurredAt,
    ...c.usage,
  }),
);
const batch: TrafficEvent[] = [
  ...events.map((event) => ({ type: 'UsageRecorded' as const, event })),
  { type: 'RequestCompleted', event: requestCompleted() },
];

interface SpendRow {
  day: string;
  group: string;
  requests: number;
  tokens: number;
  costNano: bigint;
}

/** The expected view rows, summed here from the hand-worked costs. */
function expectedSpend(groupOf: (e: UsageRecorded) => string | null): SpendRow[] {
  const rows = new Map<string, SpendRow>();
  events.forEach((e, i) => {
    const group = groupOf(e);
    if (group === null) return;
    const day = new Date(e.occurredAt).toISOString().slice(0, 10);
    const row = rows.get(`${day}|${group}`) ?? { day, group, requests: 0, tokens: 0, costNano: 0n };
    rows.set(`${day}|${group}`, {
      ...row,
      requests: row.requests + 1,
      tokens: row.tokens + e.inputTokens + e.outputTokens,
      costNano: row.costNano + PRICED_CASES[i]!.costNano,
    });
  });
  return [...rows.values()].sort((a, b) => `${a.day}|${a.group}`.localeCompare(`${b.day}|${b.group}`));
}

async function spend(store: AnalyticsStore, view: string, column: string): Promise<SpendRow[]> {
  const rows = await store.query<{ day: string; group: string; requests: string; tokens: string; cost: string }>(
    `SELECT toString(day) AS day, ${column} AS group, requests, tokens, toString(cost_usd) AS cost FROM ${view} ORDER BY day, ${column}`,
  );
  return rows.map((r) => ({
    day: r.day,
    group: r.group,
    requests: Number(r.requests),
    tokens: Number(r.tokens),
    costNano: decimalNano(r.cost),
  }));
}

async function allSpend(store: AnalyticsStore) {
  return {
    byKey: await spend(store, 'spend_by_key_day', 'key_id'),
    byUser: await spend(store, 'spend_by_user_day', 'user_id'),
    byModel: await spend(store, 'spend_by_model_day', 'upstream_model'),
  };
}

describe.each(ANALYTICS_ENGINES)('billing consumer on $name', (engine) => {
  let opened: TestAnalyticsStore;
  let store: AnalyticsStore;
  const state = createFakeSpendStore();
  const warnings: string[] = [];

  beforeAll(async () => {
    opened = await engine.open();
    store = opened.store;
    await migrate(store);
  });
  afterAll(async () => opened?.dispose());

  it('writes one billing line per usage event with the price it used', async () => {
    await createBillingConsumer({
      analytics: store,
      state,
      prices: staticPriceSource(PRICES),
      onWarning: (m) => warnings.push(m),
    }).handleBatch(consumed(batch));
    const lines = await store.query<Record<string, string | number>>(
      `SELECT event_id, toString(day) AS day, toString(cost_usd) AS cost, price_model, price_channel, toString(price_effective_from_ms) AS from_ms,
              toString(input_per_mtok) AS input, toString(output_per_mtok) AS output, toString(cache_read_per_mtok) AS cache_read,
              toString(cache_write_per_mtok) AS cache_write, priced
       FROM billing_lines FINAL`,
    );
    expect(lines).toHaveLength(PRICED_CASES.length);
    const byEvent = new Map(lines.map((l) => [l.event_id, l]));
    PRICED_CASES.forEach((c, i) => {
      const line = byEvent.get(events[i]!.eventId)!;
      const price = c.price;
      expect({
        name: c.name,
        day: line.day,
        cost: decimalNano(line.cost),
        priced: line.priced,
        price: [
          line.price_model,
          line.price_channel,
          Number(line.from_ms),
          ...[line.input, line.output, line.cache_read, line.cache_write].map(decimalNano),
        ],
      }).toEqual({
        name: c.name,
        day: new Date(c.occurredAt).toISOString().slice(0, 10),
        cost: c.costNano,
        priced: price ? 1 : 0,
        price: price
          ? [
              c.upstreamModel,
              price.channel,
              price.effectiveFromMs,
              price.inputNano,
              price.outputNano,
              price.cacheReadNano,
              price.cacheWriteNano,
            ]
          : ['', '', 0, 0n, 0n, 0n, 0n],
      });
    });
    expect(byEvent.get(events[3]!.eventId)?.from_ms).toBe(String(SWITCH_AT));
    expect(warnings).toEqual([UNPRICED_WARNING]);
  });

  it('projects spend per key, user and model per day that add up to the price book', async () => {
    const spendNow = await allSpend(store);
    expect(spendNow.byKey).toEqual(expectedSpend((e) => e.keyId));
    expect(spendNow.byUser).toEqual(expectedSpend((e) => e.userId));
    expect(spendNow.byModel).toEqual(expectedSpend((e) => e.upstreamModel));
    expect(spendNow.byKey.reduce((sum, r) => sum + r.costNano, 0n)).toBe(PRICED_CASES_TOTAL_NANO);
    expect(spendNow.byKey.map((r) => r.day)).toEqual(
      expect.arrayContaining(['2025-05-31', '2025-06-01', '2025-06-15']),
    );
  });

  it('adds each cost to the key and user spend counters once', async () => {
    for (const keyId of KEYS) {
      const expected = events.reduce((sum, e, i) => (e.keyId === keyId ? sum + PRICED_CASES[i]!.costNano : sum), 0n);
      expect((await state.getSpend(keyId, null)).keyNanoUsd).toBe(expected);
    }
    for (const userId of ['user-x', 'user-y']) {
      const expected = events.reduce((sum, e, i) => (e.userId === userId ? sum + PRICED_CASES[i]!.costNano : sum), 0n);
      expect((await state.getSpend('none', userId)).userNanoUsd).toBe(expected);
    }
  });

  it('changes no line, view total or counter when the batch is delivered twice more', async () => {
    const linesBefore = await store.query(
      'SELECT count() AS n, toString(sum(cost_usd)) AS cost FROM billing_lines FINAL',
    );
    const spendBefore = await allSpend(store);
    const countersBefore = await Promise.all(KEYS.map((k) => state.getSpend(k, 'user-x')));
    const consumer = createBillingConsumer({ analytics: store, state, prices: staticPriceSource(PRICES) });
    await consumer.handleBatch(consumed(batch));
    await consumer.handleBatch(consumed(batch));
    expect(await store.query('SELECT count() AS n, toString(sum(cost_usd)) AS cost FROM billing_lines FINAL')).toEqual(
      linesBefore,
    );
    expect(await allSpend(store)).toEqual(spendBefore);
    expect(await Promise.all(KEYS.map((k) => state.getSpend(k, 'user-x')))).toEqual(countersBefore);
    expect(state.calls.length).toBe(PRICED_CASES.length - 1); // the redeliveries find the lines stored: not offered again
  });

  it('bills a batch of 10 000 usage events (the default batch size) once, and finds every line on redelivery', async () => {
    // Event ids are UUIDs as the gateway makes them: listed in one lookup they would pass
    // ClickHouse's max_query_size (256 KiB) and the batch would never be billed.
    const bulkState = createFakeSpendStore();
    const consumer = createBillingConsumer({ analytics: store, state: bulkState, prices: staticPriceSource(PRICES) });
    const bulk = consumed(
      Array.from({ length: 10_000 }, (_, i) => ({
        type: 'UsageRecorded' as const,
        event: usageRecorded({
          eventId: randomUUID(),
          keyId: `key-bulk-${i % 50}`,
          userId: 'user-bulk',
          upstreamModel: 'priced-model',
          channelId: 'ch-a',
        }),
      })),
    );
    await consumer.handleBatch(bulk);
    await consumer.handleBatch(bulk);
    const [row] = await store.query<{ n: string }>(
      `SELECT toString(count()) AS n FROM billing_lines WHERE user_id = 'user-bulk'`,
    );
    expect(row).toEqual({ n: '10000' });
    expect(bulkState.calls.length).toBe(10_000);
    expect((await bulkState.getSpend('none', 'user-bulk')).userNanoUsd).toBe(10_000n * 600_000n);
  });

  it('bills an event that reached the topic twice, at two offsets, once', async () => {
    const dupState = createFakeSpendStore();
    const consumer = createBillingConsumer({ analytics: store, state: dupState, prices: staticPriceSource(PRICES) });
    const event = usageRecorded({
      keyId: 'key-dup',
      userId: 'user-dup',
      upstreamModel: 'priced-model',
      channelId: 'ch-a',
    });
    const first = consumed([{ type: 'UsageRecorded', event }]);
    // The same event again, later in the partition (a publish that timed out but had landed, re-sent from the spool).
    const again = first.map((item) => ({
      ...item,
      position: { ...item.position, offset: String(Number(item.position.offset) + 1_000_000) },
    }));
    await consumer.handleBatch(first);
    await consumer.handleBatch(again);
    await consumer.handleBatch([
      ...again,
      ...again.map((item) => ({
        ...item,
        position: { ...item.position, offset: String(Number(item.position.offset) + 1) },
      })),
    ]);
    expect(await dupState.getSpend('key-dup', 'user-dup')).toEqual({ keyNanoUsd: 600_000n, userNanoUsd: 600_000n });
    const [row] = await store.query<{ n: string; requests: string }>(
      `SELECT toString(count()) AS n, toString((SELECT sum(requests) FROM spend_by_key_day WHERE key_id = 'key-dup')) AS requests FROM billing_lines WHERE key_id = 'key-dup'`,
    );
    expect(row).toEqual({ n: '1', requests: '1' });
  });
});
