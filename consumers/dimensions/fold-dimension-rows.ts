/**
 * The dimension tables' pure fold: control-plane events (config topic) → the state of each user,
 * key and channel as one row of `users`, `keys` or `channels`
 * (schemas/analytics/migrations/015-dimension-tables.sql). Each state carries `version`, the
 * config-topic offset of the last event folded into it; an event at or below that offset was
 * already folded (a redelivery or a replay) and changes nothing, so folding is idempotent. The
 * config topic has one partition, so offsets order every change.
 *
 * Rules follow the gateway's projection (schemas/control-plane/control-plane-fold.ts): a repeated
 * KeyCreated keeps createdAt and any revocation; a revocation never un-revokes nor postpones;
 * UserCredentialsSet keeps only the login (never the password hash); ChannelRemoved keeps the row
 * with status `removed`. Secrets (key digests, channel credentials, password hashes) are never read.
 * Events about other entities (prices, admin tokens) are ignored.
 */
import { Decimal } from '../../schemas/analytics/analytics-store.ts';
import type {
  ChannelRow,
  DIMENSION_SECOND_COLUMNS,
  DimensionVersionColumns,
  KeyRow,
  UserRow,
} from '../../schemas/analytics/tables.ts';
import type {
  ChannelUpserted,
  ControlEvent,
  KeyCreated,
  KeyRevoked,
  KeyUpdated,
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

/** The dimension tables and their states, by id: what the consumer loads, folds into and writes. */
export interface DimensionStates {
  readonly users: Map<string, UserState>;
  readonly keys: Map<string, KeyState>;
  readonly channels: Map<string, ChannelState>;
}

/** A dimension table's name. */
export type DimensionTable = keyof DimensionStates;

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
  (states[target.table] as Map<string, DimensionStateBase>).set(target.id, next);
  return target.table;
}

/** The state after `event`; `existing` is the state of the event's own table (dimensionOf). */
function nextState(
  existing: DimensionStateBase | undefined,
  event: ControlEvent,
  offset: number,
): UserState | KeyState | ChannelState | undefined {
  const stamp = { updated_at_ms: event.event.occurredAt, version: offset };
  const user = existing as UserState | undefined;
  const key = existing as KeyState | undefined;
  const channel = existing as ChannelState | undefined;
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

/** A quota in nano-USD (decimal string) as exact USD; null = unlimited; a malformed one is 0, as the gateway's fold fails closed. */
function quotaUsd(nanoUsd: string | null): Decimal | null {
  if (nanoUsd === null) return null;
  return new Decimal(/^\d+$/.test(nanoUsd) ? BigInt(nanoUsd) : 0n);
}
