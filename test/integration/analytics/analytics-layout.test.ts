/**
 * The analysts' layout (migrations 006–011) on both engines (ClickHouse 18.16 from CLICKHOUSE_URL,
 * and chdb): a database at 005 with rows (and redelivered events) upgrades with every row kept
 * once and the time-first sorting keys; an upgrade interrupted after any of its steps resumes;
 * the spend tables equal a GROUP BY over billing_lines FINAL to the nano-dollar, also across
 * inserts and merges; failovers and config_audit take the rows of their projections; every column
 * has a comment (the README's analyst queries: analyst-tables.test.ts).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { projectConfigAuditRow } from '../../../consumers/config-audit/project-config-audit-row.ts';
import type { AuditEntry } from '../../../schemas/control-plane/control-plane-records.ts';
import { projectFailoverRow } from '../../../consumers/failovers/project-failover-row.ts';
import { Decimal, type AnalyticsStore, type AnalyticsValue } from '../../../schemas/analytics/analytics-store.ts';
import { loadMigrations, type Migration } from '../../../infra/analytics/load-migrations.ts';
import { isVersionAtLeast, migrate } from '../../../infra/analytics/migrate.ts';
import type { FailoverOccurred } from '../../../schemas/events/traffic-events.ts';
import { ANALYTICS_ENGINES, decimalNano, type AnalyticsEngine, type TestAnalyticsStore } from './analytics-engines.ts';

const DAY_MS = 24 * 3600 * 1000;
const T0 = Date.parse('2026-10-30T22:00:00Z'); // the rows span two months (partitions)

/** The largest Decimal64(9): two of them on one day and key only fit a Decimal128 sum. */
const MAX_DECIMAL64_NANO = 999_999_999_999_999_999n;

const SORTING_KEYS: Record<string, string> = {
  consumption_log: 'toDate(occurred_at), key_id, model, channel_id, event_id',
  billing_lines: 'day, key_id, upstream_model, channel_id, occurred_at, event_id',
  spend_by_key_day: 'day, key_id',
  spend_by_user_day: 'day, user_id',
  spend_by_model_day: 'day, upstream_model',
  spend_by_channel_day: 'day, channel_id',
  failovers: 'day, channel_id, event_id',
  config_audit: 'toDate(occurred_at), event_type, entity_id, event_id',
  users: 'user_id',
  keys: 'key_id',
  channels: 'channel_id',
  teams: 'team_id',
  team_members: 'team_id, user_id',
};

const SPEND_TABLES = [
  { table: 'spend_by_key_day', group: 'key_id' },
  { table: 'spend_by_user_day', group: 'user_id' },
  { table: 'spend_by_model_day', group: 'upstream_model' },
  { table: 'spend_by_channel_day', group: 'channel_id' },
] as const;

/** One request as the test writes it to consumption_log and (when served) billing_lines. */
interface RequestSpec {
  readonly n: number;
  readonly at: number;
  readonly key: string;
  readonly user: string;
  readonly model: string;
  readonly channel: string;
  /** nano-USD */
  readonly cost: bigint;
}

const REQUESTS: ReadonlyArray<RequestSpec> = [
  { n: 1, at: T0, key: 'key_a', user: 'usr_1', model: 'gpt-4o', channel: 'openai-1', cost: 100_000_000n },
  { n: 2, at: T0 + 1_500, key: 'key_a', user: 'usr_1', model: 'claude', channel: 'anthropic-1', cost: 1n },
  { n: 3, at: T0 + 3_000, key: 'key_b', user: '', model: 'gpt-4o', channel: 'openai-2', cost: 2_500_000_000n },
  {
    n: 4,
    at: T0 + DAY_MS,
    key: 'key_b',
    user: 'usr_2',
    model: 'gpt-4o',
    channel: 'openai-1',
    cost: MAX_DECIMAL64_NANO,
  },
  {
    n: 5,
    at: T0 + DAY_MS + 7,
    key: 'key_b',
    user: 'usr_2',
    model: 'gpt-4o',
    channel: 'openai-1',
    cost: MAX_DECIMAL64_NANO,
  },
  { n: 6, at: T0 + 2 * DAY_MS, key: 'key_c', user: 'usr_1', model: 'claude', channel: 'anthropic-1', cost: 7n },
];

function consumptionRow(r: RequestSpec): Record<string, AnalyticsValue> {
  return {
    event_id: `ev_${r.n}`,
    request_id: `req_${r.n}`,
    occurred_at: Math.floor(r.at / 1000),
    occurred_at_ms: r.at,
    key_id: r.key,
    user_id: r.user,
    model: r.model,
    upstream_model: `${r.model}-up`,
    channel_id: r.channel,
    provider: r.channel.split('-')[0]!,
    client_format: 'openai-chat',
    stream: r.n % 2,
    pass_through: 0,
    status: 'completed',
    error_kind: '',
    http_status: 200,
    input_tokens: 100 * r.n,
    cached_input_tokens: 10 * r.n,
    cache_write_tokens: r.n,
    output_tokens: 50 * r.n,
    reasoning_tokens: 5 * r.n,
    usage_source: 'reported',
    cost_usd: new Decimal(r.cost),
    latency_ms: 200 + r.n,
    ttfb_ms: r.n === 3 ? null : 20 + r.n,
    attempts: 1,
    ingested_at_ms: r.at + 40,
  };
}

/** A failed request: no channel, no billing line. */
const FAILED_ROW: Record<string, AnalyticsValue> = {
  ...consumptionRow({ n: 7, at: T0 + DAY_MS + 9, key: 'key_a', user: 'usr_1', model: 'gpt-4o', channel: '', cost: 0n }),
  upstream_model: '',
  provider: '',
  status: 'failed',
  error_kind: 'no-channel',
  http_status: 503,
  input_tokens: 0,
  cached_input_tokens: 0,
  cache_write_tokens: 0,
  output_tokens: 0,
  reasoning_tokens: 0,
  ttfb_ms: null,
  attempts: 0,
};

function billingLine(r: RequestSpec): Record<string, AnalyticsValue> {
  return {
    event_id: `bill_${r.n}`,
    request_id: `req_${r.n}`,
    occurred_at: Math.floor(r.at / 1000),
    occurred_at_ms: r.at,
    day: new Date(r.at).toISOString().slice(0, 10),
    key_id: r.key,
    user_id: r.user,
    model: r.model,
    upstream_model: `${r.model}-up`,
    channel_id: r.channel,
    provider: r.channel.split('-')[0]!,
    input_tokens: 100 * r.n,
    cached_input_tokens: 10 * r.n,
    cache_write_tokens: r.n,
    output_tokens: 50 * r.n,
    reasoning_tokens: 5 * r.n,
    usage_source: 'reported',
    cost_usd: new Decimal(r.cost),
    price_model: `${r.model}-up`,
    price_channel: r.n % 2 === 0 ? r.channel : '',
    price_effective_from_ms: T0 - 30 * DAY_MS,
    input_per_mtok: new Decimal(2_500_000_000n),
    output_per_mtok: new Decimal(10_000_000_000n),
    cache_read_per_mtok: new Decimal(1_250_000_000n),
    cache_write_per_mtok: new Decimal(3_125_000_000n),
    priced: 1,
  };
}

/** Writes the requests the way a database at 005 holds them: with redeliveries (a later insert, and twice in one insert). */
async function writeHistory(store: AnalyticsStore): Promise<void> {
  await store.insert('consumption_log', [...REQUESTS.slice(0, 3).map(consumptionRow), consumptionRow(REQUESTS[1]!)]);
  await store.insert('consumption_log', [...REQUESTS.slice(3).map(consumptionRow), FAILED_ROW]);
  await store.insert('consumption_log', [consumptionRow(REQUESTS[0]!)]);
  await store.insert('billing_lines', [...REQUESTS.slice(0, 4).map(billingLine), billingLine(REQUESTS[2]!)]);
  await store.insert('billing_lines', REQUESTS.slice(4).map(billingLine));
  await store.insert('billing_lines', [billingLine(REQUESTS[0]!)]);
}

/** Every column of `table` as text, one row per event (FINAL), by event_id: equal before and after an upgrade. */
async function dump(store: AnalyticsStore, table: string): Promise<Record<string, unknown>[]> {
  const names = (
    await store.query<{ name: string }>(
      `SELECT name FROM system.columns WHERE database = currentDatabase() AND table = '${table}'`,
    )
  ).map((r) => r.name);
  return store.query(
    `SELECT ${names.map((name) => `toString(${name}) AS v_${name}`).join(', ')} FROM ${table} FINAL ORDER BY event_id`,
  );
}

interface SpendRow {
  day: string;
  group: string;
  requests: number;
  inputTokens: number;
  cachedInputTokens: number;
  cacheWriteTokens: number;
  outputTokens: number;
  reasoningTokens: number;
  tokens: number;
  costNano: bigint;
}

function toSpendRow(r: Record<string, string>): SpendRow {
  return {
    day: r.d!,
    group: r.g!,
    requests: Number(r.r),
    inputTokens: Number(r.i),
    cachedInputTokens: Number(r.ci),
    cacheWriteTokens: Number(r.cw),
    outputTokens: Number(r.o),
    reasoningTokens: Number(r.re),
    tokens: Number(r.t),
    costNano: decimalNano(r.c),
  };
}

/** A spend table read the way analysts must: sum() GROUP BY (rows are partial until parts merge). */
async function readSpend(store: AnalyticsStore, table: string, group: string): Promise<SpendRow[]> {
  const rows = await store.query<Record<string, string>>(
    `SELECT toString(day) AS d, ${group} AS g, toString(sum(requests)) AS r, toString(sum(input_tokens)) AS i, toString(sum(cached_input_tokens)) AS ci, ` +
      `toString(sum(cache_write_tokens)) AS cw, toString(sum(output_tokens)) AS o, toString(sum(reasoning_tokens)) AS re, toString(sum(tokens)) AS t, toString(sum(cost_usd)) AS c ` +
      `FROM ${table} GROUP BY day, ${group} ORDER BY d, g`,
  );
  return rows.map(toSpendRow);
}

/** The same numbers straight from billing_lines FINAL. */
async function referenceSpend(store: AnalyticsStore, group: string): Promise<SpendRow[]> {
  const rows = await store.query<Record<string, string>>(
    `SELECT toString(day) AS d, ${group} AS g, toString(count()) AS r, toString(sum(input_tokens)) AS i, toString(sum(cached_input_tokens)) AS ci, ` +
      `toString(sum(cache_write_tokens)) AS cw, toString(sum(output_tokens)) AS o, toString(sum(reasoning_tokens)) AS re, toString(sum(input_tokens) + sum(output_tokens)) AS t, toString(sum(cost_usd)) AS c ` +
      `FROM billing_lines FINAL ${group === 'user_id' ? "WHERE user_id != '' " : ''}GROUP BY day, ${group} ORDER BY d, g`,
  );
  return rows.map(toSpendRow);
}

/** The same numbers summed here, with bigint costs, from the specs. */
function expectedSpend(
  specs: ReadonlyArray<RequestSpec>,
  group: 'key_id' | 'user_id' | 'upstream_model' | 'channel_id',
): SpendRow[] {
  const rows = new Map<string, SpendRow>();
  for (const r of specs) {
    const line = billingLine(r);
    const g = String(line[group]);
    if (group === 'user_id' && g === '') continue;
    const day = String(line.day);
    const row = rows.get(`${day}|${g}`) ?? {
      day,
      group: g,
      requests: 0,
      inputTokens: 0,
      cachedInputTokens: 0,
      cacheWriteTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
      tokens: 0,
      costNano: 0n,
    };
    rows.set(`${day}|${g}`, {
      ...row,
      requests: row.requests + 1,
      inputTokens: row.inputTokens + Number(line.input_tokens),
      cachedInputTokens: row.cachedInputTokens + Number(line.cached_input_tokens),
      cacheWriteTokens: row.cacheWriteTokens + Number(line.cache_write_tokens),
      outputTokens: row.outputTokens + Number(line.output_tokens),
      reasoningTokens: row.reasoningTokens + Number(line.reasoning_tokens),
      tokens: row.tokens + Number(line.input_tokens) + Number(line.output_tokens),
      costNano: row.costNano + r.cost,
    });
  }
  return [...rows.values()].sort((a, b) => (a.day === b.day ? (a.group < b.group ? -1 : 1) : a.day < b.day ? -1 : 1));
}

async function expectSpendExact(store: AnalyticsStore, specs: ReadonlyArray<RequestSpec>): Promise<void> {
  for (const { table, group } of SPEND_TABLES) {
    const spend = await readSpend(store, table, group);
    expect(spend, table).toEqual(await referenceSpend(store, group));
    expect(spend, table).toEqual(expectedSpend(specs, group));
  }
}

async function tableNames(store: AnalyticsStore): Promise<string[]> {
  return (
    await store.query<{ name: string }>(
      'SELECT name FROM system.tables WHERE database = currentDatabase() ORDER BY name',
    )
  ).map((r) => r.name);
}

async function sortingKey(store: AnalyticsStore, table: string): Promise<string | undefined> {
  const [row] = await store.query<{ sorting_key: string }>(
    `SELECT sorting_key FROM system.tables WHERE database = currentDatabase() AND name = '${table}'`,
  );
  return row?.sorting_key;
}

/** The migrations after 012, applied on every engine. */
const LATER_MIGRATIONS = [
  '013-consumption-log-day-started-at',
  '014-failovers-next-channel-nullable',
  '015-dimension-tables',
  '016-attribution',
  '017-attribution-spend-tables',
  '018-alert-deliveries',
  '019-team-dimensions',
  '020-operation',
  '021-routing',
  '022-cache-economics',
  '023-cache-spend-table',
];

const CURRENT_TABLES = [
  'alert_deliveries', 'billing_lines', 'cache_by_channel_model_day', 'cache_by_channel_model_day_mv', 'channels', 'config_audit', 'consumption_log', 'failovers', 'keys', 'schema_migrations',
  'spend_by_channel_day', 'spend_by_channel_day_mv', 'spend_by_end_user_day', 'spend_by_end_user_day_mv',
  'spend_by_key_day', 'spend_by_key_day_mv', 'spend_by_model_day', 'spend_by_model_day_mv',
  'spend_by_tag_day', 'spend_by_tag_day_mv', 'spend_by_team_day', 'spend_by_team_day_mv',
  'spend_by_user_day', 'spend_by_user_day_mv', 'team_members', 'teams', 'users',
]; // prettier-ignore

describe.each(ANALYTICS_ENGINES)('analysts’ layout on $name', (engine: AnalyticsEngine) => {
  let opened: TestAnalyticsStore | undefined;
  let all: Migration[];

  /** A store on a fresh database (one at a time: chdb holds one data directory per process). */
  async function open(): Promise<AnalyticsStore> {
    all = await loadMigrations();
    opened = await engine.open();
    return opened.store;
  }
  const upTo = (version: number) => all.filter((m) => m.version <= version);
  const named = (version: number) => all.find((m) => m.version === version)!;

  afterEach(async () => {
    await opened?.dispose();
    opened = undefined;
  });

  it('upgrades a filled database at 005: every row kept once, time-first sorting keys, spend backfilled', async () => {
    const store = await open();
    await migrate(store, { migrations: upTo(5) });
    await writeHistory(store);
    const before = { consumption: await dump(store, 'consumption_log'), billing: await dump(store, 'billing_lines') };
    expect(before.consumption).toHaveLength(REQUESTS.length + 1);
    expect(before.billing).toHaveLength(REQUESTS.length);

    const modern = isVersionAtLeast(await store.version(), '21.1');
    expect(await migrate(store)).toEqual([
      '006-consumption-log-by-time',
      '007-billing-lines-by-time',
      '008-spend-tables',
      '009-failovers',
      '010-config-audit',
      ...(modern ? ['011-key-id-indexes-by-time'] : []),
      '012-upstream-request-id',
      ...LATER_MIGRATIONS,
    ]);

    // Rows written before 012 read an empty upstream request id; before 013, the day they
    // finished and a start latency_ms before the end; before 016, no team, end user or tags;
    // before 020, generation; before 021, no routing columns.
    const unattributed = { v_team_id: '', v_end_user_id: '', v_tags: '[]', v_operation: 'generation' };
    const upgraded = before.consumption.map((row) => {
      const startedMs = Number(row.v_occurred_at_ms) - Number(row.v_latency_ms);
      const startedAt = new Date(Math.floor(startedMs / 1000) * 1000).toISOString().slice(0, 19).replace('T', ' ');
      return {
        ...row,
        v_upstream_request_id: '',
        v_day: String(row.v_occurred_at).slice(0, 10),
        v_started_at_ms: String(startedMs),
        v_started_at: startedAt,
        ...unattributed,
        // before 021: no fallback chain, affinity or pool credential
        v_model_chain: '[]',
        v_answered_model: '',
        v_affinity: '',
        v_credential_id: '',
        v_credential_rotations: '0',
      };
    });
    expect(await dump(store, 'consumption_log')).toEqual(upgraded);
    // Billing lines written before 022 read no 1-hour cache writes, no 1-hour price and no savings.
    const [zero] = await store.query<{ u: string; d: string }>(
      'SELECT toString(toUInt64(0)) AS u, toString(toDecimal64(0, 9)) AS d',
    );
    const noCacheEconomics = {
      v_cache_write_1h_tokens: zero?.u,
      v_cache_savings_usd: zero?.d,
      v_cache_write_1h_per_mtok: zero?.d,
    };
    expect(await dump(store, 'billing_lines')).toEqual(
      before.billing.map((row) => ({ ...row, ...unattributed, ...noCacheEconomics })),
    );
    expect(before.consumption.find((r) => r.v_event_id === 'ev_2')).toMatchObject({
      v_ingested_at_ms: String(T0 + 1_540),
      v_ttfb_ms: '22',
    });
    expect(before.consumption.find((r) => r.v_event_id === 'ev_3')).toMatchObject({ v_ttfb_ms: null });
    for (const [table, key] of Object.entries(SORTING_KEYS)) expect(await sortingKey(store, table), table).toBe(key);
    const [created] = await store.query<{ statement: string }>('SHOW CREATE TABLE consumption_log');
    expect(created?.statement).toContain('PARTITION BY toYYYYMM(occurred_at)');
    expect(created?.statement).toContain('ORDER BY (toDate(occurred_at), key_id, model, channel_id, event_id)');
    expect(await tableNames(store)).toEqual(CURRENT_TABLES); // no consumption_log_005/006, billing_lines_005/007, old views
    await expectSpendExact(store, REQUESTS);

    // A redelivered event still replaces its own row: its sorting key is a function of the event.
    // Written as the ledger writes it now, with the columns of 013 (18.16 fills a column left out
    // of a JSONEachRow insert with the type's zero, not with its DEFAULT expression).
    const redelivered = consumptionRow(REQUESTS[3]!);
    const startedMs = REQUESTS[3]!.at - Number(redelivered.latency_ms);
    await store.insert('consumption_log', [
      {
        ...redelivered,
        day: new Date(REQUESTS[3]!.at).toISOString().slice(0, 10),
        started_at_ms: startedMs,
        started_at: Math.floor(startedMs / 1000),
      },
    ]);
    expect(await dump(store, 'consumption_log')).toEqual(upgraded);
  });

  it('upgrades an empty database at 005', async () => {
    const store = await open();
    await migrate(store, { migrations: upTo(5) });
    expect(await migrate(store)).toContain('008-spend-tables');
    expect(await tableNames(store)).toEqual(CURRENT_TABLES);
    for (const [table, key] of Object.entries(SORTING_KEYS)) expect(await sortingKey(store, table), table).toBe(key);
    for (const table of Object.keys(SORTING_KEYS))
      expect(await store.query(`SELECT 1 FROM ${table} LIMIT 1`), table).toEqual([]);
  });

  it('finishes an upgrade that stopped after any of its steps, with every row and cost once', async () => {
    const store = await open();
    await migrate(store, { migrations: upTo(5) });
    await writeHistory(store);
    const before = { consumption: await dump(store, 'consumption_log'), billing: await dump(store, 'billing_lines') };
    const runFirst = async (version: number, count: number) => {
      for (const statement of named(version).statements.slice(0, count)) await store.exec(statement);
    };
    // 006 stopped after its swap, before dropping the old table; 007 after its copy;
    // 008 after filling the tables and creating one of the materialized views.
    await runFirst(6, 4);
    expect(await tableNames(store)).toContain('consumption_log_005');
    expect(await migrate(store, { migrations: upTo(6) })).toEqual(['006-consumption-log-by-time']);
    await runFirst(7, 3);
    expect(await migrate(store, { migrations: upTo(7) })).toEqual(['007-billing-lines-by-time']);
    await runFirst(8, 17);
    expect(await tableNames(store)).toContain('spend_by_key_day_mv');
    expect(await migrate(store, { migrations: upTo(8) })).toEqual(['008-spend-tables']);

    expect(await dump(store, 'consumption_log')).toEqual(before.consumption);
    expect(await dump(store, 'billing_lines')).toEqual(before.billing);
    await expectSpendExact(store, REQUESTS);
    expect((await tableNames(store)).filter((name) => /_00\d$/.test(name))).toEqual([]);
  });

  it('keeps spend per key, user, model and channel per day exact across inserts and merges', async () => {
    const store = await open();
    await migrate(store);
    await store.insert('billing_lines', REQUESTS.slice(0, 2).map(billingLine));
    await store.insert('billing_lines', REQUESTS.slice(2, 4).map(billingLine));
    await store.insert('billing_lines', REQUESTS.slice(4).map(billingLine));
    await expectSpendExact(store, REQUESTS);
    // Two Decimal64(9) maxima on one day and key: the sum only fits the Decimal128 column.
    const [big] = await readSpend(store, 'spend_by_key_day', 'key_id').then((rows) =>
      rows.filter((r) => r.group === 'key_b' && r.requests === 2),
    );
    expect(big?.costNano).toBe(2n * MAX_DECIMAL64_NANO);

    for (const { table } of SPEND_TABLES) await store.exec(`OPTIMIZE TABLE ${table} FINAL`);
    await expectSpendExact(store, REQUESTS);
    const [merged] = await store.query<{ n: string }>(
      "SELECT toString(count()) AS n FROM spend_by_key_day WHERE key_id = 'key_b'",
    );
    expect(merged?.n).toBe('2'); // one row per (day, key) once merged

    // The contract with the billing consumer: billing_lines FINAL collapses a second insert of an
    // event, but the materialized views count every inserted row, so the consumer inserts each event once.
    await store.insert('billing_lines', [billingLine(REQUESTS[5]!)]);
    expect((await dump(store, 'billing_lines')).length).toBe(REQUESTS.length);
    const [key_c] = (await readSpend(store, 'spend_by_key_day', 'key_id')).filter((r) => r.group === 'key_c');
    expect(key_c).toMatchObject({ requests: 2, costNano: 14n });
  });

  it('stores failovers and config-audit entries from their projections, once per event', async () => {
    const store = await open();
    await migrate(store);
    const failover = (n: number, overrides: Partial<FailoverOccurred>): FailoverOccurred => ({
      eventId: `fo_${n}`,
      occurredAt: T0 + n * 1_001,
      requestId: `req_${n}`,
      keyId: 'key_a',
      model: 'gpt-4o',
      channelId: 'openai-1',
      errorKind: 'upstream-unavailable',
      upstreamStatus: 503,
      latencyMs: 40,
      retryAfterMs: null,
      nextChannelId: 'openai-2',
      ...overrides,
    });
    const events = [
      failover(1, {}),
      failover(2, {
        channelId: 'openai-2',
        errorKind: 'upstream-rate-limited',
        upstreamStatus: 429,
        retryAfterMs: 30_000,
        nextChannelId: null,
      }),
      failover(3, { errorKind: 'upstream-timeout', upstreamStatus: null, latencyMs: 12.6 }),
    ];
    const rows = events.map(projectFailoverRow);
    expect(rows[1]).toEqual({
      event_id: 'fo_2',
      request_id: 'req_2',
      occurred_at: Math.floor((T0 + 2_002) / 1000),
      occurred_at_ms: T0 + 2_002,
      day: '2026-10-30',
      key_id: 'key_a',
      model: 'gpt-4o',
      channel_id: 'openai-2',
      error_kind: 'upstream-rate-limited',
      upstream_status: 429,
      latency_ms: 40,
      retry_after_ms: 30_000,
      next_channel_id: null,
    });
    expect(rows[2]).toMatchObject({
      upstream_status: null,
      latency_ms: 13,
      retry_after_ms: null,
      next_channel_id: 'openai-2',
    });
    await store.insert('failovers', rows);
    await store.insert('failovers', [rows[0]!]); // redelivered
    const stored = await store.query<Record<string, unknown>>(
      'SELECT event_id, request_id, toString(occurred_at_ms) AS at_ms, toString(day) AS d, key_id, model, channel_id, error_kind, upstream_status, toString(latency_ms) AS latency, toString(retry_after_ms) AS retry_after, next_channel_id FROM failovers FINAL ORDER BY event_id',
    );
    expect(stored).toEqual(
      rows.map((r) => ({
        event_id: r.event_id,
        request_id: r.request_id,
        at_ms: String(r.occurred_at_ms),
        d: r.day,
        key_id: r.key_id,
        model: r.model,
        channel_id: r.channel_id,
        error_kind: r.error_kind,
        upstream_status: r.upstream_status,
        latency: String(r.latency_ms),
        retry_after: r.retry_after_ms === null ? null : String(r.retry_after_ms),
        next_channel_id: r.next_channel_id,
      })),
    );

    const entries: AuditEntry[] = [
      {
        eventId: 'cfg_1',
        occurredAt: T0 + 5,
        actor: 'admin',
        type: 'PriceSet',
        entityId: 'price_1',
        changes: {
          priceId: 'price_1',
          model: 'gpt-4o',
          channel: null,
          inputPerMTok: 2.5,
          outputPerMTok: 10,
          effectiveFrom: T0,
        },
      },
      {
        eventId: 'cfg_2',
        occurredAt: T0 + 9,
        actor: 'usr_1',
        type: 'KeyCreated',
        entityId: 'key_1',
        changes: {
          keyId: 'key_1',
          name: 'it\'s "mine"',
          budgetNano: 12_345_678_901_234_567_890n,
          limits: { daily: 5n, models: ['a', 'b'] },
          note: undefined,
        },
      },
    ];
    const audit = entries.map(projectConfigAuditRow);
    expect(audit[1]).toEqual({
      event_id: 'cfg_2',
      occurred_at: Math.floor((T0 + 9) / 1000),
      occurred_at_ms: T0 + 9,
      actor: 'usr_1',
      event_type: 'KeyCreated',
      entity_id: 'key_1',
      changes:
        '{"keyId":"key_1","name":"it\'s \\"mine\\"","budgetNano":"12345678901234567890","limits":{"daily":"5","models":["a","b"]}}',
    });
    await store.insert('config_audit', audit);
    await store.insert('config_audit', [audit[0]!]); // redelivered
    const back = await store.query<Record<string, string>>(
      'SELECT event_id, toString(occurred_at) AS at, toString(occurred_at_ms) AS at_ms, actor, event_type, entity_id, changes FROM config_audit FINAL ORDER BY event_id',
    );
    expect(back).toEqual(
      audit.map((r) => ({
        event_id: r.event_id,
        at: new Date(r.occurred_at * 1000).toISOString().slice(0, 19).replace('T', ' '),
        at_ms: String(r.occurred_at_ms),
        actor: r.actor,
        event_type: r.event_type,
        entity_id: r.entity_id,
        changes: r.changes,
      })),
    );
    expect(JSON.parse(back[1]!.changes!)).toMatchObject({ budgetNano: '12345678901234567890' });
  });

  it('describes every column of every table with a comment', async () => {
    const store = await open();
    await migrate(store);
    for (const table of Object.keys(SORTING_KEYS)) {
      const columns = await store.query<{ name: string; comment: string }>(
        `SELECT name, comment FROM system.columns WHERE database = currentDatabase() AND table = '${table}'`,
      );
      expect(columns.length, table).toBeGreaterThan(2);
      expect(
        columns.filter((c) => c.comment.trim() === '').map((c) => c.name),
        table,
      ).toEqual([]);
    }
    const comments = Object.fromEntries(
      (
        await store.query<{ name: string; comment: string }>(
          "SELECT name, comment FROM system.columns WHERE database = currentDatabase() AND table = 'billing_lines'",
        )
      ).map((c) => [c.name, c.comment]),
    );
    expect(comments.cost_usd).toMatch(/USD/);
    expect(comments.input_tokens).toMatch(/tokens/);
    expect(comments.occurred_at_ms).toMatch(/ms/);
  });
});
