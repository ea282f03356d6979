/**
 * How the admin API shows projected records: plain JSON, times as ISO-8601 strings, quotas and
 * budget limits as USD decimal strings — and never a secret (no key digest, no channel
 * credential, no password hash, no webhook secret).
 */
import type { PriceEntryConfig } from '../../schemas/billing/price-book.ts';
import { priceStandings, type PriceStanding } from '../../schemas/billing/price-standing.ts';
import type { RateLimits } from '../../schemas/control-plane/control-plane-events.ts';
import type { ChannelConfig } from '../config/config-schema.ts';
import { credentialsOf, type CredentialState } from '../routing/credential-pool.ts';
import type {
  AdminTokenRecord,
  AlertWebhookRecord,
  BudgetRecord,
  ChannelRecord,
  KeyRecord,
  TeamRecord,
  UserRecord,
} from './control-plane-view.ts';
import type { ModelLimit, TeamRole } from '../../schemas/control-plane/control-plane-records.ts';
import { nanoToUsd } from './commands-common.ts';

/** A key's state at a given time: revoked beats expired beats disabled. */
export type KeyStatus = 'active' | 'disabled' | 'revoked' | 'expired';

/** A key as listed: no digest, no secret. Quota in USD (decimal string), times ISO-8601. */
export interface KeyView {
  readonly keyId: string;
  readonly publicId: string;
  readonly name: string;
  readonly userId: string | null;
  /** The owning team; null = none. */
  readonly teamId: string | null;
  readonly rpm: number | null;
  readonly tpm: number | null;
  /** requests per day; null = unlimited */
  readonly rpd: number | null;
  /** tokens per day; null = unlimited */
  readonly tpd: number | null;
  readonly quotaUsd: string | null;
  readonly expiresAt: string | null;
  readonly models: string[] | null;
  readonly modelLimits: ModelLimit[];
  /** Default `name=value` tags of the key's requests. */
  readonly tags: string[];
  readonly enabled: boolean;
  readonly status: KeyStatus;
  /** When the revocation took (or, during a rotation grace period, will take) effect. */
  readonly revokedAt: string | null;
  readonly createdAt: string;
}

/** A user as listed: the console login but never the password hash. Quota in USD (decimal string). */
export interface UserView {
  readonly userId: string;
  readonly name: string;
  /** Console sign-in name; null = cannot sign in. */
  readonly login: string | null;
  readonly role: 'admin' | 'user';
  readonly rpm: number | null;
  readonly tpm: number | null;
  readonly quotaUsd: string | null;
  readonly disabled: boolean;
  readonly createdAt: string;
}

/**
 * A channel as listed: every config field (ChannelConfig, in its declaration order) except the
 * credential, which is reduced to `hasApiKey`, the key pool, reduced to `credentials` (ids,
 * limits and state, never a key), and the config-file-only `mock`; absent protocol and baseUrl as
 * null; rpm/tpm limits (null = unlimited); updatedAt ISO-8601.
 */
export type ChannelView = {
  readonly id: string;
  readonly provider: string;
  readonly protocol: string | null;
  readonly baseUrl: string | null;
  readonly hasApiKey: boolean;
  /** Every credential of the channel (a lone `apiKey` as `default`), README "Key pools". */
  readonly credentials: ReadonlyArray<CredentialView>;
} & Readonly<ChannelSettings> &
  RateLimits & { readonly updatedAt: string };

/**
 * One credential of a channel as listed: its id, whether it holds a key, its limits (null =
 * unlimited) and, when the pool's state is known, its cooldown (`coolingUntil` ISO-8601, null
 * when usable), the reason of its last cooldown, and this node's attempts and rotations with it.
 */
export interface CredentialView {
  readonly id: string;
  readonly hasApiKey: boolean;
  readonly rpm: number | null;
  readonly tpm: number | null;
  readonly coolingUntil: string | null;
  readonly lastErrorKind: CredentialState['lastErrorKind'];
  readonly requests: number;
  readonly rotations: number;
}

/** The state of a channel's credentials (CredentialPool.stateOf); none: shown as never used. */
export type CredentialStates = (config: ChannelConfig) => ReadonlyArray<CredentialState>;

/** The config fields a ChannelView shows as they are. */
type ChannelSettings = Omit<
  ChannelConfig,
  'id' | 'provider' | 'protocol' | 'baseUrl' | 'apiKey' | 'mock' | 'credentials'
>;

/** The status of `key` at `now` (ms since epoch). */
export function keyStatus(key: KeyRecord, now: number): KeyStatus {
  if (key.revokedAt !== null && key.revokedAt <= now) return 'revoked';
  if (key.expiresAt !== null && key.expiresAt <= now) return 'expired';
  return key.enabled ? 'active' : 'disabled';
}

/** Shows a key at `now` (ms). */
export function presentKey(key: KeyRecord, now: number): KeyView {
  return {
    keyId: key.keyId,
    publicId: key.publicId,
    name: key.name,
    userId: key.userId,
    teamId: key.teamId,
    rpm: key.rpm,
    tpm: key.tpm,
    rpd: key.rpd,
    tpd: key.tpd,
    quotaUsd: key.quotaNanoUsd === null ? null : nanoToUsd(key.quotaNanoUsd),
    expiresAt: isoOrNull(key.expiresAt),
    models: key.models === null ? null : [...key.models],
    modelLimits: key.modelLimits.map((limit) => ({ ...limit })),
    tags: [...key.tags],
    enabled: key.enabled,
    status: keyStatus(key, now),
    revokedAt: isoOrNull(key.revokedAt),
    createdAt: new Date(key.createdAt).toISOString(),
  };
}

/** Shows a user. */
export function presentUser(user: UserRecord): UserView {
  return {
    userId: user.userId,
    name: user.name,
    login: user.login,
    role: user.role,
    rpm: user.rpm,
    tpm: user.tpm,
    quotaUsd: user.quotaNanoUsd === null ? null : nanoToUsd(user.quotaNanoUsd),
    disabled: user.disabled,
    createdAt: new Date(user.createdAt).toISOString(),
  };
}

/**
 * Shows a channel without its credentials (a copy: the view shares nothing with the record), each
 * pooled credential with its state from `states` when given.
 */
export function presentChannel(channel: ChannelRecord, states?: CredentialStates): ChannelView {
  const { id, provider, protocol, baseUrl, apiKey, mock, credentials, ...settings } = channel.config;
  const shown: ChannelSettings = structuredClone(settings);
  const pool = credentialsOf(channel.config);
  const stateById = new Map((states?.(channel.config) ?? []).map((state) => [state.id, state]));
  return {
    id,
    provider,
    protocol: protocol ?? null,
    baseUrl: baseUrl ?? null,
    hasApiKey: pool.some((credential) => credential.apiKey !== ''),
    credentials: pool.map((credential) => {
      const state = stateById.get(credential.id);
      return {
        id: credential.id,
        hasApiKey: credential.apiKey !== '',
        rpm: credential.rpm,
        tpm: credential.tpm,
        coolingUntil: state && state.coolingUntil > 0 ? new Date(state.coolingUntil).toISOString() : null,
        lastErrorKind: state?.lastErrorKind ?? null,
        requests: state?.requests ?? 0,
        rotations: state?.rotations ?? 0,
      };
    }),
    ...shown,
    rpm: channel.rpm,
    tpm: channel.tpm,
    updatedAt: new Date(channel.updatedAt).toISOString(),
  };
}

/**
 * A price entry as listed (USD per million tokens; effectiveFrom ISO-8601), id first, with its
 * standing now: `in force`, `scheduled` (starts later) or `superseded` (schemas/billing/price-standing.ts).
 */
export type PriceView = PriceEntryConfig & { readonly priceId: string; readonly status: PriceStanding };

/** Shows a price entry with its standing. */
export function presentPrice(price: PriceEntryConfig & { readonly priceId: string }, status: PriceStanding): PriceView {
  const { priceId, ...entry } = price;
  return { priceId, ...entry, status };
}

/**
 * Shows every entry with its standing at `now` (ms since epoch), sorted by model, then channel
 * (general entries first), then effectiveFrom.
 * @param prices the book in the order last set (ControlPlaneView.prices())
 */
export function presentPrices(
  prices: ReadonlyArray<PriceEntryConfig & { readonly priceId: string }>,
  now: number,
): PriceView[] {
  const standings = priceStandings(prices, now);
  return [...prices]
    .sort(
      (a, b) =>
        a.model.localeCompare(b.model) ||
        (a.channel ?? '').localeCompare(b.channel ?? '') ||
        Date.parse(a.effectiveFrom) - Date.parse(b.effectiveFrom),
    )
    .map((price) => presentPrice(price, standings.get(price.priceId) ?? 'superseded'));
}

/** A personal admin token as listed: never the token nor its digest. Times ISO-8601. */
export interface AdminTokenView {
  readonly tokenId: string;
  readonly name: string;
  readonly status: 'active' | 'revoked';
  readonly createdAt: string;
  readonly createdBy: string;
  readonly revokedAt: string | null;
  readonly revokedBy: string | null;
}

/** Shows an admin token without its digest. */
export function presentAdminToken(token: AdminTokenRecord): AdminTokenView {
  return {
    tokenId: token.tokenId,
    name: token.name,
    status: token.revokedAt === null ? 'active' : 'revoked',
    createdAt: new Date(token.createdAt).toISOString(),
    createdBy: token.createdBy,
    revokedAt: isoOrNull(token.revokedAt),
    revokedBy: token.revokedBy,
  };
}

/** A team as listed: limits (null = unlimited), its members with their roles (by user id), createdAt ISO-8601. */
export interface TeamView {
  readonly teamId: string;
  readonly name: string;
  readonly rpm: number | null;
  readonly tpm: number | null;
  readonly rpd: number | null;
  readonly tpd: number | null;
  /** null = every model */
  readonly models: string[] | null;
  readonly modelLimits: ModelLimit[];
  readonly tags: string[];
  readonly disabled: boolean;
  readonly members: Array<{ readonly userId: string; readonly role: TeamRole }>;
  readonly createdAt: string;
}

/** Shows a team, its members sorted by user id. */
export function presentTeam(team: TeamRecord): TeamView {
  return {
    teamId: team.teamId,
    name: team.name,
    rpm: team.rpm,
    tpm: team.tpm,
    rpd: team.rpd,
    tpd: team.tpd,
    models: team.models === null ? null : [...team.models],
    modelLimits: team.modelLimits.map((limit) => ({ ...limit })),
    tags: [...team.tags],
    disabled: team.disabled,
    members: [...team.members].sort(([a], [b]) => a.localeCompare(b)).map(([userId, role]) => ({ userId, role })),
    createdAt: new Date(team.createdAt).toISOString(),
  };
}

/** A budget as listed: the USD limit as a decimal string (null = none), createdAt ISO-8601. */
export interface BudgetView {
  readonly budgetId: string;
  readonly name: string;
  readonly scope: BudgetRecord['scope'];
  readonly scopeId: string;
  readonly limitUsd: string | null;
  readonly limitTokens: number | null;
  readonly period: BudgetRecord['period'];
  /** Window of a rolling budget, ms; null for the others. */
  readonly rollingMs: number | null;
  readonly timeZone: string;
  /** Alert thresholds, percent of the limit, ascending. */
  readonly thresholds: number[];
  readonly downgradeModel: string | null;
  /** The anchor of a rolling budget's windows. */
  readonly createdAt: string;
}

/** Shows a budget. */
export function presentBudget(budget: BudgetRecord): BudgetView {
  return {
    budgetId: budget.budgetId,
    name: budget.name,
    scope: budget.scope,
    scopeId: budget.scopeId,
    limitUsd: budget.limitNanoUsd === null ? null : nanoToUsd(budget.limitNanoUsd),
    limitTokens: budget.limitTokens,
    period: budget.period,
    rollingMs: budget.rollingMs,
    timeZone: budget.timeZone,
    thresholds: [...budget.thresholds],
    downgradeModel: budget.downgradeModel,
    createdAt: new Date(budget.createdAt).toISOString(),
  };
}

/** An alert webhook as listed: never its secret, only whether it has one. */
export interface AlertWebhookView {
  readonly webhookId: string;
  readonly name: string;
  readonly url: string;
  readonly format: AlertWebhookRecord['format'];
  readonly enabled: boolean;
  readonly hasSecret: boolean;
  readonly createdAt: string;
}

/** Shows an alert webhook without its secret. */
export function presentAlertWebhook(webhook: AlertWebhookRecord): AlertWebhookView {
  return {
    webhookId: webhook.webhookId,
    name: webhook.name,
    url: webhook.url,
    format: webhook.format,
    enabled: webhook.enabled,
    hasSecret: webhook.secretCiphertext !== '',
    createdAt: new Date(webhook.createdAt).toISOString(),
  };
}

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
