/**
 * The console's analytics reads on both engines (ClickHouse 18.16 from CLICKHOUSE_URL, and chdb):
 * the consumption log with every filter, newest first with pagination and totals, a request's
 * detail with its billing line, the spend dashboard with exact decimal costs, spend by team, tag
 * and end user (from the summing tables, or the billing lines of some teams), last use per key —
 * with a redelivered row counted once (FINAL) and filter values that try to break out of their
 * SQL literal matching nothing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Decimal, type AnalyticsValue } from '../../../schemas/analytics/analytics-store.ts';
import { migrate } from '../../../infra/analytics/migrate.ts';
import {
  queryAttributionSpend,
  queryCacheEconomics,
  queryLastUsed,
  querySpendSummary,
  queryUsageDetail,
  queryUsagePage,
  type UsageFilter,
} from '../../../gateway/console/usage-queries.ts';
import { ANALYTICS_ENGINES, type TestAnalyticsStore } from '../analytics/analytics-engines.ts';

const T0 = Date.parse('2026-11-20T10:00:00Z');
const DAY = 24 * 3600 * 1000;
const ALL: UsageFilter = { fromMs: T0 - 10 * DAY, toMs: T0 + 10 * DAY };

interface RowSpec {
  readonly n: number;
  readonly at: number;
  readonly key: string;
  readonly user: string;
  readonly model: string;
  readonly channel: string;
  readonly status: 'completed' | 'failed' | 'cancelled';
  readonly source: 'reported' | 'estimated' | 'partial';
  /** nano-USD */
  readonly cost: bigint;
  readonly team?: string;
  readonly endUser?: string;
  readonly tags?: ReadonlyArray<string>;
}

const ROWS: ReadonlyArray<RowSpec> = [
  {
    n: 1,
    at: T0,
    key: 'key_a',
    user: 'usr_1',
    model: 'gpt-4o',
    channel: 'openai-1',
    status: 'completed',
    source: 'reported',
    cost: 100_000_000n,
    team: 'team_a',
    endUser: 'eu_1',
    tags: ['feature=search', 'env=prod'],
  },
  {
    n: 2,
    at: T0 + 1000,
    key: 'key_a',
    user: 'usr_1',
    model: 'gpt-4o',
    channel: 'openai-2',
    status: 'failed',
    source: 'reported',
    cost: 0n,
    team: 'team_a',
    endUser: 'eu_1',
  },
  {
    n: 3,
    at: T0 + 2000,
    key: 'key_b',
    user: 'usr_2',
    model: 'claude',
    channel: 'anthropic-1',
    status: 'completed',
    source: 'estimated',
    cost: 1n,
    team: 'team_b',
    endUser: 'eu_2',
    tags: ['feature=chat'],
  },
  {
    n: 4,
    at: T0 + DAY,
    key: 'key_b',
    user: 'usr_2',
    model: 'claude',
    channel: 'anthropic-1',
    status: 'cancelled',
    source: 'partial',
    cost: 2_500_000_000n,
    team: 'team_b',
    tags: ['feature=chat'],
  },
  {
    n: 5,
    at: T0 + DAY + 1,
    key: 'key_c',
    user: '',
    model: 'gpt-4o',
    channel: 'openai-1',
    status: 'completed',
    source: 'reported',
    cost: 7n,
  },
];

/** The columns consumption_log and billing_lines share, for one request (same values in both). */
function requestColumns(r: RowSpec): Record<string, AnalyticsValue> {
  return {
    request_id: `req_${r.n}`,
    occurred_at: Math.floor(r.at / 1000),
    occurred_at_ms: r.at,
    key_id: r.key,
    user_id: r.user,
    team_id: r.team ?? '',
    end_user_id: r.endUser ?? '',
    tags: r.tags ?? [],
    model: r.model,
    upstream_model: `${r.model}-up`,
    channel_id: r.channel,
    provider: r.channel.split('-')[0]!,
    input_tokens: 10 * r.n,
    cached_input_tokens: r.n,
    cache_write_tokens: 0,
    output_tokens: 5 * r.n,
    reasoning_tokens: 0,
    usage_source: r.source,
    cost_usd: new Decimal(r.cost),
  };
}

function consumptionRow(r: RowSpec): Record<string, AnalyticsValue> {
  return {
    ...requestColumns(r),
    event_id: `ev_${r.n}`,
    client_format: 'openai-chat',
    stream: r.n % 2,
    pass_through: 0,
    status: r.status,
    error_kind: r.status === 'failed' ? 'upstream-unavailable' : '',
    http_status: r.status === 'failed' ? 502 : 200,
    latency_ms: 100 + r.n,
    ttfb_ms: r.status === 'failed' ? null : 10 + r.n,
    attempts: r.status === 'failed' ? 2 : 1,
  };
}

function billingRow(r: RowSpec): Record<string, AnalyticsValue> {
  return {
    ...requestColumns(r),
    event_id: `bill_${r.n}`,
    day: new Date(r.at).toISOString().slice(0, 10),
    price_model: `${r.model}-up`,
    price_channel: '',
    price_effective_from_ms: 0,
    input_per_mtok: new Decimal(2_500_000_000n),
    output_per_mtok: new Decimal(10_000_000_000n),
    cache_read_per_mtok: new Decimal(1_250_000_000n),
    cache_write_per_mtok: new Decimal(2_500_000_000n),
    cache_write_1h_per_mtok: new Decimal(5_000_000_000n),
    cache_write_tokens: 2 * r.n,
    cache_write_1h_tokens: r.n,
    // r.n cached tokens × (2.5 − 1.25) USD per million tokens
    cache_savings_usd: new Decimal(BigInt(r.n) * 1_250n),
    priced: 1,
  };
}

describe.each(ANALYTICS_ENGINES)('console usage queries on $name', (engine) => {
  let test: TestAnalyticsStore;

  beforeAll(async () => {
    test = await engine.open();
    await migrate(test.store);
    await test.store.insert('consumption_log', ROWS.map(consumptionRow));
    await test.store.insert('consumption_log', [consumptionRow(ROWS[0]!)]); // a redelivery of the same event
    await test.store.insert('billing_lines', ROWS.filter((r) => r.status !== 'failed').map(billingRow));
  }, 120_000);

  afterAll(async () => {
    await test?.dispose();
  });

  it('lists the log newest first with exact totals, once per event', async () => {
    const page = await queryUsagePage(test.store, ALL, { offset: 0, limit: 2 });
    expect(page.total).toBe(5);
    expect(page.rows.map((r) => r.requestId)).toEqual(['req_5', 'req_4']);
    const next = await queryUsagePage(test.store, ALL, { offset: 2, limit: 2 });
    expect(next.rows.map((r) => r.requestId)).toEqual(['req_3', 'req_2']);
    const last = await queryUsagePage(test.store, ALL, { offset: 4, limit: 2 });
    expect(last.rows.map((r) => r.requestId)).toEqual(['req_1']);
    expect(last.rows[0]).toEqual({
      eventId: 'ev_1',
      requestId: 'req_1',
      occurredAt: new Date(T0).toISOString(),
      keyId: 'key_a',
      userId: 'usr_1',
      teamId: 'team_a',
      endUserId: 'eu_1',
      tags: ['feature=search', 'env=prod'],
      model: 'gpt-4o',
      upstreamModel: 'gpt-4o-up',
      channelId: 'openai-1',
      provider: 'openai',
      clientFormat: 'openai-chat',
      stream: true,
      status: 'completed',
      errorKind: null,
      httpStatus: 200,
      inputTokens: 10,
      cachedInputTokens: 1,
      cacheWriteTokens: 0,
      outputTokens: 5,
      reasoningTokens: 0,
      usageSource: 'reported',
      costUsd: '0.1',
      latencyMs: 101,
      ttfbMs: 11,
      attempts: 1,
    });
    const failed = next.rows.find((r) => r.requestId === 'req_2')!;
    expect(failed).toMatchObject({
      status: 'failed',
      errorKind: 'upstream-unavailable',
      httpStatus: 502,
      ttfbMs: null,
      attempts: 2,
      costUsd: '0',
    });
  });

  it('filters by key, user, model, channel, status and time range', async () => {
    const ids = async (filter: Partial<UsageFilter>) =>
      (await queryUsagePage(test.store, { ...ALL, ...filter }, { offset: 0, limit: 50 })).rows
        .map((r) => r.requestId)
        .sort();
    expect(await ids({ keyId: 'key_a' })).toEqual(['req_1', 'req_2']);
    expect(await ids({ userId: 'usr_2' })).toEqual(['req_3', 'req_4']);
    expect(await ids({ model: 'gpt-4o' })).toEqual(['req_1', 'req_2', 'req_5']);
    expect(await ids({ channelId: 'anthropic-1' })).toEqual(['req_3', 'req_4']);
    expect(await ids({ teamId: 'team_a' })).toEqual(['req_1', 'req_2']);
    expect(await ids({ status: 'completed' })).toEqual(['req_1', 'req_3', 'req_5']);
    expect(await ids({ fromMs: T0 + 1000, toMs: T0 + DAY })).toEqual(['req_2', 'req_3']);
    expect(await ids({ keyId: "key_a' OR '1'='1" })).toEqual([]);
    expect(await ids({ model: 'gpt-4o\\' })).toEqual([]);
  });

  it('shows one request with its billing line, and none for a failed one', async () => {
    const detail = await queryUsageDetail(test.store, 'req_4');
    expect(detail.row).toMatchObject({
      requestId: 'req_4',
      status: 'cancelled',
      usageSource: 'partial',
      costUsd: '2.5',
    });
    expect(detail.billing).toMatchObject({
      eventId: 'bill_4',
      costUsd: '2.5',
      priced: true,
      priceModel: 'claude-up',
      priceChannel: null,
      priceEffectiveFrom: '1970-01-01T00:00:00.000Z',
    });
    expect(detail.billing).toMatchObject({
      inputPerMTok: '2.5',
      outputPerMTok: '10',
      cacheReadPerMTok: '1.25',
      cacheWritePerMTok: '2.5',
    });
    const failed = await queryUsageDetail(test.store, 'req_2');
    expect(failed.billing).toBeNull();
    expect((await queryUsageDetail(test.store, 'req_nope')).row).toBeUndefined();
  });

  it('sums spend exactly by day and model, top keys and models, and usage sources', async () => {
    const spend = await querySpendSummary(test.store, ALL);
    expect(spend.totals).toEqual({
      requests: 5,
      inputTokens: 150,
      outputTokens: 75,
      costUsd: '2.600000008',
      estimatedRequests: 1,
    });
    expect(spend.daily).toEqual([
      { day: '2026-11-20', model: 'claude', costUsd: '0.000000001', requests: 1, inputTokens: 30, outputTokens: 15 },
      { day: '2026-11-20', model: 'gpt-4o', costUsd: '0.1', requests: 2, inputTokens: 30, outputTokens: 15 },
      { day: '2026-11-21', model: 'claude', costUsd: '2.5', requests: 1, inputTokens: 40, outputTokens: 20 },
      { day: '2026-11-21', model: 'gpt-4o', costUsd: '0.000000007', requests: 1, inputTokens: 50, outputTokens: 25 },
    ]);
    expect(spend.topKeys).toEqual([
      { keyId: 'key_b', costUsd: '2.500000001', requests: 2 },
      { keyId: 'key_a', costUsd: '0.1', requests: 2 },
      { keyId: 'key_c', costUsd: '0.000000007', requests: 1 },
    ]);
    expect(spend.topModels).toEqual([
      { model: 'claude', costUsd: '2.500000001', requests: 2 },
      { model: 'gpt-4o', costUsd: '0.100000007', requests: 3 },
    ]);
    expect(spend.usageSources).toEqual([
      { source: 'estimated', requests: 1 },
      { source: 'partial', requests: 1 },
      { source: 'reported', requests: 3 },
    ]);
    const mine = await querySpendSummary(test.store, { ...ALL, userId: 'usr_1', status: 'completed' });
    expect(mine.totals).toMatchObject({ requests: 2, costUsd: '0.1' });
  });

  it('sums the cache economics per channel, model, key and team, with the hit rate from the sums', async () => {
    const billed = ROWS.filter((r) => r.status !== 'failed');
    const days = { fromDay: '2026-11-10', toDay: '2026-11-30' };
    const report = await queryCacheEconomics(test.store, days);
    const sum = (rows: ReadonlyArray<RowSpec>, f: (r: RowSpec) => number) => rows.reduce((a, r) => a + f(r), 0);
    expect(report.totals).toMatchObject({
      requests: billed.length,
      inputTokens: sum(billed, (r) => 10 * r.n),
      cachedInputTokens: sum(billed, (r) => r.n),
      cacheWriteTokens: sum(billed, (r) => 2 * r.n),
      cacheWrite1hTokens: sum(billed, (r) => r.n),
      hitRate: 0.1,
      savingsUsd: String(sum(billed, (r) => r.n * 1250) / 1e9),
    });
    const teamA = report.byTeam.find((t) => t.teamId === 'team_a');
    const teamARows = billed.filter((r) => r.team === 'team_a');
    expect(teamA).toMatchObject({ requests: teamARows.length, hitRate: 0.1 });
    expect(report.byChannel.map((c) => c.channelId).sort()).toEqual([...new Set(billed.map((r) => r.channel))].sort());
    expect(report.byModel.map((m) => m.upstreamModel).sort()).toEqual(
      [...new Set(billed.map((r) => `${r.model}-up`))].sort(),
    );
    // largest savings first
    const savings = report.byKey.map((k) => Number(k.savingsUsd));
    expect(savings).toEqual([...savings].sort((a, b) => b - a));

    const narrowed = await queryCacheEconomics(test.store, { ...days, teamIds: ['team_a'], keyIds: [] });
    expect(narrowed.totals.requests).toBe(teamARows.length);
    expect(narrowed.byTeam.map((t) => t.teamId)).toEqual(['team_a']);
    expect((await queryCacheEconomics(test.store, { ...days, teamIds: [], keyIds: [] })).totals.requests).toBe(0);
    expect(
      (await queryCacheEconomics(test.store, { ...days, teamIds: ["team_a') OR 1=1 OR (team_id = '"] })).totals
        .requests,
    ).toBe(0);
    expect(
      (await queryCacheEconomics(test.store, { fromDay: '2020-01-01', toDay: '2020-01-02' })).totals,
    ).toMatchObject({ requests: 0, hitRate: 0, savingsUsd: '0', costUsd: '0' });
  });

  it('sums spend by team, tag and end user from the summing tables, and for some teams from the billing lines', async () => {
    const days = { fromDay: '2026-11-10', toDay: '2026-11-30' };
    const everyone = await queryAttributionSpend(test.store, days);
    expect(everyone.byTeam).toEqual([
      { teamId: 'team_b', costUsd: '2.500000001', requests: 2, tokens: 105 },
      { teamId: 'team_a', costUsd: '0.1', requests: 1, tokens: 15 },
    ]);
    expect(everyone.byTag).toEqual([
      { tag: 'feature=chat', costUsd: '2.500000001', requests: 2, tokens: 105 },
      { tag: 'env=prod', costUsd: '0.1', requests: 1, tokens: 15 },
      { tag: 'feature=search', costUsd: '0.1', requests: 1, tokens: 15 },
    ]);
    expect(everyone.byEndUser).toEqual([
      { endUserId: 'eu_1', costUsd: '0.1', requests: 1, tokens: 15 },
      { endUserId: 'eu_2', costUsd: '0.000000001', requests: 1, tokens: 45 },
    ]);
    expect(everyone.dailyByTeam).toEqual([
      { day: '2026-11-20', teamId: 'team_a', costUsd: '0.1' },
      { day: '2026-11-20', teamId: 'team_b', costUsd: '0.000000001' },
      { day: '2026-11-21', teamId: 'team_b', costUsd: '2.5' },
    ]);
    // The same numbers from the billing lines when narrowed to teams (a redelivered line counts once).
    await test.store.insert('billing_lines', [billingRow(ROWS[2]!)]);
    const teamB = await queryAttributionSpend(test.store, { ...days, teamIds: ['team_b'] });
    expect(teamB).toEqual({
      byTeam: [{ teamId: 'team_b', costUsd: '2.500000001', requests: 2, tokens: 105 }],
      byTag: [{ tag: 'feature=chat', costUsd: '2.500000001', requests: 2, tokens: 105 }],
      byEndUser: [{ endUserId: 'eu_2', costUsd: '0.000000001', requests: 1, tokens: 45 }],
      dailyByTeam: [
        { day: '2026-11-20', teamId: 'team_b', costUsd: '0.000000001' },
        { day: '2026-11-21', teamId: 'team_b', costUsd: '2.5' },
      ],
    });
    const oneDay = await queryAttributionSpend(test.store, {
      fromDay: '2026-11-21',
      toDay: '2026-11-21',
      teamIds: ['team_a', 'team_b'],
    });
    expect(oneDay.byTeam).toEqual([{ teamId: 'team_b', costUsd: '2.5', requests: 1, tokens: 60 }]);
    expect(await queryAttributionSpend(test.store, { ...days, teamIds: [] })).toEqual({
      byTeam: [],
      byTag: [],
      byEndUser: [],
      dailyByTeam: [],
    });
    expect((await queryAttributionSpend(test.store, { ...days, teamIds: ["team_a' OR '1'='1"] })).byTeam).toEqual([]);
  });

  it('finds when each key was last used', async () => {
    const last = await queryLastUsed(test.store, ['key_a', 'key_b', 'key_never']);
    expect(Object.fromEntries(last)).toEqual({ key_a: T0 + 1000, key_b: T0 + DAY });
    expect((await queryLastUsed(test.store, [])).size).toBe(0);
  });
});
