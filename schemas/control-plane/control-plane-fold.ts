/**
 * The in-memory projection of the config topic: a pure fold of ControlEvents into users, keys,
 * channels, prices (with their history, for billing) and audit entries. Every process that needs
 * the control plane runs this one fold, fed by its own config follower (config-follower.ts):
 * gateway nodes (auth, routing, limits) and the consumers (billing's prices, the audit table).
 * Replaying the topic from the start rebuilds it. Channels are typed by the process: the caller
 * gives `projectChannel` (the gateway decrypts the credential and validates a routable channel).
 *
 * Fold rules:
 * - Idempotent: an eventId already applied is ignored (the log delivers at least once).
 * - Log order decides: the config topic has one partition, so the later event per entity wins
 *   (`occurredAt` is informational and is not compared).
 * - UserCreated/UserUpdated upsert the user (createdAt = the first event's occurredAt; login and
 *   password hash kept). UserCredentialsSet sets the user's login (lower-cased) and password hash;
 *   unknown user, or a login another user holds (first holder wins): warning, ignored.
 * - KeyCreated sets the key (a repeated KeyCreated replaces settings but keeps createdAt and any
 *   revocation); KeyUpdated replaces the settings of a known key (unknown key: warning, ignored).
 * - KeyRevoked sets revokedAt = effectiveAt, or keeps an earlier revokedAt: a revocation never
 *   un-revokes nor postpones (a rotation's grace period is a revokedAt in the future).
 * - ChannelUpserted replaces the channel with what `projectChannel` makes of it (no record: left
 *   out; a warning is recorded). ChannelRemoved deletes the channel.
 * - PriceSet upserts the price by priceId (prices() lists them in the order last set, the
 *   order findPrice breaks ties by) and appends it to the price history (revision + 1); one whose
 *   amounts cannot be priced exactly (NaN, negative) is ignored with a warning.
 * - AdminTokenCreated/AdminTokenRevoked: admin-token-registry.ts (unknown or repeated: warning).
 * - TeamCreated/TeamUpdated/TeamMemberSet/TeamMemberRemoved: team-registry.ts (TeamUpdated of an
 *   unknown team, a member of an unknown team or an unknown user, removing a non-member: warning,
 *   ignored).
 * - A key's teamId naming an unknown team is kept as it is (warning): admission finds no team
 *   for it and refuses nothing more, as for a key whose user is unknown.
 * - BudgetSet upserts the budget (createdAt = the first BudgetSet's occurredAt, the anchor of
 *   rolling windows); ignored with a warning when it could not be enforced: its key, user or team
 *   is unknown, it has no limit, a rolling period without rollingMs ≥ 60 000 (or rollingMs on
 *   another period), or an unknown time zone. Thresholds outside (0, 100] are dropped (warning),
 *   the rest kept ascending without duplicates. BudgetRemoved deletes it (unknown: warning).
 * - AlertWebhookSet upserts the webhook (createdAt kept); AlertWebhookRemoved deletes it (unknown: warning).
 * - A malformed quotaNanoUsd or limitNanoUsd (not a non-negative integer string) becomes 0 (fail
 *   closed), warning.
 * Every applied event (duplicates excluded) is also kept, without secrets, in `history()`.
 * No I/O: warnings go to `warnings()` and the optional `onWarning` callback (never secrets).
 */
import { isKnownTimeZone, MIN_ROLLING_MS } from './budget-periods.ts';
import { PriceHistory } from './price-history.ts';
import { AdminTokenRegistry } from './admin-token-registry.ts';
import { AuditHistory, auditEntryOf } from './audit-history.ts';
import { BudgetRegistry } from './budget-registry.ts';
import { copyModelLimits, TeamRegistry } from './team-registry.ts';
import type {
  AlertWebhookSet,
  BudgetSet,
  ChannelUpserted,
  ControlEvent,
  KeyCreated,
  KeyRevoked,
  KeyUpdated,
  TeamMemberSet,
  UserCreated,
  UserCredentialsSet,
  UserUpdated,
} from './control-plane-events.ts';
import {
  priceRecordOf,
  type AdminTokenRecord,
  type AlertWebhookRecord,
  type AuditEntry,
  type BudgetRecord,
  type BudgetScope,
  type KeyRecord,
  type PriceRecord,
  type TeamRecord,
  type UserRecord,
} from './control-plane-records.ts';

/** What a process makes of one ChannelUpserted. */
export interface ChannelProjection<C> {
  /** undefined when the event does not describe a channel this process can use (then `warning` says why). */
  readonly record: C | undefined;
  /** Set when the channel is left out or kept in a degraded form. */
  readonly warning: string | undefined;
  /** Whether the event carries a credential (shown in the audit as `hasApiKey`, never the credential). */
  readonly hasCredential: boolean;
}

/** Options of the fold. */
export interface ControlPlaneFoldOptions<C> {
  /** Builds the process's channel record from a ChannelUpserted (never throws). */
  readonly projectChannel: (event: ChannelUpserted) => ChannelProjection<C>;
  /** Called with each warning as it is recorded (e.g. a channel whose credential does not decrypt). */
  readonly onWarning?: (
    message: string,
    extra: { readonly eventId: string; readonly type: ControlEvent['type'] },
  ) => void;
}

/** Most recent warnings kept by `warnings()`. */
const MAX_WARNINGS = 100;

/** The fold of the config topic (see the module doc); `C` is the process's channel record. */
export class ControlPlaneFold<C> {
  private readonly usersById = new Map<string, UserRecord>();
  private readonly userIdByLogin = new Map<string, string>();
  private readonly audit = new AuditHistory();
  private readonly keysById = new Map<string, KeyRecord>();
  private readonly keyIdByDigest = new Map<string, string>();
  private readonly channelsById = new Map<string, C>();
  private readonly priceHistory = new PriceHistory();
  private readonly pricesById = new Map<string, PriceRecord>();
  private readonly tokens = new AdminTokenRegistry();
  private readonly teamRegistry = new TeamRegistry();
  private readonly budgetRegistry = new BudgetRegistry();
  private readonly webhooksById = new Map<string, AlertWebhookRecord>();
  private readonly appliedEventIds = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private readonly recentWarnings: string[] = [];
  private cache: {
    keys?: KeyRecord[];
    users?: UserRecord[];
    channels?: C[];
    prices?: PriceRecord[];
    webhooks?: AlertWebhookRecord[];
  } = {};
  private appliedCount = 0;

  constructor(private readonly options: ControlPlaneFoldOptions<C>) {}

  /** Number of events applied so far (duplicates excluded). */
  get version(): number {
    return this.appliedCount;
  }

  /** Applies one event and, when it was new, notifies the onChange listeners. */
  apply(event: ControlEvent): void {
    this.applyBatch([event]);
  }

  /**
   * Applies events in order; notifies the onChange listeners once when at least one was new.
   * @returns the number of events applied (already-applied eventIds are skipped)
   */
  applyBatch(events: ReadonlyArray<ControlEvent>): number {
    let applied = 0;
    for (const event of events) {
      if (this.appliedEventIds.has(event.event.eventId)) continue;
      this.appliedEventIds.add(event.event.eventId);
      // A channel is projected once, for both the fold and the audit entry.
      const channel = event.type === 'ChannelUpserted' ? this.options.projectChannel(event.event) : undefined;
      this.fold(event, channel);
      this.audit.record(auditEntryOf(event, channel?.hasCredential ?? false));
      this.appliedCount += 1;
      applied += 1;
    }
    if (applied > 0) {
      this.cache = {};
      for (const listener of [...this.listeners]) this.notify(listener);
    }
    return applied;
  }

  /** Whether the event with this id has been applied. */
  hasApplied(eventId: string): boolean {
    return this.appliedEventIds.has(eventId);
  }

  /** The most recent warnings (at most 100), oldest first. */
  warnings(): ReadonlyArray<string> {
    return [...this.recentWarnings];
  }

  keyByDigest(digest: string): KeyRecord | undefined {
    const keyId = this.keyIdByDigest.get(digest);
    return keyId === undefined ? undefined : this.keysById.get(keyId);
  }

  key(keyId: string): KeyRecord | undefined {
    return this.keysById.get(keyId);
  }

  keys(): ReadonlyArray<KeyRecord> {
    return (this.cache.keys ??= [...this.keysById.values()]);
  }

  user(userId: string): UserRecord | undefined {
    return this.usersById.get(userId);
  }

  userByLogin(login: string): UserRecord | undefined {
    const userId = this.userIdByLogin.get(login.toLowerCase());
    return userId === undefined ? undefined : this.usersById.get(userId);
  }

  /** Every applied event without secrets, oldest first (the newest 100 000). */
  history(): ReadonlyArray<AuditEntry> {
    return this.audit.list();
  }

  users(): ReadonlyArray<UserRecord> {
    return (this.cache.users ??= [...this.usersById.values()]);
  }

  /** Channels in the order they were first upserted (a later upsert keeps the place). */
  channels(): ReadonlyArray<C> {
    return (this.cache.channels ??= [...this.channelsById.values()]);
  }

  /** The channel with this id, if projected. */
  channel(channelId: string): C | undefined {
    return this.channelsById.get(channelId);
  }

  /** The personal admin token whose HMAC digest is `digest`, if any (revoked ones included: callers check). */
  adminTokenByDigest(digest: string): AdminTokenRecord | undefined {
    return this.tokens.byDigest(digest);
  }

  /** Every personal admin token, revoked ones included, in creation order. */
  adminTokens(): ReadonlyArray<AdminTokenRecord> {
    return this.tokens.list();
  }

  /** The price entries, latest PriceSet per priceId, in the order they were last set. */
  prices(): ReadonlyArray<PriceRecord> {
    return (this.cache.prices ??= [...this.pricesById.values()]);
  }

  /** PriceSet events applied so far (duplicates excluded): the revision traffic events carry as `priceRevision`. */
  get priceRevision(): number {
    return this.priceHistory.revision;
  }

  /** Every applied PriceSet in order, for pricing a request as of its `priceRevision` (price-history.ts). */
  get priceBooks(): PriceHistory {
    return this.priceHistory;
  }

  /** The team with this id, if any (disabled ones included: callers check). */
  team(teamId: string): TeamRecord | undefined {
    return this.teamRegistry.team(teamId);
  }

  /** Every team, disabled ones included, in creation order. */
  teams(): ReadonlyArray<TeamRecord> {
    return this.teamRegistry.list();
  }

  /** The teams `userId` is a member of (disabled ones included), in the order joined. */
  teamsOfUser(userId: string): ReadonlyArray<TeamRecord> {
    return this.teamRegistry.ofUser(userId);
  }

  /** Every budget, in the order first set. */
  budgets(): ReadonlyArray<BudgetRecord> {
    return this.budgetRegistry.list();
  }

  /** The budget with this id, if any. */
  budget(budgetId: string): BudgetRecord | undefined {
    return this.budgetRegistry.budget(budgetId);
  }

  /**
   * The budgets on one key, user, team, end user or tag (`scopeId` = keyId, userId, teamId, the
   * end-user id, or `name=value`), in the order set; constant time, no allocation (runs on every request).
   */
  budgetsFor(scope: BudgetScope, scopeId: string): ReadonlyArray<BudgetRecord> {
    return this.budgetRegistry.forScope(scope, scopeId);
  }

  /** Every alert webhook, disabled ones included, in creation order. */
  alertWebhooks(): ReadonlyArray<AlertWebhookRecord> {
    return (this.cache.webhooks ??= [...this.webhooksById.values()]);
  }

  /** The alert webhook with this id, if any. */
  alertWebhook(webhookId: string): AlertWebhookRecord | undefined {
    return this.webhooksById.get(webhookId);
  }

  /** Registers a listener called after each batch that applied something; returns the unsubscribe function. */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  /** Folds one event; `channel` is the ChannelUpserted's channel, already projected by the caller. */
  private fold(event: ControlEvent, channel: ChannelProjection<C> | undefined): void {
    switch (event.type) {
      case 'UserCreated':
      case 'UserUpdated':
        return this.foldUser(event);
      case 'UserCredentialsSet':
        return this.foldCredentials(event.event);
      case 'KeyCreated':
        return this.foldKeyCreated(event.event);
      case 'KeyUpdated':
        return this.foldKeyUpdated(event.event);
      case 'KeyRevoked':
        return this.foldKeyRevoked(event.event);
      case 'ChannelUpserted': {
        const { record, warning } = channel ?? this.options.projectChannel(event.event);
        if (warning !== undefined) this.warn(warning, event);
        if (record !== undefined) this.channelsById.set(event.event.channelId, record);
        else this.channelsById.delete(event.event.channelId);
        return;
      }
      case 'ChannelRemoved':
        this.channelsById.delete(event.event.channelId);
        return;
      case 'PriceSet':
        if (!this.priceHistory.record(event.event))
          return this.warn(`PriceSet ${event.event.priceId} ignored: its amounts cannot be priced exactly`, event);
        this.pricesById.delete(event.event.priceId);
        this.pricesById.set(event.event.priceId, priceRecordOf(event.event));
        return;
      case 'AdminTokenCreated':
        if (!this.tokens.created(event.event))
          this.warn(`AdminTokenCreated for existing token ${event.event.tokenId} ignored`, event);
        return;
      case 'AdminTokenRevoked':
        if (!this.tokens.revoked(event.event))
          this.warn(`AdminTokenRevoked for unknown token ${event.event.tokenId} ignored`, event);
        return;
      case 'TeamCreated':
      case 'TeamUpdated':
        return this.warnIf(this.teamRegistry.settingsSet(event.event, event.type === 'TeamUpdated'), event);
      case 'TeamMemberSet':
        return this.foldMemberSet(event.event);
      case 'TeamMemberRemoved':
        return this.warnIf(this.teamRegistry.memberRemoved(event.event), event);
      case 'BudgetSet':
        return this.foldBudgetSet(event.event);
      case 'BudgetRemoved':
        if (!this.budgetRegistry.remove(event.event.budgetId))
          this.warn(`BudgetRemoved for unknown budget ${event.event.budgetId} ignored`, event);
        return;
      case 'AlertWebhookSet':
        return this.foldWebhookSet(event.event);
      case 'AlertWebhookRemoved':
        if (!this.webhooksById.delete(event.event.webhookId))
          this.warn(`AlertWebhookRemoved for unknown webhook ${event.event.webhookId} ignored`, event);
        return;
    }
  }

  private foldMemberSet(event: TeamMemberSet): void {
    const source: ControlEvent = { type: 'TeamMemberSet', event };
    if (this.teamRegistry.team(event.teamId) && !this.usersById.has(event.userId))
      return this.warn(`TeamMemberSet of unknown user ${event.userId} for team ${event.teamId} ignored`, source);
    this.warnIf(this.teamRegistry.memberSet(event), source);
  }

  private foldBudgetSet(event: BudgetSet): void {
    const source: ControlEvent = { type: 'BudgetSet', event };
    const problem = this.budgetProblem(event);
    if (problem !== undefined) return this.warn(`BudgetSet ${event.budgetId} ignored: ${problem}`, source);
    const thresholds = [...new Set(event.thresholds)].filter((p) => p > 0 && p <= 100).sort((a, b) => a - b);
    if (thresholds.length !== event.thresholds.length)
      this.warn(`BudgetSet ${event.budgetId}: thresholds outside (0, 100] or repeated dropped`, source);
    this.budgetRegistry.set({
      budgetId: event.budgetId,
      name: event.name,
      scope: event.scope,
      scopeId: event.scopeId,
      limitNanoUsd: this.nanoUsd(event.limitNanoUsd, 'limitNanoUsd', source),
      limitTokens: event.limitTokens,
      period: event.period,
      rollingMs: event.rollingMs,
      timeZone: event.timeZone,
      thresholds,
      downgradeModel: event.downgradeModel,
      createdAt: this.budgetRegistry.budget(event.budgetId)?.createdAt ?? event.occurredAt,
    });
  }

  /** Why a BudgetSet cannot be enforced (then it is ignored), or undefined. */
  private budgetProblem(event: BudgetSet): string | undefined {
    if (event.limitNanoUsd === null && event.limitTokens === null) return 'it has neither limitNanoUsd nor limitTokens';
    if (!this.scopeExists(event.scope, event.scopeId)) return `its ${event.scope} ${event.scopeId} is unknown`;
    if (event.period === 'rolling' && (event.rollingMs === null || event.rollingMs < MIN_ROLLING_MS))
      return `a rolling budget needs rollingMs ≥ ${MIN_ROLLING_MS}`;
    if (event.period !== 'rolling' && event.rollingMs !== null) return `rollingMs is set on a ${event.period} budget`;
    if (!isKnownTimeZone(event.timeZone)) return `unknown time zone '${event.timeZone}'`;
    return undefined;
  }

  /** Whether the key, user or team a budget names is known (end users and tags always are). */
  private scopeExists(scope: BudgetScope, scopeId: string): boolean {
    switch (scope) {
      case 'key':
        return this.keysById.has(scopeId);
      case 'user':
        return this.usersById.has(scopeId);
      case 'team':
        return this.teamRegistry.team(scopeId) !== undefined;
      case 'end_user':
      case 'tag':
        return true;
    }
  }

  private foldWebhookSet(event: AlertWebhookSet): void {
    this.webhooksById.set(event.webhookId, {
      webhookId: event.webhookId,
      name: event.name,
      url: event.url,
      format: event.format,
      secretCiphertext: event.secretCiphertext,
      enabled: event.enabled,
      createdAt: this.webhooksById.get(event.webhookId)?.createdAt ?? event.occurredAt,
    });
  }

  private foldUser(source: Extract<ControlEvent, { type: 'UserCreated' | 'UserUpdated' }>): void {
    const event: UserCreated | UserUpdated = source.event;
    const existing = this.usersById.get(event.userId);
    this.usersById.set(event.userId, {
      userId: event.userId,
      name: event.name,
      role: event.role,
      rpm: event.rpm,
      tpm: event.tpm,
      quotaNanoUsd: this.nanoUsd(event.quotaNanoUsd, 'quotaNanoUsd', source),
      disabled: 'disabled' in event ? event.disabled : (existing?.disabled ?? false),
      createdAt: existing?.createdAt ?? event.occurredAt,
      login: existing?.login ?? null,
      passwordHash: existing?.passwordHash ?? null,
    });
  }

  private foldCredentials(event: UserCredentialsSet): void {
    const source: ControlEvent = { type: 'UserCredentialsSet', event };
    const existing = this.usersById.get(event.userId);
    if (!existing) return this.warn(`UserCredentialsSet for unknown user ${event.userId} ignored`, source);
    const login = event.login.toLowerCase();
    const holder = this.userIdByLogin.get(login);
    if (holder !== undefined && holder !== event.userId)
      return this.warn(
        `UserCredentialsSet for user ${event.userId} ignored: login '${login}' belongs to user ${holder}`,
        source,
      );
    if (existing.login !== null && existing.login !== login) this.userIdByLogin.delete(existing.login);
    this.userIdByLogin.set(login, event.userId);
    this.usersById.set(event.userId, { ...existing, login, passwordHash: event.passwordHash });
  }

  private foldKeyCreated(event: KeyCreated): void {
    const existing = this.keysById.get(event.keyId);
    if (existing && existing.digest !== event.digest) this.keyIdByDigest.delete(existing.digest);
    this.keysById.set(event.keyId, {
      keyId: event.keyId,
      publicId: event.publicId,
      digest: event.digest,
      userId: event.userId,
      ...this.keySettings({ type: 'KeyCreated', event }),
      enabled: existing?.enabled ?? true,
      revokedAt: existing?.revokedAt ?? null,
      createdAt: existing?.createdAt ?? event.occurredAt,
    });
    this.keyIdByDigest.set(event.digest, event.keyId);
  }

  private foldKeyUpdated(event: KeyUpdated): void {
    const existing = this.keysById.get(event.keyId);
    if (!existing) return this.warn(`KeyUpdated for unknown key ${event.keyId} ignored`, { type: 'KeyUpdated', event });
    this.keysById.set(event.keyId, {
      ...existing,
      ...this.keySettings({ type: 'KeyUpdated', event }),
      enabled: event.enabled,
    });
  }

  /**
   * The settings a KeyCreated or KeyUpdated gives a key: its name, RPM/TPM/RPD/TPD limits, quota
   * (nano-USD; a malformed one becomes 0 with a warning), expiry (ms since epoch), models, team
   * (an unknown one kept, with a warning), default tags and per-model limits.
   */
  private keySettings(
    change: { type: 'KeyCreated'; event: KeyCreated } | { type: 'KeyUpdated'; event: KeyUpdated },
  ): Pick<
    KeyRecord,
    'name' | 'rpm' | 'tpm' | 'quotaNanoUsd' | 'expiresAt' | 'models' | 'teamId' | 'tags' | 'rpd' | 'tpd' | 'modelLimits'
  > {
    const { event } = change;
    const teamId = event.teamId ?? null;
    if (teamId !== null && !this.teamRegistry.team(teamId))
      this.warn(`${change.type} ${event.keyId}: team ${teamId} is unknown (kept as the key's team)`, change);
    return {
      name: event.name,
      rpm: event.rpm,
      tpm: event.tpm,
      quotaNanoUsd: this.nanoUsd(event.quotaNanoUsd, 'quotaNanoUsd', change),
      expiresAt: event.expiresAt,
      models: event.models === null ? null : new Set(event.models),
      teamId,
      tags: [...(event.tags ?? [])],
      rpd: event.rpd ?? null,
      tpd: event.tpd ?? null,
      modelLimits: copyModelLimits(event.modelLimits ?? []),
    };
  }

  private foldKeyRevoked(event: KeyRevoked): void {
    const existing = this.keysById.get(event.keyId);
    if (!existing) return this.warn(`KeyRevoked for unknown key ${event.keyId} ignored`, { type: 'KeyRevoked', event });
    const revokedAt = existing.revokedAt === null ? event.effectiveAt : Math.min(existing.revokedAt, event.effectiveAt);
    this.keysById.set(event.keyId, { ...existing, revokedAt });
  }

  /** nano-USD decimal string (`field` of `source`) → bigint; null stays null; malformed → 0n (fail closed) with a warning. */
  private nanoUsd(text: string | null, field: string, source: ControlEvent): bigint | null {
    if (text === null) return null;
    if (/^\d{1,30}$/.test(text)) return BigInt(text);
    this.warn(
      `${source.type} ${source.event.eventId}: ${field} is not a non-negative integer; ${field === 'quotaNanoUsd' ? 'quota' : 'limit'} set to 0`,
      source,
    );
    return 0n;
  }

  private warnIf(warning: string | undefined, source: ControlEvent): void {
    if (warning !== undefined) this.warn(warning, source);
  }

  private warn(message: string, source: ControlEvent): void {
    this.recentWarnings.push(message);
    if (this.recentWarnings.length > MAX_WARNINGS) this.recentWarnings.shift();
    this.options.onWarning?.(message, { eventId: source.event.eventId, type: source.type });
  }

  private notify(listener: () => void): void {
    try {
      listener();
    } catch (error) {
      this.recentWarnings.push(`onChange listener failed: ${(error as Error).message}`);
    }
  }
}
