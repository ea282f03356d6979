/**
 * The current Avro schemas of the control-plane events (namespace `tollgate.control`): the
 * `.avsc` files in ./avro, the source of truth, imported as `as const` data from
 * avro-files.generated.ts (infra/build/generate-avro-modules.ts writes it), so the compiler
 * derives the events' TypeScript types from them (control-plane-events.ts).
 *
 * Conventions (as for traffic events): camelCase field names = the TypeScript names; times are
 * `long` with logicalType `timestamp-millis` decoded to plain ms numbers; nullable fields are
 * `["null", T]` with default `null`; RPM/TPM/RPD/TPD limits are nullable longs (null = unlimited);
 * money (`quotaNanoUsd`, a budget's `limitNanoUsd`) is a nullable decimal string of nano-USD; prices are doubles of USD per
 * million tokens (≤ 9 decimals, exact as JS numbers). Changing a schema: follow EVOLUTION.md.
 */
import {
  adminTokenCreatedAvsc,
  adminTokenRevokedAvsc,
  alertWebhookRemovedAvsc,
  alertWebhookSetAvsc,
  budgetRemovedAvsc,
  budgetSetAvsc,
  channelRemovedAvsc,
  channelUpsertedAvsc,
  keyCreatedAvsc,
  keyRevokedAvsc,
  keyUpdatedAvsc,
  priceSetAvsc,
  teamCreatedAvsc,
  teamMemberRemovedAvsc,
  teamMemberSetAvsc,
  teamUpdatedAvsc,
  userCreatedAvsc,
  userCredentialsSetAvsc,
  userUpdatedAvsc,
} from './avro-files.generated.ts';

/** Namespace of every control event schema. */
export const CONTROL_EVENTS_NAMESPACE = 'tollgate.control';

/** Schema of UserCreated (./avro/user-created.avsc). */
export const userCreatedSchema = userCreatedAvsc;

/** Schema of UserUpdated (./avro/user-updated.avsc). */
export const userUpdatedSchema = userUpdatedAvsc;

/** Schema of UserCredentialsSet (./avro/user-credentials-set.avsc). */
export const userCredentialsSetSchema = userCredentialsSetAvsc;

/** Schema of KeyCreated (./avro/key-created.avsc). */
export const keyCreatedSchema = keyCreatedAvsc;

/** Schema of KeyUpdated (./avro/key-updated.avsc). */
export const keyUpdatedSchema = keyUpdatedAvsc;

/** Schema of KeyRevoked (./avro/key-revoked.avsc). */
export const keyRevokedSchema = keyRevokedAvsc;

/** Schema of ChannelUpserted (./avro/channel-upserted.avsc). */
export const channelUpsertedSchema = channelUpsertedAvsc;

/** Schema of ChannelRemoved (./avro/channel-removed.avsc). */
export const channelRemovedSchema = channelRemovedAvsc;

/** Schema of PriceSet (./avro/price-set.avsc). */
export const priceSetSchema = priceSetAvsc;

/** Schema of AdminTokenCreated (./avro/admin-token-created.avsc). */
export const adminTokenCreatedSchema = adminTokenCreatedAvsc;

/** Schema of AdminTokenRevoked (./avro/admin-token-revoked.avsc). */
export const adminTokenRevokedSchema = adminTokenRevokedAvsc;

/** Schema of TeamCreated (./avro/team-created.avsc). */
export const teamCreatedSchema = teamCreatedAvsc;

/** Schema of TeamUpdated (./avro/team-updated.avsc). */
export const teamUpdatedSchema = teamUpdatedAvsc;

/** Schema of TeamMemberSet (./avro/team-member-set.avsc). */
export const teamMemberSetSchema = teamMemberSetAvsc;

/** Schema of TeamMemberRemoved (./avro/team-member-removed.avsc). */
export const teamMemberRemovedSchema = teamMemberRemovedAvsc;

/** Schema of BudgetSet (./avro/budget-set.avsc). */
export const budgetSetSchema = budgetSetAvsc;

/** Schema of BudgetRemoved (./avro/budget-removed.avsc). */
export const budgetRemovedSchema = budgetRemovedAvsc;

/** Schema of AlertWebhookSet (./avro/alert-webhook-set.avsc). */
export const alertWebhookSetSchema = alertWebhookSetAvsc;

/** Schema of AlertWebhookRemoved (./avro/alert-webhook-removed.avsc). */
export const alertWebhookRemovedSchema = alertWebhookRemovedAvsc;

/**
 * The current schema of each control event, by ControlEvent `type`, with the file name (under
 * ./avro) that holds it.
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
  TeamCreated: { schema: teamCreatedSchema, file: 'team-created.avsc' },
  TeamUpdated: { schema: teamUpdatedSchema, file: 'team-updated.avsc' },
  TeamMemberSet: { schema: teamMemberSetSchema, file: 'team-member-set.avsc' },
  TeamMemberRemoved: { schema: teamMemberRemovedSchema, file: 'team-member-removed.avsc' },
  BudgetSet: { schema: budgetSetSchema, file: 'budget-set.avsc' },
  BudgetRemoved: { schema: budgetRemovedSchema, file: 'budget-removed.avsc' },
  AlertWebhookSet: { schema: alertWebhookSetSchema, file: 'alert-webhook-set.avsc' },
  AlertWebhookRemoved: { schema: alertWebhookRemovedSchema, file: 'alert-webhook-removed.avsc' },
} as const;

/** The `type` tag of a ControlEvent, which is also its schema's short name. */
export type ControlEventType = keyof typeof CURRENT_CONTROL_SCHEMAS;
