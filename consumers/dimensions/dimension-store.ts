/**
 * Reads and writes the dimension tables (`users`, `keys`, `channels`, migration 015) for the
 * dimensions consumer: loads the current state of the ids a batch is about (FINAL: the highest
 * version per id) and renders states as insert rows, with the whole-second DateTime columns
 * derived from the ms ones.
 */
import {
  Decimal,
  sqlLiteral,
  type AnalyticsStore,
  type AnalyticsValue,
} from '../../schemas/analytics/analytics-store.ts';
import { DIMENSION_SECOND_COLUMNS } from '../../schemas/analytics/tables.ts';
import type { ChannelState, DimensionStates, DimensionTable, KeyState, UserState } from './fold-dimension-rows.ts';

/** Each table's id column and the columns that hold an ms time with a whole-second twin (`x_ms` → `x`). */
const TABLES: Record<DimensionTable, { readonly id: string; readonly times: ReadonlyArray<string> }> = {
  users: { id: 'user_id', times: DIMENSION_SECOND_COLUMNS.users },
  keys: { id: 'key_id', times: DIMENSION_SECOND_COLUMNS.keys },
  channels: { id: 'channel_id', times: DIMENSION_SECOND_COLUMNS.channels },
};

/** State columns read back as numbers (64-bit integers come back as JSON strings), nullable ones included. */
const NUMERIC = new Set([
  'rpm',
  'tpm',
  'expires_at_ms',
  'created_at_ms',
  'revoked_at_ms',
  'removed_at_ms',
  'updated_at_ms',
  'version',
  'timeout_ms',
  'priority',
  'weight',
]);

/** Columns each table's state reads (the DateTime twins are derived, the quota read as exact text). */
const STATE_COLUMNS: Record<DimensionTable, ReadonlyArray<string>> = {
  users: [
    'user_id',
    'name',
    'role',
    'login',
    'status',
    'rpm',
    'tpm',
    'quota_usd',
    'created_at_ms',
    'updated_at_ms',
    'version',
  ],
  keys: [
    'key_id',
    'public_id',
    'name',
    'user_id',
    'status',
    'rpm',
    'tpm',
    'quota_usd',
    'expires_at_ms',
    'created_at_ms',
    'revoked_at_ms',
    'updated_at_ms',
    'version',
  ],
  channels: [
    'channel_id',
    'provider',
    'protocol',
    'models',
    'priority',
    'weight',
    'status',
    'rpm',
    'tpm',
    'timeout_ms',
    'created_at_ms',
    'removed_at_ms',
    'updated_at_ms',
    'version',
  ],
};

/**
 * Loads the current state of `ids` per table into fresh maps (ids with no row are absent).
 * @throws the store's Error when a query fails
 */
export async function loadDimensionStates(
  store: AnalyticsStore,
  ids: Readonly<Record<DimensionTable, ReadonlySet<string>>>,
): Promise<DimensionStates> {
  const states: DimensionStates = { users: new Map(), keys: new Map(), channels: new Map() };
  for (const table of Object.keys(TABLES) as DimensionTable[]) {
    const wanted = [...ids[table]];
    if (wanted.length === 0) continue;
    const { id } = TABLES[table];
    // quota_usd as exact text (a JSON number would lose digits), under another name: an alias equal to a column name is ambiguous.
    const columns = STATE_COLUMNS[table]
      .map((column) => (column === 'quota_usd' ? 'toString(quota_usd) AS quota_text' : column))
      .join(', ');
    const rows = await store.query<Record<string, unknown>>(
      `SELECT ${columns} FROM ${table} FINAL WHERE ${id} IN (${wanted.map(sqlLiteral).join(', ')})`,
    );
    for (const row of rows) (states[table] as Map<string, unknown>).set(String(row[id]), stateOf(row));
  }
  return states;
}

/** A loaded row as a state: numbers parsed, the quota text as an exact Decimal. */
function stateOf(row: Record<string, unknown>): UserState | KeyState | ChannelState {
  const state: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (column === 'quota_text') state.quota_usd = typeof value === 'string' ? new Decimal(nanoOf(value)) : null;
    else state[column] = NUMERIC.has(column) && value !== null ? Number(value) : value;
  }
  return state as unknown as UserState | KeyState | ChannelState;
}

/** Exact decimal text (`'12.5'`, `'12.500000000'`) as nano-units. */
function nanoOf(text: string): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole) * 1_000_000_000n + BigInt(fraction.padEnd(9, '0').slice(0, 9));
}

/** The insert row of a state: its columns plus each `x` = whole seconds of `x_ms` (null stays null). */
export function dimensionRow(
  table: DimensionTable,
  state: UserState | KeyState | ChannelState,
): Record<string, AnalyticsValue> {
  const row: Record<string, AnalyticsValue> = { ...(state as unknown as Record<string, AnalyticsValue>) };
  for (const time of TABLES[table].times) {
    const ms = row[`${time}_ms`];
    row[time] = typeof ms === 'number' ? Math.floor(ms / 1000) : null;
  }
  return row;
}
