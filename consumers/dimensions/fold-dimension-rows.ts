/**
 * The dimension tables' pure fold: control-plane events (config topic) → the state of each user,
 * key, channel, team and team membership as one row of `users`, `keys`, `channels`
 * (schemas/analytics/migrations/015-dimension-tables.sql), `teams` or `team_members`
 * (019-team-dimensions.sql). Each state carries `version`, the config-topic offset of the last
 * event folded into it; an event at or below that offset was already folded (a redelivery or a
 * replay) and changes nothing, so folding is idempotent. The config topic has one partition, so
 * offsets order every change. A state depends only on the events of its own id, so a replay of
 * any range of the topic, over any earlier state of the tables, gives the same rows.
 *
 * Rules follow the gateway's projection (schemas/control-plane/control-plane-fold.ts and
 * team-registry.ts): a repeated KeyCreated keeps createdAt and any revocation; a revocation never
 * un-revokes nor postpones; UserCredentialsSet keeps only the login (never the password hash);
 * ChannelRemoved keeps the row with status `removed`; a key's team and default tags are replaced
 * by each KeyCreated and KeyUpdated (events written before keys had them read no team and no
 * tags); a repeated TeamCreated keeps createdAt and the disabled flag; TeamUpdated of an unknown
 * team, TeamMemberRemoved of a user who is not a member, are ignored. One difference: a
 * TeamMemberSet is folded whether or not its team and user exist (the admin API never writes one
 * that names an unknown team or user; the gateway ignores such a membership), since checking
 * another entity would make a replayed membership depend on rows written after it; join to
 * `teams` and `users` to leave such rows out.
 * Secrets (key digests, channel credentials, password hashes) are never read. Events about other
 * entities (prices, admin tokens, budgets, alert webhooks) are ignored.
 */
import { Decimal } from '../../schemas/analytics/analytics-store.ts';
import type {
  ChannelRow,
  DIMENSION_SECOND_COLUMNS,
  DimensionVersionColumns,
  KeyRow,
  TeamMemberRow,
  TeamRow,
  UserRow,
} from '../../schemas/analytics/tables.ts';
import type {
  ChannelUpserted,
  ControlEvent,
  KeyCreated,
  KeyRevoked,
  KeyUpdated,
  TeamCreated,
  TeamMemberRemoved,
  TeamMemberSet,
  TeamUpdated,
  UserCreated,
  UserUpdated,
} from '../../schemas/control-plane/control-plane-events.ts';

/** Fields every dimension state has: `updated_at_ms` (ms since epoch, UTC) and `version` (config-topic offset). */
type DimensionStateBase = Omit<DimensionVersionColumns, 'updated_at'>;

/** A user as the `users` table holds it, without the whole-second columns (dimensionRow adds them). */
export type UserState = Omit<UserRow, (typeof DIMENSION_SECOND_COLUMNS.users)[number]>;

/** A key as the `keys` table holds it (never its digest), without the whole-second columns. */
export type KeyState = Omit<KeyRow, (typeof DIMENSION_SECOND_COLUMNS.keys)[number]>;

/** A channel as the `channels` table holds it (never its credential), without the whole-second columns. */
export type ChannelState = Omit<ChannelRow, (typeof DIMENSION_SECOND_COLUMNS.channels)[number]>;

/** A team as the `teams` table holds it, without the whole-second columns. */
export type TeamState = Omit<TeamRow, (typeof DIMENSION_SECOND_COLUMNS.teams)[number]>;

/** A user's membership of a team as the `team_members` table holds it, without the whole-second columns. */
export type TeamMemberState = Omit<TeamMemberRow, (typeof DIMENSION_SECOND_COLUMNS.team_members)[number]>;

/** Any dimension state. */
export type DimensionState = UserState | KeyState | ChannelState | TeamState | TeamMemberState;

/**
 * The dimension tables and their states, by id: what the consumer loads, folds into and writes.
 * A membership's id is teamMemberId(teamId, userId).
 */
export interface DimensionStates {
  readonly users: Map<string, UserState>;
  readonly keys: Map<string, KeyState>;
  readonly channels: Map<string, ChannelState>;
  readonly teams: Map<string, TeamState>;
  readonly team_members: Map<string, TeamMemberState>;
}

/** A dimension table's name. */
export type DimensionTable = keyof DimensionStates;

/** Every dimension table, in the order the consumer writes them. */
export const DIMENSION_TABLES: ReadonlyArray<DimensionTable> = ['users', 'keys', 'channels', 'teams', 'team_members'];

/** Empty states of every dimension table. */
export function emptyDimensionStates(): DimensionStates {
  return { users: new Map(), keys: new Map(), channels: new Map(), teams: new Map(), team_members: new Map() };
}

/** The id of a `team_members` state: its team and user, unambiguous whatever characters the ids hold. */
export function teamMemberId(teamId: string, userId: string): string {
  return JSON.stringify([teamId, userId]);
}

/** The table and id an event is about, or undefined for events of no dimension (prices, admin tokens). */
export function dimensionOf(event: ControlEvent): { readonly table: DimensionTable; readonly id: string } | undefined {
  switch (event.type) {
    case 'UserCreated':
    case 'UserUpdated':
    case 'UserCredentialsSet':
      return { table: 'users', id: event.event.userId };
    case 'KeyCreated':
    case 'KeyUpdated':
    case 'KeyRevoked':
      return { table: 'keys', id: event.event.keyId };
    case 'ChannelUpserted':
    case 'ChannelRemoved':
      return { table: 'channels', id: event.event.channelId };
    case 'TeamCreated':
    case 'TeamUpdated':
      return { table: 'teams', id: event.event.teamId };
    case 'TeamMemberSet':
    case 'TeamMemberRemoved':
      return { table: 'team_members', id: teamMemberId(event.event.teamId, event.event.userId) };
    default:
      return undefined;
  }
}

/**
 * Folds one event, found at config-topic `offset`, into `states`. Returns the table whose state
 * changed, or undefined when nothing did: an event of no dimension, one at or below the state's
 * version (already folded), or an update of an entity never created (KeyUpdated, KeyRevoked,
 * UserCredentialsSet of an unknown id: ignored, as the gateway's projection does). Never throws.
 */
export function foldDimensionEvent(
  states: DimensionStates,
  event: ControlEvent,
  offset: number,
): DimensionTable | undefined {
  const target = dimensionOf(event);
  if (!target) return undefined;
  const existing = states[target.table].get(target.id);
  if (existing && existing.version >= offset) return undefined;
  const next = nextState(existing, event, offset);
  if (!next) return undefined;
  (states[target.table] as Map<string, DimensionState>).set(target.id, next);
  return target.table;
}

/** The state after `event`; `existing` is the state of the event's own table (dimensionOf). */
function nextState(
  existing: DimensionStateBase | undefined,
  event: ControlEvent,
  offset: number,
): DimensionState | undefined {
  const stamp = { updated_at_ms: event.event.occurredAt, version: offset };
  const user = existing as UserState | undefined;
  const key = existing as KeyState | undefined;
  const channel = existing as ChannelState | undefined;
  const team = existing as TeamState | undefined;
  const member = existing as TeamMemberState | undefined;
  switch (event.type) {
    case 'UserCreated':
    case 'UserUpdated':
      return userState(user, event.event, stamp);
    case 'UserCredentialsSet':
      return user ? ({ ...user, login: event.event.login.toLowerCase(), ...stamp } satisfies UserState) : undefined;
    case 'KeyCreated':
      return keyCreated(key, event.event, stamp);
    case 'KeyUpdated':
      return key ? keyUpdated(key, event.event, stamp) : undefined;
    case 'KeyRevoked':
      return key ? keyRevoked(key, event.event, stamp) : undefined;
    case 'ChannelUpserted':
      return channelState(channel, event.event, stamp);
    case 'ChannelRemoved':
      return channel
        ? ({ ...channel, status: 'removed', removed_at_ms: event.event.occurredAt, ...stamp } satisfies ChannelState)
        : undefined;
    case 'TeamCreated':
      return teamState(team, event.event, stamp);
    case 'TeamUpdated':
      return team ? teamState(team, event.event, stamp) : undefined;
    case 'TeamMemberSet':
      return memberSet(member, event.event, stamp);
    case 'TeamMemberRemoved':
      return member?.status === 'active' ? memberRemoved(member, event.event, stamp) : undefined;
    default:
      return undefined;
  }
}

type Stamp = Pick<DimensionStateBase, 'updated_at_ms' | 'version'>;

function userState(existing: UserState | undefined, event: UserCreated | UserUpdated, stamp: Stamp): UserState {
  const disabled = 'disabled' in event ? event.disabled : existing?.status === 'disabled';
  return {
    user_id: event.userId,
    name: event.name,
    role: event.role,
    login: existing?.login ?? '',
    status: disabled ? 'disabled' : 'active',
    rpm: event.rpm,
    tpm: event.tpm,
    quota_usd: quotaUsd(event.quotaNanoUsd),
    created_at_ms: existing?.created_at_ms ?? event.occurredAt,
    ...stamp,
  };
}

function keyCreated(existing: KeyState | undefined, event: KeyCreated, stamp: Stamp): KeyState {
  const revoked = existing?.revoked_at_ms ?? null;
  return {
    key_id: event.keyId,
    public_id: event.publicId,
    name: event.name,
    user_id: event.userId ?? '',
    team_id: event.teamId ?? '',
    tags: [...(event.tags ?? [])],
    status: revoked !== null ? 'revoked' : existing?.status === 'disabled' ? 'disabled' : 'active',
    rpm: event.rpm,
    tpm: event.tpm,
    quota_usd: quotaUsd(event.quotaNanoUsd),
    expires_at_ms: event.expiresAt,
    created_at_ms: existing?.created_at_ms ?? event.occurredAt,
    revoked_at_ms: revoked,
    ...stamp,
  };
}

function keyUpdated(existing: KeyState, event: KeyUpdated, stamp: Stamp): KeyState {
  const status = existing.revoked_at_ms !== null ? 'revoked' : event.enabled ? 'active' : 'disabled';
  return {
    ...existing,
    name: event.name,
    team_id: event.teamId ?? '',
    tags: [...(event.tags ?? [])],
    rpm: event.rpm,
    tpm: event.tpm,
    quota_usd: quotaUsd(event.quotaNanoUsd),
    expires_at_ms: event.expiresAt,
    status,
    ...stamp,
  };
}

function keyRevoked(existing: KeyState, event: KeyRevoked, stamp: Stamp): KeyState {
  const revokedAt =
    existing.revoked_at_ms === null ? event.effectiveAt : Math.min(existing.revoked_at_ms, event.effectiveAt);
  return { ...existing, status: 'revoked', revoked_at_ms: revokedAt, ...stamp };
}

function channelState(existing: ChannelState | undefined, event: ChannelUpserted, stamp: Stamp): ChannelState {
  const recreated = existing?.status === 'removed';
  return {
    channel_id: event.channelId,
    provider: event.provider,
    protocol: event.protocol ?? '',
    models: [...event.models],
    priority: event.priority,
    weight: event.weight,
    status: event.enabled ? 'active' : 'disabled',
    rpm: event.rpm,
    tpm: event.tpm,
    timeout_ms: event.timeoutMs,
    created_at_ms: existing && !recreated ? existing.created_at_ms : event.occurredAt,
    removed_at_ms: null,
    ...stamp,
  };
}

function teamState(existing: TeamState | undefined, event: TeamCreated | TeamUpdated, stamp: Stamp): TeamState {
  const disabled = 'disabled' in event ? event.disabled : existing?.status === 'disabled';
  return {
    team_id: event.teamId,
    name: event.name,
    status: disabled ? 'disabled' : 'active',
    models: event.models === null ? [] : [...event.models],
    tags: [...event.tags],
    rpm: event.rpm,
    tpm: event.tpm,
    rpd: event.rpd,
    tpd: event.tpd,
    created_at_ms: existing?.created_at_ms ?? event.occurredAt,
    ...stamp,
  };
}

/** A membership set: a role change keeps joined_at; joining (first, or after a removal) starts a new one. */
function memberSet(existing: TeamMemberState | undefined, event: TeamMemberSet, stamp: Stamp): TeamMemberState {
  const continues = existing?.status === 'active';
  return {
    team_id: event.teamId,
    user_id: event.userId,
    role: event.role,
    status: 'active',
    joined_at_ms: continues ? existing.joined_at_ms : event.occurredAt,
    removed_at_ms: null,
    ...stamp,
  };
}

function memberRemoved(existing: TeamMemberState, event: TeamMemberRemoved, stamp: Stamp): TeamMemberState {
  return { ...existing, status: 'removed', removed_at_ms: event.occurredAt, ...stamp };
}

/** A quota in nano-USD (decimal string) as exact USD; null = unlimited; a malformed one is 0, as the gateway's fold fails closed. */
function quotaUsd(nanoUsd: string | null): Decimal | null {
  if (nanoUsd === null) return null;
  return new Decimal(/^\d+$/.test(nanoUsd) ? BigInt(nanoUsd) : 0n);
}
