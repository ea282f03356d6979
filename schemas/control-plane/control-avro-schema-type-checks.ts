/**
 * Compile-time contract: each control event interface (control-plane-events.ts) is exactly the
 * type its current Avro schema (control-avro-schemas.ts) decodes into, and the schema table covers
 * exactly the ControlEvent tags. `tsc --noEmit` fails on any drift (a renamed, retyped, added,
 * removed or nullability-changed field, or a changed enum symbol). ChannelUpserted's `mock` is
 * (like `deadlineMs` and `minStreamRate`) optional in TypeScript (producers may leave it out; it encodes as null), so its schema is
 * compared with `Required<ChannelUpserted>`. This module exports nothing at run time.
 */
import type { AvroToTs, Assert, Equals } from '../events/avro-to-ts.ts';
import type {
  adminTokenCreatedSchema,
  adminTokenRevokedSchema,
  channelRemovedSchema,
  channelUpsertedSchema,
  ControlEventType,
  keyCreatedSchema,
  keyRevokedSchema,
  keyUpdatedSchema,
  priceSetSchema,
  userCreatedSchema,
  userCredentialsSetSchema,
  userUpdatedSchema,
} from './control-avro-schemas.ts';
import type {
  AdminTokenCreated,
  AdminTokenRevoked,
  ChannelMinStreamRate,
  ChannelMock,
  ChannelRemoved,
  ChannelUpserted,
  ControlEvent,
  KeyCreated,
  KeyRevoked,
  KeyUpdated,
  PriceSet,
  UserCreated,
  UserCredentialsSet,
  UserUpdated,
} from './control-plane-events.ts';

type ChannelMockSchema = Exclude<Extract<(typeof channelUpsertedSchema)['fields'][number], { name: 'mock' }>['type'][number], 'null'>;

/** Every ControlEvent tag has a schema and every schema is a ControlEvent tag. */
export type ControlEventTypesMatch = Assert<Equals<ControlEventType, ControlEvent['type']>>;
/** UserCreated ⇔ its schema. */
export type UserCreatedMatchesSchema = Assert<Equals<AvroToTs<typeof userCreatedSchema>, UserCreated>>;
/** UserUpdated ⇔ its schema. */
export type UserUpdatedMatchesSchema = Assert<Equals<AvroToTs<typeof userUpdatedSchema>, UserUpdated>>;
/** UserCredentialsSet ⇔ its schema. */
export type UserCredentialsSetMatchesSchema = Assert<Equals<AvroToTs<typeof userCredentialsSetSchema>, UserCredentialsSet>>;
/** KeyCreated ⇔ its schema. */
export type KeyCreatedMatchesSchema = Assert<Equals<AvroToTs<typeof keyCreatedSchema>, KeyCreated>>;
/** KeyUpdated ⇔ its schema. */
export type KeyUpdatedMatchesSchema = Assert<Equals<AvroToTs<typeof keyUpdatedSchema>, KeyUpdated>>;
/** KeyRevoked ⇔ its schema. */
export type KeyRevokedMatchesSchema = Assert<Equals<AvroToTs<typeof keyRevokedSchema>, KeyRevoked>>;
/** ChannelUpserted (with `mock` required, as decoded) ⇔ its schema. */
export type ChannelUpsertedMatchesSchema = Assert<Equals<AvroToTs<typeof channelUpsertedSchema>, Required<ChannelUpserted>>>;
/** The nested ChannelMock record ⇔ ChannelMock. */
export type ChannelMockMatchesSchema = Assert<Equals<AvroToTs<ChannelMockSchema>, ChannelMock>>;
type ChannelMinStreamRateSchema = Exclude<Extract<(typeof channelUpsertedSchema)['fields'][number], { name: 'minStreamRate' }>['type'][number], 'null'>;
/** The nested ChannelMinStreamRate record ⇔ ChannelMinStreamRate. */
export type ChannelMinStreamRateMatchesSchema = Assert<Equals<AvroToTs<ChannelMinStreamRateSchema>, ChannelMinStreamRate>>;
/** ChannelRemoved ⇔ its schema. */
export type ChannelRemovedMatchesSchema = Assert<Equals<AvroToTs<typeof channelRemovedSchema>, ChannelRemoved>>;
/** PriceSet ⇔ its schema. */
export type PriceSetMatchesSchema = Assert<Equals<AvroToTs<typeof priceSetSchema>, PriceSet>>;
/** AdminTokenCreated ⇔ its schema. */
export type AdminTokenCreatedMatchesSchema = Assert<Equals<AvroToTs<typeof adminTokenCreatedSchema>, AdminTokenCreated>>;
/** AdminTokenRevoked ⇔ its schema. */
export type AdminTokenRevokedMatchesSchema = Assert<Equals<AvroToTs<typeof adminTokenRevokedSchema>, AdminTokenRevoked>>;
