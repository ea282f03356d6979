/**
 * Tables analysts can live in, on both engines (ClickHouse 18.16 from CLICKHOUSE_URL, and chdb):
 * a database at 012 with rows upgrades (consumption_log gains day and started_at, a give-up in
 * failovers becomes next_channel_id NULL, the dimension tables appear); the dimensions consumer
 * folds control events into users, keys and channels (names, owner, status, revoked_at, no
 * secrets), once per event; keys written before 019 gain an empty team and no tags, and team
 * events fold into teams and team_members once; and the README's analyst queries
 * (ANALYST_QUERIES, which the README mirrors) answer what they say: a single dead channel has
 * failover rate 0, spend per team carries each team's name.
 */
import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { projectFailoverRow } from '../../../consumers/failovers/project-failover-row.ts';
import { projectConsumptionRow } from '../../../consumers/ledger/project-consumption-row.ts';
import { dimensionRow } from '../../../consumers/dimensions/dimension-store.ts';
import { writeDimensions, type PositionedEvent } from '../../../consumers/dimensions/dimensions-consumer.ts';
import { emptyDimensionStates, foldDimensionEvent } from '../../../consumers/dimensions/fold-dimension-rows.ts';
import { ANALYST_QUERIES, renderAnalystQueries } from '../../../schemas/analytics/analyst-queries.ts';
import { Decimal, type AnalyticsStore, type AnalyticsValue } from '../../../schemas/analytics/analytics-store.ts';
import { loadMigrations } from '../../../infra/analytics/load-migrations.ts';
import { migrate } from '../../../infra/analytics/migrate.ts';
import type { ControlEvent } from '../../../schemas/control-plane/control-plane-events.ts';
import type { FailoverOccurred, RequestCompleted } from '../../../schemas/events/traffic-events.ts';
import { ANALYTICS_ENGINES, decimalNano, type AnalyticsEngine, type TestAnalyticsStore } from './analytics-engines.ts';
import { requestCompleted } from '../../unit/consumers/billing/traffic-event-builders.ts';
import {
  keyUpdated,
  teamCreated,
  teamMemberRemoved,
  teamMemberSet,
  teamUpdated,
} from '../../unit/control-plane/control-event-fixtures.ts';

const HEADER = { actor: 'admin' };
const LIMITS = { rpm: null, tpm: null };

/** The control events of two users, three keys (one revoked) and two channels (one removed), at offsets 10, 20, … */
function controlEvents(at: number): PositionedEvent[] {
  const events: ControlEvent[] = [
    {
      type: 'UserCreated',
      event: {
        ...HEADER,
        ...LIMITS,
        eventId: 'c1',
        occurredAt: at,
        userId: 'usr_1',
        name: 'Alice',
        role: 'user',
        quotaNanoUsd: '12500000000',
      },
    },
    {
      type: 'UserCredentialsSet',
      event: {
        ...HEADER,
        eventId: 'c2',
        occurredAt: at + 1,
        userId: 'usr_1',
        login: 'Alice',
        passwordHash: 'scrypt$secret-hash',
      },
    },
    {
      type: 'UserCreated',
      event: {
        ...HEADER,
        ...LIMITS,
        eventId: 'c3',
        occurredAt: at + 2,
        userId: 'usr_2',
        name: 'Bob',
        role: 'admin',
        quotaNanoUsd: null,
      },
    },
    {
      type: 'KeyCreated',
      event: {
        ...HEADER,
        rpm: 60,
        tpm: 10_000,
        eventId: 'c4',
        occurredAt: at + 3,
        keyId: 'key_a',
        publicId: 'pub_a',
        digest: 'digest-secret-a',
        name: 'Alice laptop',
        userId: 'usr_1',
        quotaNanoUsd: '1',
        expiresAt: null,
        models: null,
      },
    },
    {
      type: 'KeyCreated',
      event: {
        ...HEADER,
        ...LIMITS,
        eventId: 'c5',
        occurredAt: at + 4,
        keyId: 'key_b',
        publicId: 'pub_b',
        digest: 'digest-secret-b',
        name: 'Bob CI',
        userId: 'usr_2',
        quotaNanoUsd: null,
        expiresAt: null,
        models: null,
      },
    },
    {
      type: 'KeyCreated',
      event: {
        ...HEADER,
        ...LIMITS,
        eventId: 'c6',
        occurredAt: at + 5,
        keyId: 'key_c',
        publicId: 'pub_c',
        digest: 'digest-secret-c',
        name: 'Shared',
        userId: null,
        quotaNanoUsd: null,
        expiresAt: null,
        models: null,
      },
    },
    {
      type: 'KeyRevoked',
      event: { ...HEADER, eventId: 'c7', occurredAt: at + 6, keyId: 'key_b', effectiveAt: at + 6, reason: 'leaked' },
    },
    {
      type: 'KeyUpdated',
      event: {
        ...HEADER,
        ...LIMITS,
        eventId: 'c8',
        occurredAt: at + 7,
        keyId: 'key_c',
        name: 'Shared (off)',
        quotaNanoUsd: null,
        expiresAt: null,
        models: null,
        enabled: false,
      },
    },
    {
      type: 'ChannelUpserted',
      event: {
        ...HEADER,
        ...LIMITS,
        eventId: 'c9',
        occurredAt: at + 8,
        channelId: 'openai-1',
        provider: 'openai',
        protocol: null,
        baseUrl: null,
        apiKeyCiphertext: 'ciphertext-secret',
        models: ['gpt-4o'],
        modelMap: {},
        priority: 0,
        weight: 1,
        enabled: true,
        timeoutMs: 30_000,
      },
    },
    {
      type: 'ChannelUpserted',
      event: {
        ...HEADER,
        ...LIMITS,
        eventId: 'c10',
        occurredAt: at + 9,
        channelId: 'dead-1',
        provider: 'anthropic',
        protocol: 'anthropic-messages',
        baseUrl: null,
        apiKeyCiphertext: 'ciphertext-secret',
        models: ['claude'],
        modelMap: {},
        priority: 1,
        weight: 2.5,
        enabled: true,
        timeoutMs: 10_000,
      },
    },
    {
      type: 'ChannelUpserted',
      event: {
        ...HEADER,
        ...LIMITS,
        eventId: 'c11',
        occurredAt: at + 10,
        channelId: 'old-1',
        provider: 'mock',
        protocol: null,
        baseUrl: null,
        apiKeyCiphertext: '',
        models: [],
        modelMap: {},
        priority: 0,
        weight: 1,
        enabled: true,
        timeoutMs: 1_000,
      },
    },
    { type: 'ChannelRemoved', event: { ...HEADER, eventId: 'c12', occurredAt: at + 11, channelId: 'old-1' } },
    {
      type: 'PriceSet',
      event: {
        ...HEADER,
        eventId: 'c13',
        occurredAt: at + 12,
        priceId: 'p1',
        model: 'gpt-4o',
        channel: null,
        inputPerMTok: 1,
        outputPerMTok: 2,
        cacheReadPerMTok: null,
        cacheWritePerMTok: null,
        effectiveFrom: at,
      },
    },
  ];
  return events.map((event, index) => ({ event, offset: (index + 1) * 10 }));
}

/**
 * After controlEvents (offsets 10…130): two teams, three memberships (one ended), key_a moved into
 * team_a with a default tag, team_b disabled; offsets 200, 201, …
 */
function teamEvents(at: number): PositionedEvent[] {
  const events: ControlEvent[] = [
    teamCreated({
      teamId: 'team_a',
      name: 'Search',
      models: ['gpt-4o'],
      tags: ['project=search'],
      rpm: 100,
      rpd: 1_000,
    }),
    teamCreated({ teamId: 'team_b', name: 'Support', models: null, modelLimits: [], tags: [], rpm: null, rpd: null }),
    teamMemberSet({ teamId: 'team_a', userId: 'usr_1', role: 'team_admin' }),
    teamMemberSet({ teamId: 'team_a', userId: 'usr_2', role: 'member' }),
    teamMemberSet({ teamId: 'team_b', userId: 'usr_2', role: 'member' }),
    teamMemberRemoved('team_a', 'usr_2'),
    keyUpdated({
      keyId: 'key_a',
      name: 'Alice laptop',
      rpm: 60,
      tpm: 10_000,
      quotaNanoUsd: '1',
      expiresAt: null,
      enabled: true,
      teamId: 'team_a',
      tags: ['env=prod'],
    }),
    teamUpdated({ teamId: 'team_b', name: 'Support (closed)', disabled: true }),
  ];
  return events.map((event, index) => ({
    event: { type: event.type, event: { ...event.event, occurredAt: at + index } } as ControlEvent,
    offset: 200 + index,
  }));
}

/** `store`, counting the rows inserted through it. */
function countingInserts(store: AnalyticsStore): AnalyticsStore & { rows: number } {
  const counting = {
    rows: 0,
    exec: (sql: string) => store.exec(sql),
    query: <T>(sql: string) => store.query<T>(sql),
    insert: async (table: string, rows: ReadonlyArray<Record<string, AnalyticsValue>>) => {
      counting.rows += rows.length;
      await store.insert(table, rows);
    },
    version: () => store.version(),
    close: () => store.close(),
  };
  return counting;
}

/** A spend_by_team_day row of one request. */
function teamSpend(day: string, teamId: string, nano: bigint): Record<string, AnalyticsValue> {
  return {
    day,
    team_id: teamId,
    requests: 1,
    input_tokens: 10,
    cached_input_tokens: 0,
    cache_write_tokens: 0,
    output_tokens: 5,
    reasoning_tokens: 0,
    tokens: 15,
    cost_usd: new Decimal(nano),
  };
}

/** A RequestCompleted of `key` on `channel`, finished `at`, 2 s long. */
function request(n: number, at: number, overrides: Partial<RequestCompleted>): RequestCompleted {
  return requestCompleted({
    eventId: `rc_${n}`,
    requestId: `req_${n}`,
    occurredAt: at,
    latencyMs: 2_000,
    startedAt: at - 2_000,
    userId: null,
    ...overrides,
  });
}

/** A failed attempt of request n on `channel`, followed by `next` (null: none was left). */
function failover(n: number, at: number, channel: string, next: string | null): FailoverOccurred {
  return {
    eventId: `fo_${n}_${channel}`,
    occurredAt: at,
    requestId: `req_${n}`,
    keyId: 'key_a',
    model: 'gpt-4o',
    channelId: channel,
    errorKind: 'upstream-unavailable',
    upstreamStatus: 503,
    latencyMs: 30,
    retryAfterMs: null,
    nextChannelId: next,
  };
}

const FAILED_NO_USAGE = {
  status: 'failed',
  httpStatus: 503,
  errorKind: 'upstream-unavailable',
  ttfbMs: null,
  usage: {
    inputTokens: 0,
    cachedInputTokens: 0,
    cacheWriteTokens: 0,
    outputTokens: 0,
    reasoningTokens: 0,
    usageSource: 'none',
  },
} as const;

describe.each(ANALYTICS_ENGINES)('analyst tables on $name', (engine: AnalyticsEngine) => {
  let opened: TestAnalyticsStore | undefined;
  async function open(): Promise<AnalyticsStore> {
    opened = await engine.open();
    return opened.store;
  }
  afterEach(async () => {
    await opened?.dispose();
    opened = undefined;
  });

  it('upgrades a filled database at 012: day and started_at on old rows, a give-up becomes NULL, dimension tables', async () => {
    const store = await open();
    const all = await loadMigrations();
    await migrate(store, { migrations: all.filter((m) => m.version <= 12) });
    const at = Date.parse('2026-03-01T00:00:01.250Z');
    const {
      day: _d,
      started_at: _s,
      started_at_ms: _sm,
      team_id: _t,
      end_user_id: _e,
      tags: _g,
      operation: _o,
      model_chain: _mc,
      answered_model: _am,
      affinity: _af,
      credential_id: _ci,
      credential_rotations: _cr,
      ...oldRow
    } = projectConsumptionRow(request(1, at, {}), [], at + 5).row;
    await store.insert('consumption_log', [oldRow]);
    await store.insert(
      'failovers',
      [failover(1, at, 'dead-1', 'openai-1'), failover(2, at, 'dead-1', null)].map((event) => ({
        ...projectFailoverRow(event),
        next_channel_id: event.nextChannelId ?? '',
      })),
    );
    // 014 stopped after its swap, before dropping the old table: the run resumes it.
    for (const statement of all.find((m) => m.version === 14)!.statements.slice(0, 4)) await store.exec(statement);
    expect(await migrate(store)).toEqual(
      expect.arrayContaining([
        '013-consumption-log-day-started-at',
        '014-failovers-next-channel-nullable',
        '015-dimension-tables',
      ]),
    );
    expect(
      await store.query(
        'SELECT toString(day) AS day, toString(started_at) AS started_at, toString(started_at_ms) AS started_ms, usage_source FROM consumption_log FINAL',
      ),
    ).toEqual([
      {
        day: '2026-03-01',
        started_at: '2026-02-28 23:59:59',
        started_ms: String(at - 2_000),
        usage_source: 'reported',
      },
    ]);
    expect(await store.query('SELECT event_id, next_channel_id FROM failovers FINAL ORDER BY event_id')).toEqual([
      { event_id: 'fo_1_dead-1', next_channel_id: 'openai-1' },
      { event_id: 'fo_2_dead-1', next_channel_id: null },
    ]);
    const tables = await store.query<{ name: string }>(
      "SELECT name FROM system.tables WHERE database = currentDatabase() AND name IN ('users', 'keys', 'channels', 'failovers_013', 'failovers_014') ORDER BY name",
    );
    expect(tables.map((t) => t.name)).toEqual(['channels', 'keys', 'users']);
  });

  it('folds a batch of 10 000 new keys (the default batch size) once: its state lookups stay under max_query_size', async () => {
    const store = await open();
    await migrate(store);
    const at = Date.parse('2026-03-01T10:00:00Z');
    // Key ids of 36 characters: one lookup listing all of them would pass ClickHouse's 256 KiB limit.
    const events: PositionedEvent[] = Array.from({ length: 10_000 }, (_, i) => ({
      offset: i + 1,
      event: {
        type: 'KeyCreated',
        event: {
          ...HEADER,
          ...LIMITS,
          eventId: `bulk-${i}`,
          occurredAt: at + i,
          keyId: `key_${String(i).padStart(32, '0')}`,
          publicId: `pub_${i}`,
          digest: `digest-${i}`,
          name: `bulk ${i}`,
          userId: null,
          quotaNanoUsd: null,
          expiresAt: null,
          models: null,
        },
      },
    }));
    await writeDimensions(store, events);
    await writeDimensions(store, events); // redelivered: every key is found, nothing is inserted again
    expect(await store.query('SELECT toString(count()) AS n FROM keys')).toEqual([{ n: '10000' }]);
  });

  it('folds control events into users, keys and channels once, without secrets', async () => {
    const store = await open();
    await migrate(store);
    const at = Date.parse('2026-03-01T10:00:00Z');
    const events = controlEvents(at);
    await writeDimensions(store, events);
    await writeDimensions(store, events); // redelivered: nothing new
    await writeDimensions(store, [events[3]!]); // an old event replayed alone: skipped by version
    const counts = await store.query<{ n: string }>('SELECT toString(count()) AS n FROM keys');
    expect(counts).toEqual([{ n: '3' }]);
    const keys = await store.query(
      'SELECT key_id, public_id, name, user_id, status, rpm, tpm, toString(quota_usd) AS quota, toString(revoked_at) AS revoked, toString(revoked_at_ms) AS revoked_ms, toString(created_at_ms) AS created_ms, toString(version) AS version FROM keys FINAL ORDER BY key_id',
    );
    expect(keys).toEqual([
      {
        key_id: 'key_a',
        public_id: 'pub_a',
        name: 'Alice laptop',
        user_id: 'usr_1',
        status: 'active',
        rpm: '60',
        tpm: '10000',
        quota: expect.stringMatching(/^0\.0+1$/),
        revoked: null,
        revoked_ms: null,
        created_ms: String(at + 3),
        version: '40',
      },
      {
        key_id: 'key_b',
        public_id: 'pub_b',
        name: 'Bob CI',
        user_id: 'usr_2',
        status: 'revoked',
        rpm: null,
        tpm: null,
        quota: null,
        revoked: '2026-03-01 10:00:00',
        revoked_ms: String(at + 6),
        created_ms: String(at + 4),
        version: '70',
      },
      {
        key_id: 'key_c',
        public_id: 'pub_c',
        name: 'Shared (off)',
        user_id: '',
        status: 'disabled',
        rpm: null,
        tpm: null,
        quota: null,
        revoked: null,
        revoked_ms: null,
        created_ms: String(at + 5),
        version: '80',
      },
    ]);
    const users = await store.query<Record<string, unknown>>(
      'SELECT user_id, name, role, login, status, toString(quota_usd) AS quota FROM users FINAL ORDER BY user_id',
    );
    expect(users.map((u) => ({ ...u, quota: u.quota === null ? null : decimalNano(u.quota) }))).toEqual([
      { user_id: 'usr_1', name: 'Alice', role: 'user', login: 'alice', status: 'active', quota: 12_500_000_000n },
      { user_id: 'usr_2', name: 'Bob', role: 'admin', login: '', status: 'active', quota: null },
    ]);
    expect(
      await store.query(
        'SELECT channel_id, provider, protocol, models, priority, weight, status, toString(removed_at_ms) AS removed_ms FROM channels FINAL ORDER BY channel_id',
      ),
    ).toEqual([
      {
        channel_id: 'dead-1',
        provider: 'anthropic',
        protocol: 'anthropic-messages',
        models: ['claude'],
        priority: 1,
        weight: 2.5,
        status: 'active',
        removed_ms: null,
      },
      {
        channel_id: 'old-1',
        provider: 'mock',
        protocol: '',
        models: [],
        priority: 0,
        weight: 1,
        status: 'removed',
        removed_ms: String(at + 11),
      },
      {
        channel_id: 'openai-1',
        provider: 'openai',
        protocol: '',
        models: ['gpt-4o'],
        priority: 0,
        weight: 1,
        status: 'active',
        removed_ms: null,
      },
    ]);
    const dumped = JSON.stringify(
      await Promise.all(['users', 'keys', 'channels'].map((table) => store.query(`SELECT * FROM ${table}`))),
    );
    expect(dumped).not.toMatch(/secret/);
    const columns = await store.query<{ name: string }>(
      "SELECT name FROM system.columns WHERE database = currentDatabase() AND table IN ('users', 'keys', 'channels')",
    );
    expect(columns.map((c) => c.name).filter((name) => /digest|cipher|hash|password|api_key/.test(name))).toEqual([]);
  });

  it('gives keys written before 019 no team, then folds teams, members and key teams once; spend per team names them', async () => {
    const store = await open();
    const all = await loadMigrations();
    await migrate(store, { migrations: all.filter((m) => m.version <= 18) });
    const at = Date.now() - 3_600_000;
    // The key rows the consumer wrote before 019: no team_id or tags column yet.
    const before = emptyDimensionStates();
    for (const { event, offset } of controlEvents(at)) foldDimensionEvent(before, event, offset);
    await store.insert(
      'keys',
      [...before.keys.values()].map((key) => {
        const { team_id: _team, tags: _tags, ...old } = dimensionRow('keys', key);
        return old;
      }),
    );
    expect(await migrate(store)).toEqual([
      '019-team-dimensions',
      '020-operation',
      '021-routing',
      '022-cache-economics',
      '023-cache-spend-table',
    ]);
    expect(await store.query('SELECT key_id, team_id, tags FROM keys FINAL ORDER BY key_id')).toEqual(
      ['key_a', 'key_b', 'key_c'].map((key_id) => ({ key_id, team_id: '', tags: [] })),
    );

    const counting = countingInserts(store);
    const events = teamEvents(at + 60_000);
    await writeDimensions(counting, events.slice(0, 4));
    await writeDimensions(counting, events.slice(4)); // loads team_a/usr_2, team_b and key_a back
    const written = counting.rows;
    expect(written).toBe(4 + 4);
    await writeDimensions(counting, events); // redelivered: nothing new
    await writeDimensions(counting, events.slice(2, 6));
    expect(counting.rows).toBe(written);

    expect(
      await store.query(
        'SELECT team_id, name, status, models, tags, rpm, rpd, toString(created_at_ms) AS created_ms, toString(version) AS version FROM teams FINAL ORDER BY team_id',
      ),
    ).toEqual([
      {
        team_id: 'team_a',
        name: 'Search',
        status: 'active',
        models: ['gpt-4o'],
        tags: ['project=search'],
        rpm: '100',
        rpd: '1000',
        created_ms: String(at + 60_000),
        version: '200',
      },
      {
        team_id: 'team_b',
        name: 'Support (closed)',
        status: 'disabled',
        models: [],
        tags: [],
        rpm: null,
        rpd: null,
        created_ms: String(at + 60_001),
        version: '207',
      },
    ]);
    expect(
      await store.query(
        'SELECT team_id, user_id, role, status, toString(joined_at_ms) AS joined_ms, toString(removed_at_ms) AS removed_ms FROM team_members FINAL ORDER BY team_id, user_id',
      ),
    ).toEqual([
      {
        team_id: 'team_a',
        user_id: 'usr_1',
        role: 'team_admin',
        status: 'active',
        joined_ms: String(at + 60_002),
        removed_ms: null,
      },
      {
        team_id: 'team_a',
        user_id: 'usr_2',
        role: 'member',
        status: 'removed',
        joined_ms: String(at + 60_003),
        removed_ms: String(at + 60_005),
      },
      {
        team_id: 'team_b',
        user_id: 'usr_2',
        role: 'member',
        status: 'active',
        joined_ms: String(at + 60_004),
        removed_ms: null,
      },
    ]);
    expect(
      await store.query('SELECT key_id, name, user_id, team_id, tags, status FROM keys FINAL ORDER BY key_id'),
    ).toEqual([
      {
        key_id: 'key_a',
        name: 'Alice laptop',
        user_id: 'usr_1',
        team_id: 'team_a',
        tags: ['env=prod'],
        status: 'active',
      },
      { key_id: 'key_b', name: 'Bob CI', user_id: 'usr_2', team_id: '', tags: [], status: 'revoked' },
      { key_id: 'key_c', name: 'Shared (off)', user_id: '', team_id: '', tags: [], status: 'disabled' },
    ]);

    const day = new Date(at).toISOString().slice(0, 10);
    await store.insert('spend_by_team_day', [
      teamSpend(day, 'team_a', 2_000_000_000n),
      teamSpend(day, 'team_a', 500_000_000n),
      teamSpend(day, 'team_b', 1_000_000_000n),
      teamSpend(day, 'team_gone', 3_000_000_000n),
    ]);
    const perTeam = await store.query<Record<string, unknown>>(
      ANALYST_QUERIES.find((q) => q.title.startsWith('Spend per team per week'))!.sql,
    );
    expect(perTeam.map((r) => [r.team_id, r.team_name, Number(r.requests), decimalNano(r.cost_usd)])).toEqual([
      ['team_gone', '', 1, 3_000_000_000n], // a team the dimension tables do not know: no name
      ['team_a', 'Search', 2, 2_500_000_000n],
      ['team_b', 'Support (closed)', 1, 1_000_000_000n],
    ]);
  });

  it('answers the analyst queries: spend by name, a single dead channel fails over at rate 0, no-usage and revoked-key requests', async () => {
    const store = await open();
    await migrate(store);
    const now = Date.now();
    const hourAgo = now - 3_600_000;
    await writeDimensions(store, controlEvents(hourAgo - 60_000));
    // Requests: 1 served by openai-1 after dead-1 failed over to it; 2 failed on dead-1 alone
    // (a single dead channel: nothing to fail over to); 3 served by openai-1 with key_b after its revocation.
    const requests = [
      request(1, hourAgo, { keyId: 'key_a', channelId: 'openai-1', attempts: 2 }),
      request(2, hourAgo, {
        keyId: 'key_a',
        channelId: 'dead-1',
        provider: 'anthropic',
        upstreamModel: 'claude',
        attempts: 1,
        ...FAILED_NO_USAGE,
      }),
      request(3, hourAgo, { keyId: 'key_b', channelId: 'openai-1' }),
    ];
    await store.insert(
      'consumption_log',
      requests.map((event) => projectConsumptionRow(event, [], now).row),
    );
    await store.insert(
      'failovers',
      [failover(1, hourAgo, 'dead-1', 'openai-1'), failover(2, hourAgo, 'dead-1', null)].map(projectFailoverRow),
    );
    const day = new Date(hourAgo).toISOString().slice(0, 10);
    await store.insert('spend_by_key_day', [
      {
        day,
        key_id: 'key_a',
        requests: 1,
        input_tokens: 100,
        cached_input_tokens: 0,
        cache_write_tokens: 0,
        output_tokens: 20,
        reasoning_tokens: 0,
        tokens: 120,
        cost_usd: new Decimal(1_500_000_000n),
      },
      {
        day,
        key_id: 'key_x',
        requests: 1,
        input_tokens: 1,
        cached_input_tokens: 0,
        cache_write_tokens: 0,
        output_tokens: 1,
        reasoning_tokens: 0,
        tokens: 2,
        cost_usd: new Decimal(1_000_000_000n),
      },
    ]);

    const [spend, , rate, perDay, revoked] = await Promise.all(
      ANALYST_QUERIES.map((query) => store.query<Record<string, unknown>>(query.sql)),
    );
    expect(spend?.map((r) => [r.key_id, r.key_name, r.owner, decimalNano(r.cost_usd)])).toEqual([
      ['key_a', 'Alice laptop', 'Alice', 1_500_000_000n],
      ['key_x', '', '', 1_000_000_000n], // a key the dimension tables do not know: empty names
    ]);
    const byChannel = Object.fromEntries(
      (rate ?? []).map((r) => [
        r.channel_id,
        [
          r.provider,
          Number(r.attempts),
          Number(r.failed_over),
          Number(r.failed_last),
          Number(r.failover_rate),
          Number(r.error_rate),
        ],
      ]),
    );
    expect(byChannel).toEqual({ 'openai-1': ['openai', 2, 0, 0, 0, 0], 'dead-1': ['anthropic', 2, 1, 1, 0.5, 1] });
    expect(perDay?.map((r) => [r.status, Number(r.requests), Number(r.without_usage), Number(r.longest_ms)])).toEqual([
      ['completed', 2, 0, 2_000],
      ['failed', 1, 1, 2_000],
    ]);
    expect(revoked?.map((r) => [r.key_id, r.key_name, Number(r.requests)])).toEqual([['key_b', 'Bob CI', 1]]);
  });

  it('gives a single dead channel failover rate 0 (its one failed attempt had no channel after it)', async () => {
    const store = await open();
    await migrate(store);
    const at = Date.now() - 60_000;
    await store.insert('consumption_log', [
      projectConsumptionRow(request(1, at, { channelId: 'dead-1', ...FAILED_NO_USAGE }), [], at).row,
    ]);
    await store.insert('failovers', [projectFailoverRow(failover(1, at, 'dead-1', null))]);
    const rate = await store.query<Record<string, unknown>>(ANALYST_QUERIES[2]!.sql);
    expect(
      rate.map((r) => [
        r.channel_id,
        Number(r.attempts),
        Number(r.failed_over),
        Number(r.failover_rate),
        Number(r.error_rate),
      ]),
    ).toEqual([['dead-1', 1, 0, 0, 1]]);
    const [row] = await store.query<Record<string, unknown>>(
      'SELECT usage_source, toString(started_at_ms) AS s, toString(occurred_at_ms) AS o, toString(day) AS d FROM consumption_log FINAL',
    );
    expect(row?.usage_source).toBe('none');
    expect(Number(row?.s)).toBeLessThanOrEqual(Number(row?.o));
    expect(row?.d).toBe(new Date(at).toISOString().slice(0, 10));
  });
});

describe('README', () => {
  it('shows ANALYST_QUERIES as its analyst SQL block, word for word', async () => {
    const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
    const section = readme.slice(readme.indexOf('### For analysts'));
    const block = /```sql\n([\s\S]*?)\n```/.exec(section)?.[1] ?? '';
    expect(block).toBe(renderAnalystQueries());
  });
});
