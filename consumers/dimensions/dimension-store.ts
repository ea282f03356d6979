/**
 * Reads and writes the dimension tables (`users`, `keys`, `channels`, migration 015; `teams`,
 * `team_members` and the keys' team and tags, 019) for the dimensions consumer: loads the current
 * state of the ids a batch is about (FINAL: the highest version per id) and renders states as
 * insert rows, with the whole-second DateTime columns derived from the ms ones.
 */
import {
  Decimal,
  lookupSlices,
  sqlLiteral,
  type AnalyticsStore,
  type AnalyticsValue,
} from '../../schemas/analytics/analytics-store.ts';
import { DIMENSION_SECOND_COLUMNS } from '../../schemas/analytics/tables.ts';
import {
  DIMENSION_TABLES,
  emptyDimensionStates,
  teamMemberId,
  type DimensionState,
  type DimensionStates,
  type DimensionTable,
} from './fold-dimension-rows.ts';

/** How a table's rows are found by state id: the SQL condition on a set of ids, and a loaded row's id. */
interface IdColumns {
  /** `WHERE` condition selecting the rows of `ids` (non-empty). */
  readonly where: (ids: ReadonlyArray<string>) => string;
  readonly idOf: (row: Record<string, unknown>) => string;
}

/** A table whose id is one column. */
function singleId(column: string): IdColumns {
  return {
    where: (ids) => `${column} IN (${ids.map(sqlLiteral).join(', ')})`,
    idOf: (row) => String(row[column]),
  };
}

/** `team_members`, found by (team_id, user_id): a tuple IN, which ClickHouse 18.16 and chdb both run. */
const MEMBER_ID: IdColumns = {
  where: (ids) => {
    const pairs = ids.map((id) => {
      const [teamId, userId] = JSON.parse(id) as [string, string];
      return `(${sqlLiteral(teamId)}, ${sqlLiteral(userId)})`;
    });
    return `(team_id, user_id) IN (${pairs.join(', ')})`;
  },
  idOf: (row) => teamMemberId(String(row.team_id), String(row.user_id)),
};

/** Each table's ids and the columns that hold an ms time with a whole-second twin (`x_ms` → `x`). */
const TABLES: Record<DimensionTable, IdColumns & { readonly times: ReadonlyArray<string> }> = {
  users: { ...singleId('user_id'), times: DIMENSION_SECOND_COLUMNS.users },
  keys: { ...singleId('key_id'), times: DIMENSION_SECOND_COLUMNS.keys },
  channels: { ...singleId('channel_id'), times: DIMENSION_SECOND_COLUMNS.channels },
  teams: { ...singleId('team_id'), times: DIMENSION_SECOND_COLUMNS.teams },
  team_members: { ...MEMBER_ID, times: DIMENSION_SECOND_COLUMNS.team_members },
};

/** State columns read back as numbers (64-bit integers come back as JSON strings), nullable ones included. */
const NUMERIC = new Set([
  'rpm',
  'tpm',
  'rpd',
  'tpd',
  'expires_at_ms',
  'created_at_ms',
  'revoked_at_ms',
  'removed_at_ms',
  'joined_at_ms',
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
    'team_id',
    'tags',
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
  teams: [
    'team_id',
    'name',
    'status',
    'models',
    'tags',
    'rpm',
    'tpm',
    'rpd',
    'tpd',
    'created_at_ms',
    'updated_at_ms',
    'version',
  ],
  team_members: ['team_id', 'user_id', 'role', 'status', 'joined_at_ms', 'removed_at_ms', 'updated_at_ms', 'version'],
};

/**
 * Loads the current state of `ids` per table into fresh maps (ids with no row are absent), in
 * lookups of LOOKUP_VALUES ids (a query's text stays under ClickHouse's max_query_size).
 * @throws the store's Error when a query fails
 */
export async function loadDimensionStates(
  store: AnalyticsStore,
  ids: Readonly<Record<DimensionTable, ReadonlySet<string>>>,
): Promise<DimensionStates> {
  const states = emptyDimensionStates();
  for (const table of DIMENSION_TABLES) {
    const wanted = [...ids[table]];
    if (wanted.length === 0) continue;
    const { where, idOf } = TABLES[table];
    // quota_usd as exact text (a JSON number would lose digits), under another name: an alias equal to a column name is ambiguous.
    const columns = STATE_COLUMNS[table]
      .map((column) => (column === 'quota_usd' ? 'toString(quota_usd) AS quota_text' : column))
      .join(', ');
    for (const slice of lookupSlices(wanted)) {
      const rows = await store.query<Record<string, unknown>>(
        `SELECT ${columns} FROM ${table} FINAL WHERE ${where(slice)}`,
      );
      for (const row of rows) (states[table] as Map<string, DimensionState>).set(idOf(row), stateOf(row));
    }
  }
  return states;
}

/** A loaded row as a state: numbers parsed, the quota text as an exact Decimal. */
function stateOf(row: Record<string, unknown>): DimensionState {
  const state: Record<string, unknown> = {};
  for (const [column, value] of Object.entries(row)) {
    if (column === 'quota_text') state.quota_usd = typeof value === 'string' ? new Decimal(nanoOf(value)) : null;
    else state[column] = NUMERIC.has(column) && value !== null ? Number(value) : value;
  }
  return state as unknown as DimensionState;
}

/** Exact decimal text (`'12.5'`, `'12.500000000'`) as nano-units. */
function nanoOf(text: string): bigint {
  const [whole = '0', fraction = ''] = text.split('.');
  return BigInt(whole) * 1_000_000_000n + BigInt(fraction.padEnd(9, '0').slice(0, 9));
}

/** The insert row of a state: its columns plus each `x` = whole seconds of `x_ms` (null stays null). */
export function dimensionRow(table: DimensionTable, state: DimensionState): Record<string, AnalyticsValue> {
  const row: Record<string, AnalyticsValue> = { ...(state as unknown as Record<string, AnalyticsValue>) };
  for (const time of TABLES[table].times) {
    const ms = row[`${time}_ms`];
    row[time] = typeof ms === 'number' ? Math.floor(ms / 1000) : null;
  }
  return row;
}
