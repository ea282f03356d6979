/**
 * The gateway's read model of the control plane: users, keys, teams, budgets, alert webhooks,
 * channels and prices folded from the config topic (schemas/control-plane/control-plane-events.ts). Every node keeps one in memory,
 * fed by its own subscription to the topic; reads are synchronous and never touch the network.
 */
import type {
  AdminTokenRecord,
  AlertWebhookRecord,
  AuditEntry,
  BudgetRecord,
  BudgetScope,
  KeyRecord,
  PriceRecord,
  TeamRecord,
  UserRecord,
} from '../../schemas/control-plane/control-plane-records.ts';
import type { RateLimits } from '../../schemas/control-plane/control-plane-events.ts';
import type { ChannelConfig } from '../config/config-schema.ts';

export type {
  AdminTokenRecord,
  AlertWebhookRecord,
  AuditEntry,
  BudgetRecord,
  BudgetScope,
  KeyRecord,
  PriceRecord,
  TeamRecord,
  UserRecord,
};

/** A channel as projected: the config-file shape (credential decrypted in memory) plus its rpm/tpm limits (null = unlimited). */
export interface ChannelRecord extends RateLimits {
  readonly config: ChannelConfig;
  /** ms since epoch */
  readonly updatedAt: number;
}

/** Read access to the projection. */
export interface ControlPlaneView {
  /** The key whose HMAC digest is `digest`, if any (revoked and expired keys included: callers check). */
  keyByDigest(digest: string): KeyRecord | undefined;
  key(keyId: string): KeyRecord | undefined;
  keys(): ReadonlyArray<KeyRecord>;
  user(userId: string): UserRecord | undefined;
  /** The user who signs in as `login` (compared lower-cased), if any (disabled users included: callers check). */
  userByLogin(login: string): UserRecord | undefined;
  users(): ReadonlyArray<UserRecord>;
  channels(): ReadonlyArray<ChannelRecord>;
  /** The team with this id, if any (disabled ones included: callers check). */
  team(teamId: string): TeamRecord | undefined;
  /** Every team, disabled ones included, in creation order. */
  teams(): ReadonlyArray<TeamRecord>;
  /** The teams `userId` is a member of (disabled ones included), in the order joined. */
  teamsOfUser(userId: string): ReadonlyArray<TeamRecord>;
  /** Every budget, in the order first set. */
  budgets(): ReadonlyArray<BudgetRecord>;
  /** The budget with this id, if any. */
  budget(budgetId: string): BudgetRecord | undefined;
  /**
   * The budgets on one key, user, team, end user or tag (`scopeId` = keyId, userId, teamId, the
   * end-user id, or `name=value`); constant time, no allocation (admission calls it per request).
   */
  budgetsFor(scope: BudgetScope, scopeId: string): ReadonlyArray<BudgetRecord>;
  /** Every alert webhook, disabled ones included, in creation order (secrets encrypted). */
  alertWebhooks(): ReadonlyArray<AlertWebhookRecord>;
  /** The alert webhook with this id, if any. */
  alertWebhook(webhookId: string): AlertWebhookRecord | undefined;
  /** Latest entry per priceId, in the order last set (billing's tie-break order). */
  prices(): ReadonlyArray<PriceRecord>;
  /** The personal admin token whose HMAC digest is `digest`, if any (revoked ones included: callers check). */
  adminTokenByDigest(digest: string): AdminTokenRecord | undefined;
  /** Every personal admin token, revoked ones included, in creation order. */
  adminTokens(): ReadonlyArray<AdminTokenRecord>;
  /** PriceSet events applied so far (duplicates excluded): stamped on traffic events as `priceRevision`. */
  readonly priceRevision: number;
  /** Every applied event as an AuditEntry, oldest first (the newest 100 000 at most). */
  history(): ReadonlyArray<AuditEntry>;
  /** Increases with every applied event. */
  readonly version: number;
  /** Called after each applied batch of events (routing rebuilds its channel table). */
  onChange(listener: () => void): () => void;
}
