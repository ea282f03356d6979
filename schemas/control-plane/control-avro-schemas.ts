/**
 * The current Avro schemas of the control-plane events (namespace `tollgate.control`), as
 * `as const` literals so the compiler checks them against the interfaces in
 * control-plane-events.ts (control-avro-schema-type-checks.ts). The same schemas live as JSON in
 * ./avro/*.avsc for non-TypeScript consumers; a unit test keeps the two identical.
 *
 * Conventions (as for traffic events): camelCase field names = the TypeScript names; times are
 * `long` with logicalType `timestamp-millis` decoded to plain ms numbers; nullable fields are
 * `["null", T]` with default `null`; RPM/TPM limits are nullable longs (null = unlimited); money
 * (`quotaNanoUsd`) is a nullable decimal string of nano-USD; prices are doubles of USD per
 * million tokens (≤ 9 decimals, exact as JS numbers). Changing a schema: follow EVOLUTION.md.
 */

/** Namespace of every control event schema. */
export const CONTROL_EVENTS_NAMESPACE = 'tollgate.control';

/** A time in ms since epoch, read as a plain number. */
const millis = { type: 'long', logicalType: 'timestamp-millis' } as const;

/** eventId, occurredAt (ms), actor: the header every control event starts with. */
const headerFields = [
  { name: 'eventId', type: 'string' },
  { name: 'occurredAt', type: millis, doc: 'ms since epoch' },
  { name: 'actor', type: 'string', doc: 'admin token name | console login | bootstrap-token | config-file | bootstrap (older events: admin | cli | a user id)' },
] as const;

/** rpm, tpm: null = unlimited. */
const limitFields = [
  { name: 'rpm', type: ['null', 'long'], default: null, doc: 'requests per minute; null = unlimited' },
  { name: 'tpm', type: ['null', 'long'], default: null, doc: 'tokens per minute; null = unlimited' },
] as const;

const quotaField = { name: 'quotaNanoUsd', type: ['null', 'string'], default: null, doc: 'spend quota, nano-USD as a decimal string; null = unlimited' } as const;
const expiresAtField = { name: 'expiresAt', type: ['null', millis], default: null, doc: 'ms since epoch; null = never' } as const;
const keyModelsField = { name: 'models', type: ['null', { type: 'array', items: 'string' }], default: null, doc: 'allowed client model names; null = all' } as const;
const roleType = { type: 'enum', name: 'UserRole', symbols: ['admin', 'user'] } as const;

/** Schema of UserCreated, version 1. */
export const userCreatedSchema = {
  type: 'record',
  name: 'UserCreated',
  namespace: 'tollgate.control',
  doc: 'A user was created.',
  fields: [...headerFields, { name: 'userId', type: 'string' }, { name: 'name', type: 'string' }, { name: 'role', type: roleType }, ...limitFields, quotaField],
} as const;

/** Schema of UserUpdated, version 1 (a full replacement of the user's settings). */
export const userUpdatedSchema = {
  type: 'record',
  name: 'UserUpdated',
  namespace: 'tollgate.control',
  doc: "A user's settings changed (full replacement).",
  fields: [
    ...headerFields,
    { name: 'userId', type: 'string' },
    { name: 'name', type: 'string' },
    { name: 'role', type: roleType },
    ...limitFields,
    quotaField,
    { name: 'disabled', type: 'boolean' },
  ],
} as const;

/** Schema of UserCredentialsSet, version 1. Only the scrypt hash of the password travels. */
export const userCredentialsSetSchema = {
  type: 'record',
  name: 'UserCredentialsSet',
  namespace: 'tollgate.control',
  doc: "A user's console sign-in (login and password hash) was set.",
  fields: [
    ...headerFields,
    { name: 'userId', type: 'string' },
    { name: 'login', type: 'string', doc: 'lower-case, 3-64 characters of a-z 0-9 . _ @ -' },
    { name: 'passwordHash', type: 'string', doc: 'scrypt$N$r$p$<salt base64url>$<hash base64url>' },
  ],
} as const;

/** Schema of KeyCreated, version 1. Only the HMAC digest of the key travels. */
export const keyCreatedSchema = {
  type: 'record',
  name: 'KeyCreated',
  namespace: 'tollgate.control',
  doc: 'An API key was created (only its HMAC-SHA-256 digest is carried).',
  fields: [
    ...headerFields,
    { name: 'keyId', type: 'string' },
    { name: 'publicId', type: 'string', doc: 'the id shown in listings: sk-<publicId>-…' },
    { name: 'digest', type: 'string', doc: 'hex HMAC-SHA-256 of the full key under TOLLGATE_KEY_HMAC_SECRET' },
    { name: 'name', type: 'string' },
    { name: 'userId', type: ['null', 'string'], default: null },
    ...limitFields,
    quotaField,
    expiresAtField,
    keyModelsField,
  ],
} as const;

/** Schema of KeyUpdated, version 1 (a full replacement of the key's settings). */
export const keyUpdatedSchema = {
  type: 'record',
  name: 'KeyUpdated',
  namespace: 'tollgate.control',
  doc: "A key's settings changed (full replacement).",
  fields: [...headerFields, { name: 'keyId', type: 'string' }, { name: 'name', type: 'string' }, ...limitFields, quotaField, expiresAtField, keyModelsField, { name: 'enabled', type: 'boolean' }],
} as const;

/** Schema of KeyRevoked, version 1. */
export const keyRevokedSchema = {
  type: 'record',
  name: 'KeyRevoked',
  namespace: 'tollgate.control',
  doc: 'A key was revoked, now or at effectiveAt (rotation grace period).',
  fields: [
    ...headerFields,
    { name: 'keyId', type: 'string' },
    { name: 'effectiveAt', type: millis, doc: 'ms since epoch from which the key is refused' },
    { name: 'reason', type: ['null', 'string'], default: null },
  ],
} as const;

/**
 * Schema of ChannelUpserted, version 2 (v1, in avro/history, lacks `deadlineMs` and
 * `minStreamRate`: such events decode with null = the defaults). The credential is AES-256-GCM ciphertext.
 */
export const channelUpsertedSchema = {
  type: 'record',
  name: 'ChannelUpserted',
  namespace: 'tollgate.control',
  doc: 'A channel was created or replaced (full replacement).',
  fields: [
    ...headerFields,
    { name: 'channelId', type: 'string' },
    { name: 'provider', type: 'string' },
    { name: 'protocol', type: ['null', 'string'], default: null },
    { name: 'baseUrl', type: ['null', 'string'], default: null },
    { name: 'apiKeyCiphertext', type: 'string', doc: 'AES-256-GCM under TOLLGATE_MASTER_KEY: base64 of iv(12) | tag(16) | ciphertext' },
    { name: 'models', type: { type: 'array', items: 'string' } },
    { name: 'modelMap', type: { type: 'map', values: 'string' } },
    { name: 'priority', type: 'int' },
    { name: 'weight', type: 'double' },
    { name: 'enabled', type: 'boolean' },
    { name: 'timeoutMs', type: 'long', doc: 'ms' },
    ...limitFields,
    {
      name: 'mock',
      type: [
        'null',
        {
          type: 'record',
          name: 'ChannelMock',
          doc: 'Mock provider only: behaviour of the built-in fake model.',
          fields: [
            { name: 'latencyMs', type: 'long' },
            { name: 'chunkDelayMs', type: 'long' },
            { name: 'failStatus', type: ['null', 'int'], default: null },
          ],
        },
      ],
      default: null,
    },
    { name: 'deadlineMs', type: ['null', 'long'], default: null, doc: 'ms, total time of one attempt; null = the default' },
    {
      name: 'minStreamRate',
      type: [
        'null',
        {
          type: 'record',
          name: 'ChannelMinStreamRate',
          doc: 'Slowest streamed body accepted: bytes per windowMs after the first byte; bytes 0 = no check.',
          fields: [
            { name: 'bytes', type: 'long' },
            { name: 'windowMs', type: 'long' },
          ],
        },
      ],
      default: null,
    },
  ],
} as const;

/** Schema of ChannelRemoved, version 1. */
export const channelRemovedSchema = {
  type: 'record',
  name: 'ChannelRemoved',
  namespace: 'tollgate.control',
  doc: 'A channel was removed.',
  fields: [...headerFields, { name: 'channelId', type: 'string' }],
} as const;

/** Schema of PriceSet, version 1. */
export const priceSetSchema = {
  type: 'record',
  name: 'PriceSet',
  namespace: 'tollgate.control',
  doc: 'A price-book entry was set (USD per million tokens).',
  fields: [
    ...headerFields,
    { name: 'priceId', type: 'string' },
    { name: 'model', type: 'string', doc: 'the upstream model the price applies to' },
    { name: 'channel', type: ['null', 'string'], default: null, doc: 'null = every channel' },
    { name: 'inputPerMTok', type: 'double' },
    { name: 'outputPerMTok', type: 'double' },
    { name: 'cacheReadPerMTok', type: ['null', 'double'], default: null, doc: 'null = inputPerMTok' },
    { name: 'cacheWritePerMTok', type: ['null', 'double'], default: null, doc: 'null = inputPerMTok' },
    { name: 'effectiveFrom', type: millis, doc: 'ms since epoch' },
  ],
} as const;

/** Schema of AdminTokenCreated, version 1. Only the HMAC digest of the token travels. */
export const adminTokenCreatedSchema = {
  type: 'record',
  name: 'AdminTokenCreated',
  namespace: 'tollgate.control',
  doc: 'A personal admin token was created (only its HMAC-SHA-256 digest is carried).',
  fields: [
    ...headerFields,
    { name: 'tokenId', type: 'string' },
    { name: 'name', type: 'string', doc: 'the person the token belongs to; recorded as the actor of their changes' },
    { name: 'digest', type: 'string', doc: 'hex HMAC-SHA-256 of the full token under TOLLGATE_KEY_HMAC_SECRET' },
  ],
} as const;

/** Schema of AdminTokenRevoked, version 1. */
export const adminTokenRevokedSchema = {
  type: 'record',
  name: 'AdminTokenRevoked',
  namespace: 'tollgate.control',
  doc: 'A personal admin token was revoked.',
  fields: [...headerFields, { name: 'tokenId', type: 'string' }, { name: 'reason', type: ['null', 'string'], default: null }],
} as const;

/**
 * The current schema of each control event, by ControlEvent `type`, with the file name (under
 * ./avro) that holds the same schema as JSON.
 */
export const CURRENT_CONTROL_SCHEMAS = {
  UserCreated: { schema: userCreatedSchema, file: 'user-created.avsc' },
  UserUpdated: { schema: userUpdatedSchema, file: 'user-updated.avsc' },
  UserCredentialsSet: { schema: userCredentialsSetSchema, file: 'user-credentials-set.avsc' },
  KeyCreated: { schema: keyCreatedSchema, file: 'key-created.avsc' },
  KeyUpdated: { schema: keyUpdatedSchema, file: 'key-updated.avsc' },
  KeyRevoked: { schema: keyRevokedSchema, file: 'key-revoked.avsc' },
  ChannelUpserted: { schema: channelUpsertedSchema, file: 'channel-upserted.avsc' },
  ChannelRemoved: { schema: channelRemovedSchema, file: 'channel-removed.avsc' },
  PriceSet: { schema: priceSetSchema, file: 'price-set.avsc' },
  AdminTokenCreated: { schema: adminTokenCreatedSchema, file: 'admin-token-created.avsc' },
  AdminTokenRevoked: { schema: adminTokenRevokedSchema, file: 'admin-token-revoked.avsc' },
} as const;

/** The `type` tag of a ControlEvent, which is also its schema's short name. */
export type ControlEventType = keyof typeof CURRENT_CONTROL_SCHEMAS;
