/**
 * Control-plane events: console and CLI actions append these to the config topic
 * (`tollgate.config`, infinite retention, keyed by entity id); every gateway node folds them into
 * its projection, and replaying the topic rebuilds it. Secrets never appear in clear: keys travel
 * as HMAC-SHA-256 digests, channel credentials as AES-256-GCM ciphertext, console passwords as
 * scrypt hashes.
 * Every event carries `eventId`, `occurredAt` (ms) and `actor` (who made the change).
 *
 * The TypeScript types are derived by the compiler from the current Avro schemas (./avro/*.avsc,
 * imported as data through control-avro-schemas.ts; AvroToTs), so each field is declared once:
 * its unit and meaning are in the `.avsc` file's `doc` attributes.
 */
import type { AvroToTs, Assert, Equals } from '../events/avro-to-ts.ts';
import type {
  adminTokenCreatedSchema,
  adminTokenRevokedSchema,
  alertWebhookRemovedSchema,
  alertWebhookSetSchema,
  budgetRemovedSchema,
  budgetSetSchema,
  channelRemovedSchema,
  channelUpsertedSchema,
  ControlEventType,
  keyCreatedSchema,
  keyRevokedSchema,
  keyUpdatedSchema,
  priceSetSchema,
  teamCreatedSchema,
  teamMemberRemovedSchema,
  teamMemberSetSchema,
  teamUpdatedSchema,
  userCreatedSchema,
  userCredentialsSetSchema,
  userUpdatedSchema,
} from './control-avro-schemas.ts';

/** A user was created (./avro/user-created.avsc); `quotaNanoUsd` covers all the user's keys. */
export type UserCreated = AvroToTs<typeof userCreatedSchema>;

/** A user's settings changed, full replacement (./avro/user-updated.avsc). */
export type UserUpdated = AvroToTs<typeof userUpdatedSchema>;

/**
 * The user `userId` signs in to the console as `login` with a password whose scrypt hash is
 * `passwordHash` (see gateway/control-plane/password-hash.ts); replaces any earlier login and
 * password of the user (./avro/user-credentials-set.avsc).
 */
export type UserCredentialsSet = AvroToTs<typeof userCredentialsSetSchema>;

/**
 * The key fields added after version 1 (team, default tags, daily limits, per-model limits),
 * optional so producers of keys without them need not mention them (each encodes as its default:
 * null, or `[]`); a decoded event always has them.
 */
export type KeyOwnershipField = 'teamId' | 'tags' | 'rpd' | 'tpd' | 'modelLimits';

/** KeyCreated as decoded: every field present. */
export type DecodedKeyCreated = AvroToTs<typeof keyCreatedSchema>;

/** KeyUpdated as decoded: every field present. */
export type DecodedKeyUpdated = AvroToTs<typeof keyUpdatedSchema>;

/**
 * An API key was created; only its digest travels (./avro/key-created.avsc). The fields of
 * KeyOwnershipField may be left out (null, `[]`).
 */
export type KeyCreated = Omit<DecodedKeyCreated, KeyOwnershipField> &
  Partial<Pick<DecodedKeyCreated, KeyOwnershipField>>;

/**
 * A key's settings changed, full replacement (./avro/key-updated.avsc). The fields of
 * KeyOwnershipField may be left out (null, `[]`): an update that leaves them out clears them.
 */
export type KeyUpdated = Omit<DecodedKeyUpdated, KeyOwnershipField> &
  Partial<Pick<DecodedKeyUpdated, KeyOwnershipField>>;

/** A key was revoked, from `effectiveAt` (= occurredAt, or later for a rotation's grace period; ./avro/key-revoked.avsc). */
export type KeyRevoked = AvroToTs<typeof keyRevokedSchema>;

/** The ChannelUpserted fields added after version 1, optional so producers of other channels need not mention them (each encodes as null). */
type ChannelUpsertedOptionalField = 'mock' | 'deadlineMs' | 'minStreamRate' | 'cloud' | 'headers' | 'credentials';

/** ChannelUpserted as decoded: every field present. */
type DecodedChannelUpserted = AvroToTs<typeof channelUpsertedSchema>;

/**
 * A channel as stored, fields mirroring the config file's channel; the credential is encrypted
 * (./avro/channel-upserted.avsc). `mock`, `deadlineMs`, `minStreamRate`, `cloud`, `headers` and `credentials` may be left out
 * (null, `{}`, `[]`).
 */
export type ChannelUpserted = Omit<DecodedChannelUpserted, ChannelUpsertedOptionalField> &
  Partial<Pick<DecodedChannelUpserted, ChannelUpsertedOptionalField>>;

/** Behaviour of the built-in fake model of a mock channel (mirrors the config file's `mock`). */
export type ChannelMock = NonNullable<DecodedChannelUpserted['mock']>;

/** Minimum rate of a streamed upstream body (mirrors the config file's `minStreamRate`). */
export type ChannelMinStreamRate = NonNullable<DecodedChannelUpserted['minStreamRate']>;

/** A channel was removed (./avro/channel-removed.avsc). */
export type ChannelRemoved = AvroToTs<typeof channelRemovedSchema>;

/** PriceSet as decoded: every field present. */
type DecodedPriceSet = AvroToTs<typeof priceSetSchema>;

/**
 * One price-book entry set, the same fields as the config file's `prices` (./avro/price-set.avsc;
 * USD per million tokens). `cacheWrite1hPerMTok` (version 2) may be left out by producers: it
 * encodes as null (= the cache-write price); decoded events always carry it.
 */
export type PriceSet = Omit<DecodedPriceSet, 'cacheWrite1hPerMTok'> &
  Partial<Pick<DecodedPriceSet, 'cacheWrite1hPerMTok'>>;

/**
 * A personal admin token was created: the admin API accepts it as a Bearer token and records its
 * `name` as the actor of every change made with it. Only the digest travels, never the token
 * (./avro/admin-token-created.avsc).
 */
export type AdminTokenCreated = AvroToTs<typeof adminTokenCreatedSchema>;

/** A personal admin token was revoked: refused from this event on, never reinstated (./avro/admin-token-revoked.avsc). */
export type AdminTokenRevoked = AvroToTs<typeof adminTokenRevokedSchema>;

/**
 * A team (project) was created with its limits, model allowlist, per-model limits and default
 * tags; it has no members yet (./avro/team-created.avsc).
 */
export type TeamCreated = AvroToTs<typeof teamCreatedSchema>;

/** A team's settings changed, full replacement; its members are kept (./avro/team-updated.avsc). */
export type TeamUpdated = AvroToTs<typeof teamUpdatedSchema>;

/** A user became a member of a team, or their role in it changed (./avro/team-member-set.avsc). */
export type TeamMemberSet = AvroToTs<typeof teamMemberSetSchema>;

/** A user left a team (./avro/team-member-removed.avsc). */
export type TeamMemberRemoved = AvroToTs<typeof teamMemberRemovedSchema>;

/**
 * A budget was created or replaced, full replacement (./avro/budget-set.avsc): a USD
 * (`limitNanoUsd`, nano-USD decimal string) and/or token limit per window of `period` on one
 * key, user, team, end user or tag.
 */
export type BudgetSet = AvroToTs<typeof budgetSetSchema>;

/** A budget was removed (./avro/budget-removed.avsc). */
export type BudgetRemoved = AvroToTs<typeof budgetRemovedSchema>;

/**
 * An alert webhook was created or replaced, full replacement; its signing secret travels
 * encrypted like channel credentials (./avro/alert-webhook-set.avsc).
 */
export type AlertWebhookSet = AvroToTs<typeof alertWebhookSetSchema>;

/** An alert webhook was removed (./avro/alert-webhook-removed.avsc). */
export type AlertWebhookRemoved = AvroToTs<typeof alertWebhookRemovedSchema>;

/** RPM/TPM limits (requests, tokens per minute); null = unlimited. */
export type RateLimits = Pick<UserCreated, 'rpm' | 'tpm'>;

/**
 * Common event header: `eventId`, `occurredAt` (ms since epoch) and `actor`, who made the change
 * (the name of the personal admin token used, the console login of the signed-in user,
 * `bootstrap-token`, `config-file`, `bootstrap`; older events may hold `admin`, `cli` or a user id).
 */
export type ControlEventHeader = Pick<UserCreated, 'eventId' | 'occurredAt' | 'actor'>;

/** Any control-plane event, tagged by name. */
export type ControlEvent =
  | { readonly type: 'UserCreated'; readonly event: UserCreated }
  | { readonly type: 'UserUpdated'; readonly event: UserUpdated }
  | { readonly type: 'UserCredentialsSet'; readonly event: UserCredentialsSet }
  | { readonly type: 'KeyCreated'; readonly event: KeyCreated }
  | { readonly type: 'KeyUpdated'; readonly event: KeyUpdated }
  | { readonly type: 'KeyRevoked'; readonly event: KeyRevoked }
  | { readonly type: 'ChannelUpserted'; readonly event: ChannelUpserted }
  | { readonly type: 'ChannelRemoved'; readonly event: ChannelRemoved }
  | { readonly type: 'PriceSet'; readonly event: PriceSet }
  | { readonly type: 'AdminTokenCreated'; readonly event: AdminTokenCreated }
  | { readonly type: 'AdminTokenRevoked'; readonly event: AdminTokenRevoked }
  | { readonly type: 'TeamCreated'; readonly event: TeamCreated }
  | { readonly type: 'TeamUpdated'; readonly event: TeamUpdated }
  | { readonly type: 'TeamMemberSet'; readonly event: TeamMemberSet }
  | { readonly type: 'TeamMemberRemoved'; readonly event: TeamMemberRemoved }
  | { readonly type: 'BudgetSet'; readonly event: BudgetSet }
  | { readonly type: 'BudgetRemoved'; readonly event: BudgetRemoved }
  | { readonly type: 'AlertWebhookSet'; readonly event: AlertWebhookSet }
  | { readonly type: 'AlertWebhookRemoved'; readonly event: AlertWebhookRemoved };

/** Compiles only while every ControlEvent tag has a schema (control-avro-schemas.ts) and every schema is a tag. */
export type ControlEventTypesMatchSchemas = Assert<Equals<ControlEventType, ControlEvent['type']>>;
