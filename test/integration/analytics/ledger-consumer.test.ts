import { consumed, staticPriceSource } from '../../unit/consumers/consumed-events.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedgerConsumer } from '../../../consumers/ledger/ledger-consumer.ts';
import type { AnalyticsStore } from '../../../schemas/analytics/analytics-store.ts';
import { migrate } from '../../../infra/analytics/migrate.ts';
import type { TrafficEvent } from '../../../schemas/events/traffic-events.ts';
import {
  PRICED_CASES,
  PRICED_CASES_TOTAL_NANO,
  PRICES,
  UNPRICED_WARNING,
} from '../../unit/consumers/billing/priced-cases.ts';
import { requestCompleted, usage, usageRecorded } from '../../unit/consumers/billing/traffic-event-builders.ts';
import { ANALYTICS_ENGINES, decimalNano, type TestAnalyticsStore } from './analytics-engines.ts';

interface Totals {
  rows: string;
  cost: string;
}

async function totals(store: AnalyticsStore): Promise<{ rows: number; costNano: bigint }> {
  const [row] = await store.query<Totals>(
    'SELECT count() AS rows, toString(sum(cost_usd)) AS cost FROM consumption_log FINAL',
  );
  return { rows: Number(row?.rows), costNano: decimalNano(row?.cost) };
}

describe.each(ANALYTICS_ENGINES)('ledger consumer on $name', (engine) => {
  let opened: TestAnalyticsStore;
  let store: AnalyticsStore;
  const warnings: string[] = [];
  const requests = PRICED_CASES.map((c) =>
    requestCompleted({
      upstreamModel: c.upstreamModel,
      channelId: c.channelId,
      occurredAt: c.occurredAt,
      usage: c.usage,
    }),
  );
  const refused = requestCompleted({
    userId: null,
    channelId: null,
    provider: null,
    upstreamModel: null,
    status: 'failed',
    httpStatus: 401,
    errorKind: 'unauthenticated',
    ttfbMs: null,
    attempts: 0,
    usage: usage({ inputTokens: 0, outputTokens: 0 }),
  });
  const batch: TrafficEvent[] = [...requests, refused].flatMap((event, i) => [
    { type: 'RequestCompleted' as const, event },
    ...(i % 3 === 0 ? [{ type: 'UsageRecorded' as const, event: usageRecorded() }] : []),
  ]);
  const N = requests.length + 1;

  beforeAll(async () => {
    opened = await engine.open();
    store = opened.store;
    await migrate(store);
  });
  afterAll(async () => opened?.dispose());

  it(`writes N = ${PRICED_CASES.length + 1} rows for N requests, each costed exactly by the price book`, async () => {
    const consumer = createLedgerConsumer({
      analytics: store,
      prices: staticPriceSource(PRICES),
      onWarning: (m) => warnings.push(m),
    });
    await consumer.handleBatch(consumed(batch));
    expect(await totals(store)).toEqual({ rows: N, costNano: PRICED_CASES_TOTAL_NANO });
    const rows = await store.query<{ event_id: string; cost: string }>(
      'SELECT event_id, toString(cost_usd) AS cost FROM consumption_log FINAL',
    );
    const costs = new Map(rows.map((r) => [r.event_id, decimalNano(r.cost)]));
    PRICED_CASES.forEach((c, i) =>
      expect({ name: c.name, cost: costs.get(requests[i]!.eventId) }).toEqual({ name: c.name, cost: c.costNano }),
    );
    expect(costs.get(refused.eventId)).toBe(0n);
    expect(warnings).toEqual([UNPRICED_WARNING]);
  });

  it('stores every column as the analysts read it', async () => {
    const [row] = await store.query(
      `SELECT event_id, request_id, toString(occurred_at) AS occurred_at, occurred_at_ms, key_id, user_id, model, upstream_model, channel_id, provider, client_format,
              stream, status, error_kind, http_status, input_tokens, cached_input_tokens, cache_write_tokens, output_tokens, reasoning_tokens, usage_source,
              toString(cost_usd) AS cost_usd, latency_ms, ttfb_ms, attempts
       FROM consumption_log FINAL WHERE event_id = '${requests[4]!.eventId}'`,
    );
    const r = requests[4]!;
    expect({ ...row, cost_usd: decimalNano(row?.cost_usd) }).toEqual({
      event_id: r.eventId,
      request_id: r.requestId,
      occurred_at: '2025-06-15 12:00:00',
      occurred_at_ms: String(Date.UTC(2025, 5, 15, 12)),
      key_id: 'key-1',
      user_id: 'user-1',
      model: 'client-model',
      upstream_model: 'cache-model',
      channel_id: 'ch-a',
      provider: 'openai',
      client_format: 'openai-chat',
      stream: 0,
      status: 'completed',
      error_kind: '',
      http_status: 200,
      input_tokens: '10000',
      cached_input_tokens: '6000',
      cache_write_tokens: '2000',
      output_tokens: '300',
      reasoning_tokens: '100',
      usage_source: 'reported',
      cost_usd: 19_800_000n,
      latency_ms: '420',
      ttfb_ms: '180',
      attempts: 1,
    });
    const [failed] = await store.query(
      `SELECT user_id, upstream_model, status, error_kind, http_status, ttfb_ms FROM consumption_log FINAL WHERE event_id = '${refused.eventId}'`,
    );
    expect(failed).toEqual({
      user_id: '',
      upstream_model: '',
      status: 'failed',
      error_kind: 'unauthenticated',
      http_status: 401,
      ttfb_ms: null,
    });
  });

  it('changes no count or sum when the same batch is delivered again (and again)', async () => {
    const consumer = createLedgerConsumer({ analytics: store, prices: staticPriceSource(PRICES) });
    const before = await totals(store);
    await consumer.handleBatch(consumed(batch));
    await consumer.handleBatch(consumed(batch.slice(0, 5)));
    expect(await totals(store)).toEqual(before);
    const [raw] = await store.query<{ n: string }>('SELECT count() AS n FROM consumption_log');
    expect(Number(raw?.n)).toBeGreaterThanOrEqual(N); // the duplicates may still be stored; FINAL hides them
    const [distinct] = await store.query<{ n: string }>('SELECT uniqExact(event_id) AS n FROM consumption_log');
    expect(Number(distinct?.n)).toBe(N);
  });
});
