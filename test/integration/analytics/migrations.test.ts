import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalyticsStore } from '../../../schemas/analytics/analytics-store.ts';
import { loadMigrations, parseMigration } from '../../../schemas/analytics/load-migrations.ts';
import { appliedMigrations, isVersionAtLeast, migrate } from '../../../schemas/analytics/migrate.ts';
import { ANALYTICS_ENGINES, type TestAnalyticsStore } from './analytics-engines.ts';

const ALL = ['001-consumption-log', '002-billing-lines', '003-spend-views', '004-key-id-indexes', '005-ingested-at'];
const ON_18_16 = ALL.filter((name) => name !== '004-key-id-indexes'); // 004 requires 21.1

const CONSUMPTION_LOG_COLUMNS = [
  ['event_id', 'String'],
  ['request_id', 'String'],
  ['occurred_at', "DateTime('UTC')"],
  ['occurred_at_ms', 'UInt64'],
  ['key_id', 'String'],
  ['user_id', 'String'],
  ['model', 'String'],
  ['upstream_model', 'String'],
  ['channel_id', 'String'],
  ['provider', 'String'],
  ['client_format', 'String'],
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
  ['ingested_at_ms', 'UInt64'],
];

const BILLING_LINES_COLUMNS = [
  'event_id', 'request_id', 'occurred_at', 'occurred_at_ms', 'day', 'key_id', 'user_id', 'model', 'upstream_model', 'channel_id', 'provider',
  'input_tokens', 'cached_input_tokens', 'cache_write_tokens', 'output_tokens', 'reasoning_tokens', 'usage_source', 'cost_usd',
  'price_model', 'price_channel', 'price_effective_from_ms', 'input_per_mtok', 'output_per_mtok', 'cache_read_per_mtok', 'cache_write_per_mtok', 'priced',
]; // prettier-ignore

async function columns(store: AnalyticsStore, table: string): Promise<string[][]> {
  const rows = await store.query<{ name: string; type: string }>(`SELECT name, type FROM system.columns WHERE database = currentDatabase() AND table = '${table}'`);
  return rows.map((r) => [r.name, r.type]);
}

describe('migration files', () => {
  it('parse into ordered versions with statements split at line-ending semicolons', async () => {
    const migrations = await loadMigrations();
    expect(migrations.map((m) => m.name)).toEqual(ALL);
    expect(migrations.map((m) => m.statements.length)).toEqual([1, 1, 3, 2, 1]);
    expect(migrations.map((m) => m.requires)).toEqual([null, null, null, '21.1', null]);
    expect(migrations.every((m) => m.statements.every((s) => !s.includes('--') && !s.endsWith(';')))).toBe(true);
  });

  it('reject malformed names and empty files', () => {
    expect(() => parseMigration('1-x.sql', 'SELECT 1;')).toThrow('NNN-name.sql');
    expect(() => parseMigration('005-empty.sql', '-- nothing\n')).toThrow('holds no statement');
    expect(parseMigration('005-two.sql', "-- requires: 22.3.1\nSELECT ';' AS a;\nSELECT 2\n").statements).toEqual(["SELECT ';' AS a", 'SELECT 2']);
  });

  it('compare engine versions numerically', () => {
    expect(isVersionAtLeast('18.16.1', '21.1')).toBe(false);
    expect(isVersionAtLeast('26.7.2.1', '21.1')).toBe(true);
    expect(isVersionAtLeast('21.1', '21.1.0')).toBe(true);
    expect(isVersionAtLeast('21.10.1', '21.9')).toBe(true);
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

  it('applies every migration the engine supports once, even when started twice at the same time', async () => {
    const skipped: string[] = [];
    const [a, b] = await Promise.all([migrate(store, { onSkip: (name) => skipped.push(name) }), migrate(store)]);
    const expected = modern ? ALL : ON_18_16;
    expect(new Set([...(a ?? []), ...(b ?? [])])).toEqual(new Set(expected));
    expect(await appliedMigrations(store)).toEqual(expected);
    expect(skipped).toEqual(modern ? [] : ['004-key-id-indexes']);
    expect(await migrate(store)).toEqual([]);
  });

  it('creates consumption_log and billing_lines with the analysts’ columns', async () => {
    expect(await columns(store, 'consumption_log')).toEqual(CONSUMPTION_LOG_COLUMNS);
    expect((await columns(store, 'billing_lines')).map(([name]) => name)).toEqual(BILLING_LINES_COLUMNS);
    const [engineRow] = await store.query<{ engine: string }>("SELECT engine FROM system.tables WHERE database = currentDatabase() AND name = 'billing_lines'");
    expect(engineRow?.engine).toBe('ReplacingMergeTree');
    for (const view of ['spend_by_key_day', 'spend_by_user_day', 'spend_by_model_day']) {
      expect((await columns(store, view)).map(([name]) => name)).toEqual(['day', view === 'spend_by_key_day' ? 'key_id' : view === 'spend_by_user_day' ? 'user_id' : 'upstream_model', 'requests', 'input_tokens', 'output_tokens', 'tokens', 'cost_usd']);
    }
  });

  it('skips a migration the engine is too old for without recording it, and applies it once allowed', async () => {
    const future = parseMigration('900-future.sql', '-- requires: 999.0\nCREATE TABLE IF NOT EXISTS future_only (x UInt8) ENGINE = MergeTree ORDER BY x;\n');
    const now = parseMigration('901-now.sql', '-- requires: 1.0\nCREATE TABLE IF NOT EXISTS now_ok (x UInt8) ENGINE = MergeTree ORDER BY x;\n');
    const reasons: string[] = [];
    expect(await migrate(store, { migrations: [future, now], onSkip: (name, reason) => reasons.push(`${name}: ${reason}`) })).toEqual(['901-now']);
    expect(reasons).toEqual([expect.stringMatching(/^900-future: needs ClickHouse 999\.0, engine is \d+\./)]);
    expect(await store.query("SELECT name FROM system.tables WHERE database = currentDatabase() AND name = 'future_only'")).toEqual([]);
    expect(await migrate(store, { migrations: [{ ...future, requires: null }, now] })).toEqual(['900-future']);
  });

  it('stops at a failing statement without recording it, so the next run retries it', async () => {
    const bad = parseMigration('910-bad.sql', 'CREATE TABLE IF NOT EXISTS half_done (x UInt8) ENGINE = MergeTree ORDER BY x;\nCREATE TABLE broken (x NoSuchType) ENGINE = MergeTree ORDER BY x;\n');
    await expect(migrate(store, { migrations: [bad] })).rejects.toThrow(/NoSuchType/);
    expect(await appliedMigrations(store)).not.toContain('910-bad');
    const fixed = parseMigration('910-bad.sql', 'CREATE TABLE IF NOT EXISTS half_done (x UInt8) ENGINE = MergeTree ORDER BY x;\nCREATE TABLE IF NOT EXISTS broken (x UInt8) ENGINE = MergeTree ORDER BY x;\n');
    expect(await migrate(store, { migrations: [fixed] })).toEqual(['910-bad']);
  });
});
