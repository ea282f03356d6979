import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsStore } from '../../../schemas/analytics/analytics-store.ts';
import { loadMigrations, parseMigration } from '../../../infra/analytics/load-migrations.ts';
import { appliedMigrations, isVersionAtLeast, migrate } from '../../../infra/analytics/migrate.ts';
import { ANALYTICS_ENGINES, type TestAnalyticsStore } from './analytics-engines.ts';

const ALL = [
  '001-consumption-log', '002-billing-lines', '003-spend-views', '004-key-id-indexes', '005-ingested-at', '006-consumption-log-by-time',
  '007-billing-lines-by-time', '008-spend-tables', '009-failovers', '010-config-audit', '011-key-id-indexes-by-time',
  '012-upstream-request-id', '013-consumption-log-day-started-at', '014-failovers-next-channel-nullable', '015-dimension-tables',
  '016-attribution', '017-attribution-spend-tables', '018-alert-deliveries', '019-team-dimensions', '020-operation', '021-routing',
  '022-cache-economics', '023-cache-spend-table',
]; // prettier-ignore
const MODERN_ONLY = ['004-key-id-indexes', '011-key-id-indexes-by-time']; // require 21.1
const ON_18_16 = ALL.filter((name) => !MODERN_ONLY.includes(name));

const CONSUMPTION_LOG_COLUMNS = [
  ['event_id', 'String'],
  ['request_id', 'String'],
  ['occurred_at', "DateTime('UTC')"],
  ['occurred_at_ms', 'UInt64'],
  ['day', 'Date'],
  ['started_at_ms', 'UInt64'],
  ['started_at', "DateTime('UTC')"],
  ['key_id', 'String'],
  ['user_id', 'String'],
  ['team_id', 'String'],
  ['end_user_id', 'String'],
  ['tags', 'Array(String)'],
  ['model', 'String'],
  ['model_chain', 'Array(String)'],
  ['answered_model', 'String'],
  ['upstream_model', 'String'],
  ['channel_id', 'String'],
  ['credential_id', 'String'],
  ['provider', 'String'],
  ['client_format', 'String'],
  ['operation', "Enum8('generation' = 1, 'embedding' = 2)"],
  ['stream', 'UInt8'],
  ['pass_through', 'UInt8'],
  ['status', 'String'],
  ['error_kind', 'String'],
  ['http_status', 'UInt16'],
  ['input_tokens', 'UInt64'],
  ['cached_input_tokens', 'UInt64'],
  ['cache_write_tokens', 'UInt64'],
  ['output_tokens', 'UInt64'],
  ['reasoning_tokens', 'UInt64'],
  ['usage_source', 'String'],
  ['cost_usd', 'Decimal(18, 9)'],
  ['latency_ms', 'UInt64'],
  ['ttfb_ms', 'Nullable(UInt64)'],
  ['attempts', 'UInt16'],
  ['affinity', 'String'],
  ['credential_rotations', 'UInt16'],
  ['ingested_at_ms', 'UInt64'],
  ['upstream_request_id', 'String'],
];

const BILLING_LINES_COLUMNS = [
  'event_id', 'request_id', 'occurred_at', 'occurred_at_ms', 'day', 'key_id', 'user_id', 'team_id', 'end_user_id', 'tags', 'model', 'upstream_model', 'channel_id', 'provider', 'operation',
  'input_tokens', 'cached_input_tokens', 'cache_write_tokens', 'cache_write_1h_tokens', 'output_tokens', 'reasoning_tokens', 'usage_source', 'cost_usd', 'cache_savings_usd',
  'price_model', 'price_channel', 'price_effective_from_ms', 'input_per_mtok', 'output_per_mtok', 'cache_read_per_mtok', 'cache_write_per_mtok', 'cache_write_1h_per_mtok', 'priced',
]; // prettier-ignore

async function columns(store: AnalyticsStore, table: string): Promise<string[][]> {
  const rows = await store.query<{ name: string; type: string }>(
    `SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = '${table}'`,
  );
  return rows.map((r) => [r.name, r.type]);
}

describe('migration files', () => {
  it('parse into ordered versions with statements split at line-ending semicolons', async () => {
    const migrations = await loadMigrations();
    expect(migrations.map((m) => m.name)).toEqual(ALL);
    expect(migrations.map((m) => m.statements.length)).toEqual([
      1, 1, 3, 2, 1, 5, 5, 20, 1, 1, 2, 2, 7, 5, 3, 12, 15, 1, 6, 4, 10, 6, 5,
    ]);
    expect(migrations.map((m) => m.requires)).toEqual([
      null,
      null,
      null,
      '21.1',
      null,
      null,
      null,
      null,
      null,
      null,
      '21.1',
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
      null,
    ]);
    expect(migrations.every((m) => m.statements.every((s) => !s.includes('--') && !s.endsWith(';')))).toBe(true);
  });

  it('reject malformed names and empty files', () => {
    expect(() => parseMigration('1-x.sql', 'SELECT 1;')).toThrow('NNN-name.sql');
    expect(() => parseMigration('005-empty.sql', '-- nothing\n')).toThrow('holds no statement');
    expect(parseMigration('005-two.sql', "-- requires: 22.3.1\nSELECT ';' AS a;\nSELECT 2\n").statements).toEqual([
      "SELECT ';' AS a",
      'SELECT 2',
    ]);
  });

  it('compare engine versions numerically', () => {
    expect(isVersionAtLeast('18.16.1', '21.1')).toBe(false);
    expect(isVersionAtLeast('26.7.2.1', '21.1')).toBe(true);
    expect(isVersionAtLeast('21.1', '21.1.0')).toBe(true);
    expect(isVersionAtLeast('21.10.1', '21.9')).toBe(true);
  });
});

describe.each(ANALYTICS_ENGINES)('two migrate() calls at the same time on $name', (engine) => {
  // Its own database, so the tests below run on a schema migrated once whatever happens here.
  // 006 and 007 swap tables with RENAME, which no statement can make safe to run twice at once
  // (the second RENAME finds the first one's result): this passes only when migrate() runs the
  // calls of one process one after the other. Across processes, one migrator at a time.
  it('apply every migration the engine supports once', async () => {
    const opened = await engine.open();
    try {
      const { store } = opened;
      const modern = isVersionAtLeast(await store.version(), '21.1');
      const skipped: string[] = [];
      // allSettled: both calls have ended before the database is dropped, whatever they did.
      const settled = await Promise.allSettled([
        migrate(store, { onSkip: (name) => skipped.push(name) }),
        migrate(store),
      ]);
      const [a, b] = settled.map((result) => {
        if (result.status === 'rejected') throw result.reason;
        return result.value;
      });
      const expected = modern ? ALL : ON_18_16;
      expect(new Set([...(a ?? []), ...(b ?? [])])).toEqual(new Set(expected));
      expect(await appliedMigrations(store)).toEqual(expected);
      expect(skipped).toEqual(modern ? [] : MODERN_ONLY);
      expect(await migrate(store)).toEqual([]);
    } finally {
      await opened.dispose();
    }
  });
});

describe.each(ANALYTICS_ENGINES)('migrate() on $name', (engine) => {
  let opened: TestAnalyticsStore;
  let store: AnalyticsStore;
  let modern: boolean;
  beforeAll(async () => {
    opened = await engine.open();
    store = opened.store;
    modern = isVersionAtLeast(await store.version(), '21.1');
  });
  afterAll(async () => opened?.dispose());

  it('applies every migration the engine supports once, in order', async () => {
    const skipped: string[] = [];
    const expected = modern ? ALL : ON_18_16;
    expect(await migrate(store, { onSkip: (name) => skipped.push(name) })).toEqual(expected);
    expect(await appliedMigrations(store)).toEqual(expected);
    expect(skipped).toEqual(modern ? [] : MODERN_ONLY);
    expect(await migrate(store)).toEqual([]);
  });

  it('creates consumption_log and billing_lines with the analysts’ columns', async () => {
    expect(await columns(store, 'consumption_log')).toEqual(CONSUMPTION_LOG_COLUMNS);
    expect((await columns(store, 'billing_lines')).map(([name]) => name)).toEqual(BILLING_LINES_COLUMNS);
    const [engineRow] = await store.query<{ engine: string }>(
      "SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'billing_lines'",
    );
    expect(engineRow?.engine).toBe('ReplacingMergeTree');
    const spendColumns = [
      'requests',
      'input_tokens',
      'cached_input_tokens',
      'cache_write_tokens',
      'output_tokens',
      'reasoning_tokens',
      'tokens',
      'cost_usd',
    ];
    for (const [table, group] of [
      ['spend_by_key_day', 'key_id'],
      ['spend_by_user_day', 'user_id'],
      ['spend_by_model_day', 'upstream_model'],
      ['spend_by_channel_day', 'channel_id'],
      ['spend_by_team_day', 'team_id'],
      ['spend_by_end_user_day', 'end_user_id'],
      ['spend_by_tag_day', 'tag'],
    ] as const) {
      expect((await columns(store, table)).map(([name]) => name)).toEqual(['day', group, ...spendColumns]);
      expect(Object.fromEntries(await columns(store, table)).cost_usd).toBe('Decimal(38, 9)');
    }
    expect(await columns(store, 'cache_by_channel_model_day')).toEqual([
      ['day', 'Date'],
      ['channel_id', 'String'],
      ['upstream_model', 'String'],
      ['key_id', 'String'],
      ['team_id', 'String'],
      ['requests', 'UInt64'],
      ['input_tokens', 'UInt64'],
      ['cached_input_tokens', 'UInt64'],
      ['cache_write_tokens', 'UInt64'],
      ['cache_write_1h_tokens', 'UInt64'],
      ['cost_usd', 'Decimal(38, 9)'],
      ['cache_savings_usd', 'Decimal(38, 9)'],
    ]);
    const billing = Object.fromEntries(await columns(store, 'billing_lines'));
    expect([billing.cache_write_1h_tokens, billing.cache_savings_usd, billing.cache_write_1h_per_mtok]).toEqual([
      'UInt64',
      'Decimal(18, 9)',
      'Decimal(18, 9)',
    ]);
  });

  it('leaves exactly the tables and materialized views of the current schema', async () => {
    const rows = await store.query<{ name: string; engine: string }>(
      "SELECT name, engine FROM system.tables WHERE database = currentDatabase() AND name NOT IN ('future_only', 'now_ok', 'half_done', 'broken') ORDER BY name",
    );
    expect(rows.map((r) => `${r.name}:${r.engine}`)).toEqual([
      'alert_deliveries:ReplacingMergeTree',
      'billing_lines:ReplacingMergeTree',
      'cache_by_channel_model_day:SummingMergeTree',
      'cache_by_channel_model_day_mv:MaterializedView',
      'channels:ReplacingMergeTree',
      'config_audit:ReplacingMergeTree',
      'consumption_log:ReplacingMergeTree',
      'failovers:ReplacingMergeTree',
      'keys:ReplacingMergeTree',
      'schema_migrations:ReplacingMergeTree',
      'spend_by_channel_day:SummingMergeTree',
      'spend_by_channel_day_mv:MaterializedView',
      'spend_by_end_user_day:SummingMergeTree',
      'spend_by_end_user_day_mv:MaterializedView',
      'spend_by_key_day:SummingMergeTree',
      'spend_by_key_day_mv:MaterializedView',
      'spend_by_model_day:SummingMergeTree',
      'spend_by_model_day_mv:MaterializedView',
      'spend_by_tag_day:SummingMergeTree',
      'spend_by_tag_day_mv:MaterializedView',
      'spend_by_team_day:SummingMergeTree',
      'spend_by_team_day_mv:MaterializedView',
      'spend_by_user_day:SummingMergeTree',
      'spend_by_user_day_mv:MaterializedView',
      'team_members:ReplacingMergeTree',
      'teams:ReplacingMergeTree',
      'users:ReplacingMergeTree',
    ]);
  });

  it('skips a migration the engine is too old for without recording it, and applies it once allowed', async () => {
    const future = parseMigration(
      '900-future.sql',
      '-- requires: 999.0\nCREATE TABLE IF NOT EXISTS future_only (x UInt8) ENGINE = MergeTree ORDER BY x;\n',
    );
    const now = parseMigration(
      '901-now.sql',
      '-- requires: 1.0\nCREATE TABLE IF NOT EXISTS now_ok (x UInt8) ENGINE = MergeTree ORDER BY x;\n',
    );
    const reasons: string[] = [];
    expect(
      await migrate(store, { migrations: [future, now], onSkip: (name, reason) => reasons.push(`${name}: ${reason}`) }),
    ).toEqual(['901-now']);
    expect(reasons).toEqual([expect.stringMatching(/^900-future: needs ClickHouse 999\.0, engine is \d+\./)]);
    expect(
      await store.query("SELECT name FROM system.tables WHERE database = currentDatabase() AND name = 'future_only'"),
    ).toEqual([]);
    expect(await migrate(store, { migrations: [{ ...future, requires: null }, now] })).toEqual(['900-future']);
  });

  it('stops at a failing statement without recording it, so the next run retries it', async () => {
    const bad = parseMigration(
      '910-bad.sql',
      'CREATE TABLE IF NOT EXISTS half_done (x UInt8) ENGINE = MergeTree ORDER BY x;\nCREATE TABLE broken (x NoSuchType) ENGINE = MergeTree ORDER BY x;\n',
    );
    await expect(migrate(store, { migrations: [bad] })).rejects.toThrow(/NoSuchType/);
    expect(await appliedMigrations(store)).not.toContain('910-bad');
    const fixed = parseMigration(
      '910-bad.sql',
      'CREATE TABLE IF NOT EXISTS half_done (x UInt8) ENGINE = MergeTree ORDER BY x;\nCREATE TABLE IF NOT EXISTS broken (x UInt8) ENGINE = MergeTree ORDER BY x;\n',
    );
    expect(await migrate(store, { migrations: [fixed] })).toEqual(['910-bad']);
  });
});
