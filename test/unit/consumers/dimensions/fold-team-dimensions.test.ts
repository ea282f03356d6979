/**
 * The dimensions consumer's team rows: TeamCreated/TeamUpdated fold into `teams`, TeamMemberSet/
 * TeamMemberRemoved into `team_members`, and a key's team and default tags into `keys` (events
 * written before keys had them read no team and no tags). Folding is idempotent: a redelivered
 * batch, a replay of any range over the tables, or the same log cut into other batches gives
 * identical rows (checked on the pure fold and through writeDimensions on an in-memory table
 * that keeps the highest version per id, as ReplacingMergeTree read with FINAL does).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import avro from 'avsc';
import { describe, expect, it } from 'vitest';
import { dimensionRow } from '../../../../consumers/dimensions/dimension-store.ts';
import { writeDimensions, type PositionedEvent } from '../../../../consumers/dimensions/dimensions-consumer.ts';
import {
  emptyDimensionStates,
  foldDimensionEvent,
  teamMemberId,
  type DimensionStates,
} from '../../../../consumers/dimensions/fold-dimension-rows.ts';
import { Decimal, type AnalyticsStore, type AnalyticsValue } from '../../../../schemas/analytics/analytics-store.ts';
import { decodeControlEvent } from '../../../../schemas/control-plane/control-event-codec.ts';
import type { ControlEvent } from '../../../../schemas/control-plane/control-plane-events.ts';
import { fingerprintToLittleEndian, schemaFingerprint64 } from '../../../../schemas/events/rabin-fingerprint.ts';
import {
  keyCreated,
  keyUpdated,
  teamCreated,
  teamMemberRemoved,
  teamMemberSet,
  teamUpdated,
  userCreated,
} from '../../control-plane/control-event-fixtures.ts';

const T0 = Date.parse('2026-03-02T09:00:00.250Z');

/** `event` happening `at` ms after T0. */
function at(ms: number, event: ControlEvent): ControlEvent {
  return { type: event.type, event: { ...event.event, occurredAt: T0 + ms } } as ControlEvent;
}

/** A team's life: created, renamed, disabled, re-created; two members, one promoted, removed, back. */
function teamLife(): ControlEvent[] {
  return [
    at(0, userCreated({ userId: 'usr_1' })),
    at(1, teamCreated({ teamId: 'team_a', name: 'Search', tags: ['project=search', 'env=staging'] })),
    at(2, teamMemberSet({ teamId: 'team_a', userId: 'usr_1', role: 'member' })),
    at(3, teamMemberSet({ teamId: 'team_a', userId: 'usr_2', role: 'team_admin' })),
    at(4, keyCreated({ keyId: 'key_s', teamId: 'team_a', userId: null, tags: ['env=prod'] })),
    at(5, teamMemberSet({ teamId: 'team_a', userId: 'usr_1', role: 'team_admin' })),
    at(6, teamUpdated({ teamId: 'team_a', name: 'Search v2', disabled: true, models: ['gpt-4o'], rpm: 5 })),
    at(7, teamMemberRemoved('team_a', 'usr_2')),
    at(8, teamMemberRemoved('team_a', 'usr_2')), // not a member any more: ignored
    at(9, teamCreated({ teamId: 'team_a', name: 'Search again', tags: [] })), // repeated: keeps createdAt and disabled
    at(10, teamUpdated({ teamId: 'team_zz', name: 'Never created' })), // unknown team: ignored
    at(11, teamMemberRemoved('team_a', 'usr_9')), // never a member: ignored
    at(12, teamMemberSet({ teamId: 'team_a', userId: 'usr_2', role: 'member' })), // back, from a new joined_at
    at(13, keyUpdated({ keyId: 'key_s', name: 'moved', teamId: 'team_b', tags: [] })),
    at(14, keyCreated({ keyId: 'key_u', userId: 'usr_1' })), // no team fields: no team, no tags
  ];
}

/** Offsets 100, 101, … for `events`. */
function positioned(events: ReadonlyArray<ControlEvent>, first = 100): PositionedEvent[] {
  return events.map((event, index) => ({ event, offset: first + index }));
}

function foldAll(states: DimensionStates, events: ReadonlyArray<PositionedEvent>): Array<string | undefined> {
  return events.map(({ event, offset }) => foldDimensionEvent(states, event, offset));
}

/** The states as plain sorted entries, for comparing two folds. */
function snapshot(states: DimensionStates): Record<string, Array<[string, unknown]>> {
  return Object.fromEntries(
    Object.entries(states).map(([table, map]) => [
      table,
      [...(map as Map<string, unknown>)].sort(([a], [b]) => a.localeCompare(b)),
    ]),
  );
}

describe('the team rows of the dimension fold', () => {
  it('folds a team, its members and its keys into teams, team_members and keys', () => {
    const states = emptyDimensionStates();
    const changed = foldAll(states, positioned(teamLife()));
    expect(changed).toEqual([
      'users',
      'teams',
      'team_members',
      'team_members',
      'keys',
      'team_members',
      'teams',
      'team_members',
      undefined,
      'teams',
      undefined,
      undefined,
      'team_members',
      'keys',
      'keys',
    ]);
    expect(states.teams.get('team_a')).toEqual({
      team_id: 'team_a',
      name: 'Search again',
      status: 'disabled',
      models: ['gpt-4o-mini'],
      tags: [],
      rpm: 600,
      tpm: null,
      rpd: 10_000,
      tpd: null,
      created_at_ms: T0 + 1,
      updated_at_ms: T0 + 9,
      version: 109,
    });
    expect(states.teams.has('team_zz')).toBe(false);
    expect(states.team_members.get(teamMemberId('team_a', 'usr_1'))).toEqual({
      team_id: 'team_a',
      user_id: 'usr_1',
      role: 'team_admin',
      status: 'active',
      joined_at_ms: T0 + 2,
      removed_at_ms: null,
      updated_at_ms: T0 + 5,
      version: 105,
    });
    expect(states.team_members.get(teamMemberId('team_a', 'usr_2'))).toEqual({
      team_id: 'team_a',
      user_id: 'usr_2',
      role: 'member',
      status: 'active',
      joined_at_ms: T0 + 12,
      removed_at_ms: null,
      updated_at_ms: T0 + 12,
      version: 112,
    });
    expect(states.team_members.has(teamMemberId('team_a', 'usr_9'))).toBe(false);
    expect(states.keys.get('key_s')).toMatchObject({ name: 'moved', user_id: '', team_id: 'team_b', tags: [] });
    expect(states.keys.get('key_u')).toMatchObject({ user_id: 'usr_1', team_id: '', tags: [] });
  });

  it('keeps a removed membership with when it ended, and a key of a team with its tags', () => {
    const states = emptyDimensionStates();
    foldAll(states, positioned(teamLife().slice(0, 8)));
    expect(states.team_members.get(teamMemberId('team_a', 'usr_2'))).toMatchObject({
      role: 'team_admin',
      status: 'removed',
      joined_at_ms: T0 + 3,
      removed_at_ms: T0 + 7,
      version: 107,
    });
    expect(states.teams.get('team_a')).toMatchObject({ name: 'Search v2', status: 'disabled', models: ['gpt-4o'] });
    expect(states.keys.get('key_s')).toMatchObject({ team_id: 'team_a', tags: ['env=prod'], user_id: '' });
    // A team with every model is an empty allowlist; enabling it again says active.
    foldAll(states, positioned([at(20, teamUpdated({ teamId: 'team_a', disabled: false, models: null }))], 200));
    expect(states.teams.get('team_a')).toMatchObject({ status: 'active', models: [] });
  });

  it('renders the whole-second twins of the ms times, null staying null', () => {
    const states = emptyDimensionStates();
    foldAll(states, positioned(teamLife().slice(0, 8)));
    expect(dimensionRow('teams', states.teams.get('team_a')!)).toMatchObject({
      created_at_ms: T0 + 1,
      created_at: Math.floor((T0 + 1) / 1000),
      updated_at: Math.floor((T0 + 6) / 1000),
    });
    const removed = dimensionRow('team_members', states.team_members.get(teamMemberId('team_a', 'usr_2'))!);
    expect(removed).toMatchObject({ joined_at: Math.floor((T0 + 3) / 1000), removed_at: Math.floor((T0 + 7) / 1000) });
    const active = dimensionRow('team_members', states.team_members.get(teamMemberId('team_a', 'usr_1'))!);
    expect(active).toMatchObject({ removed_at: null, removed_at_ms: null });
  });

  it('changes nothing when the log is folded again, whole or from any offset', () => {
    const events = positioned(teamLife());
    const states = emptyDimensionStates();
    foldAll(states, events);
    const folded = snapshot(states);
    expect(foldAll(states, events).every((table) => table === undefined)).toBe(true);
    for (let from = 0; from < events.length; from += 1) {
      expect(foldAll(states, events.slice(from)).every((table) => table === undefined)).toBe(true);
      expect(foldAll(states, [events[from]!])).toEqual([undefined]);
    }
    expect(snapshot(states)).toEqual(folded);
  });

  it('gives the same rows however the log is cut into batches', () => {
    const events = positioned(teamLife());
    const whole = emptyDimensionStates();
    foldAll(whole, events);
    for (let cut = 1; cut < events.length; cut += 1) {
      const states = emptyDimensionStates();
      foldAll(states, events.slice(0, cut));
      foldAll(states, events.slice(cut));
      expect(snapshot(states), `cut at ${cut}`).toEqual(snapshot(whole));
    }
  });

  it('folds a KeyCreated and a KeyUpdated written before keys had a team as a key of no team and no tags', () => {
    const avroDir = fileURLToPath(new URL('../../../../schemas/control-plane/avro/history/', import.meta.url));
    const decodeV1 = (file: string, event: ControlEvent): ControlEvent => {
      const v1 = JSON.parse(readFileSync(`${avroDir}${file}`, 'utf8')) as object;
      const body = avro.Type.forSchema(v1 as avro.Schema).toBuffer(event.event);
      return decodeControlEvent(
        Buffer.concat([Buffer.from([0xc3, 0x01]), fingerprintToLittleEndian(schemaFingerprint64(v1)), body]),
      );
    };
    const states = emptyDimensionStates();
    foldAll(
      states,
      positioned([
        at(0, keyCreated({ keyId: 'key_old', teamId: 'team_a', tags: ['env=prod'] })),
        decodeV1('key-updated.v1.avsc', at(1, keyUpdated({ keyId: 'key_old', name: 'old writer' }))),
        decodeV1('key-created.v1.avsc', at(2, keyCreated({ keyId: 'key_v1' }))),
      ]),
    );
    expect(states.keys.get('key_old')).toMatchObject({ name: 'old writer', team_id: '', tags: [] });
    expect(states.keys.get('key_v1')).toMatchObject({ team_id: '', tags: [] });
  });
});

/**
 * An AnalyticsStore holding each dimension table in memory, keeping per id the row of the highest
 * version (the last written of equal ones), as ReplacingMergeTree read with FINAL: answers the
 * consumer's `SELECT <columns> FROM <table> FINAL WHERE …` with every row of the table.
 */
function replacingTables(): AnalyticsStore & {
  readonly tables: Map<string, Map<string, Record<string, AnalyticsValue>>>;
  inserted: number;
} {
  const tables = new Map<string, Map<string, Record<string, AnalyticsValue>>>();
  const idOf = (table: string, row: Record<string, AnalyticsValue>): string =>
    table === 'team_members'
      ? teamMemberId(String(row.team_id), String(row.user_id))
      : String(row[{ users: 'user_id', keys: 'key_id', channels: 'channel_id', teams: 'team_id' }[table]!]);
  const store = {
    tables,
    inserted: 0,
    async exec() {},
    async insert(table: string, rows: ReadonlyArray<Record<string, AnalyticsValue>>) {
      const byId = tables.get(table) ?? new Map<string, Record<string, AnalyticsValue>>();
      tables.set(table, byId);
      for (const row of rows) {
        store.inserted += 1;
        const id = idOf(table, row);
        if (Number(byId.get(id)?.version ?? -1) <= Number(row.version)) byId.set(id, { ...row });
      }
    },
    async query<T>(sql: string): Promise<T[]> {
      const match = /^SELECT (.+) FROM (\w+) FINAL WHERE /.exec(sql);
      if (!match) throw new Error(`unexpected query: ${sql}`);
      const columns = match[1]!.split(', ');
      return [...(tables.get(match[2]!)?.values() ?? [])].map((row) =>
        Object.fromEntries(
          columns.map((column) =>
            column === 'toString(quota_usd) AS quota_text'
              ? ['quota_text', row.quota_usd instanceof Decimal ? row.quota_usd.toString() : null]
              : [column, row[column]],
          ),
        ),
      ) as T[];
    },
    async version() {
      return '0.0-replacing';
    },
    async close() {},
  };
  return store;
}

describe('writeDimensions with team events', () => {
  it('writes identical tables whether the log comes in one batch, in small ones, redelivered or replayed', async () => {
    const events = positioned(teamLife());
    const once = replacingTables();
    await writeDimensions(once, events);
    expect([...once.tables.keys()].sort()).toEqual(['keys', 'team_members', 'teams', 'users']);

    const batched = replacingTables();
    for (let i = 0; i < events.length; i += 4) await writeDimensions(batched, events.slice(i, i + 4));
    expect(batched.tables).toEqual(once.tables);

    const inserted = batched.inserted;
    await writeDimensions(batched, events); // a reset consumer group replays the whole topic
    await writeDimensions(batched, events.slice(5, 9)); // a redelivered batch
    expect(batched.inserted).toBe(inserted); // nothing new written
    expect(batched.tables).toEqual(once.tables);
    expect(once.tables.get('team_members')?.get(teamMemberId('team_a', 'usr_2'))).toMatchObject({
      team_id: 'team_a',
      user_id: 'usr_2',
      status: 'active',
      joined_at: Math.floor((T0 + 12) / 1000),
      version: 112,
    });
  });
});
