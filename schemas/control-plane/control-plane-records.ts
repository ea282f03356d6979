/**
 * The records the control-plane fold (control-plane-fold.ts) keeps: users, keys, prices and the
 * audit entries of applied events. Shared by every process that follows the config topic (gateway
 * nodes, the consumers); channels are typed by each process (see ControlPlaneFold).
 */
import type { PriceEntryConfig } from '../billing/price-book.ts';
import type { ControlEvent, PriceSet } from './control-plane-events.ts';

/** A user as projected. Quotas in nano-USD; limits null = unlimited. */
export interface UserRecord {
  readonly userId: string;
  readonly name: string;
  readonly role: 'admin' | 'user';
  readonly rpm: number | null;
  readonly tpm: number | null;
  readonly quotaNanoUsd: bigint | null;
  readonly disabled: boolean;
  /** ms since epoch */
  readonly createdAt: number;
  /** Console sign-in name, lower-case; null = the user cannot sign in. */
  readonly login: string | null;
  /** scrypt hash of the console password (password-hash.ts); null = none. Never shown. */
  readonly passwordHash: string | null;
}

/** A key as projected (never the key itself). */
export interface KeyRecord {
  readonly keyId: string;
  readonly publicId: string;
  readonly digest: string;
  readonly name: string;
  readonly userId: string | null;
  readonly rpm: number | null;
  readonly tpm: number | null;
  readonly quotaNanoUsd: bigint | null;
  /** ms since epoch; null = never */
  readonly expiresAt: number | null;
  /** null = every model */
  readonly models: ReadonlySet<string> | null;
  readonly enabled: boolean;
  /** ms since epoch at which the key stops working (revocation or rotation grace); null = not revoked */
  readonly revokedAt: number | null;
  readonly createdAt: number;
  /** The team that owns the key (with or without a user: a service key has a team alone); null = none. */
  readonly teamId: string | null;
  /** Tags added to every request of the key, each `name=value` (after the team's, before the request's). */
  readonly tags: ReadonlyArray<string>;
  /** requests per day (calendar day in the budgets' time zone); null = unlimited */
  readonly rpd: number | null;
  /** tokens per day; null = unlimited */
  readonly tpd: number | null;
  readonly modelLimits: ReadonlyArray<ModelLimit>;
}

/** A personal admin token as projected (never the token itself). */
export interface AdminTokenRecord {
  /** `adm_` + 16 lowercase hex characters. */
  readonly tokenId: string;
  /** Its owner's name: the actor recorded for every change made with it. */
  readonly name: string;
  /** hex HMAC-SHA-256 of the token under TOLLGATE_KEY_HMAC_SECRET. Never shown. */
  readonly digest: string;
  /** ms since epoch */
  readonly createdAt: number;
  /** The actor who created it. */
  readonly createdBy: string;
  /** ms since epoch of the revocation; null = active. */
  readonly revokedAt: number | null;
  /** The actor who revoked it; null = active. */
  readonly revokedBy: string | null;
}

/** A price as projected: the config file's entry shape plus its id. */
export type PriceRecord = PriceEntryConfig & { readonly priceId: string };

/** A PriceSet as the config file's entry shape (USD per million tokens; effectiveFrom as ISO-8601; null fields left out). */
export function priceRecordOf(event: PriceSet): PriceRecord {
  return {
    priceId: event.priceId,
    model: event.model,
    ...(event.channel !== null ? { channel: event.channel } : {}),
    inputPerMTok: event.inputPerMTok,
    outputPerMTok: event.outputPerMTok,
    ...(event.cacheReadPerMTok !== null ? { cacheReadPerMTok: event.cacheReadPerMTok } : {}),
    ...(event.cacheWritePerMTok !== null ? { cacheWritePerMTok: event.cacheWritePerMTok } : {}),
    ...(typeof event.cacheWrite1hPerMTok === 'number' ? { cacheWrite1hPerMTok: event.cacheWrite1hPerMTok } : {}),
    effectiveFrom: new Date(event.effectiveFrom).toISOString(),
  };
}

/**
 * One applied control event as the audit shows it: who changed what, when. `changes` is the event
 * without its header and without secrets (no key `digest`, no `passwordHash`; a channel's
 * `apiKeyCiphertext` becomes `hasApiKey: boolean`, an alert webhook's `secretCiphertext`
 * `hasSecret: boolean`); other values are as in the event.
 */
export interface AuditEntry {
  readonly eventId: string;
  /** ms since epoch */
  readonly occurredAt: number;
  /** See ControlEventHeader.actor: a token name, a console login, `bootstrap-token`, `config-file`, … */
  readonly actor: string;
  /** The event type, e.g. `KeyCreated`. */
  readonly type: ControlEvent['type'];
  /** userId, keyId, channelId, priceId, tokenId, teamId (team members' changes too), budgetId or webhookId */
  readonly entityId: string;
  readonly changes: Readonly<Record<string, unknown>>;
}

/**
 * Per-model limits of a key or a team (requests and tokens per minute, requests and tokens per
 * calendar day in the budgets' time zone); null = unlimited. Applied on top of the owner's
 * model-independent limits.
 */
export interface ModelLimit {
  /** The model as clients ask for it (an alias or a model name). */
  readonly model: string;
  readonly rpm: number | null;
  readonly tpm: number | null;
  /** requests per day */
  readonly rpd: number | null;
  /** tokens (input + output) per day */
  readonly tpd: number | null;
}

/** A member's role in a team: a team admin manages the team's keys and sees its usage. */
export type TeamRole = 'team_admin' | 'member';

/** A team (project): it owns users (members) and keys; limits null = unlimited. */
export interface TeamRecord {
  /** `team_` + 16 lowercase hex characters. */
  readonly teamId: string;
  readonly name: string;
  readonly rpm: number | null;
  readonly tpm: number | null;
  /** requests per day (calendar day in the budgets' time zone) */
  readonly rpd: number | null;
  /** tokens per day */
  readonly tpd: number | null;
  /** Models the team's keys may reach; bounds every key's own list. null = every model. */
  readonly models: ReadonlySet<string> | null;
  readonly modelLimits: ReadonlyArray<ModelLimit>;
  /** Tags added to every request of the team's keys, each `name=value`. */
  readonly tags: ReadonlyArray<string>;
  readonly disabled: boolean;
  /** userId → role */
  readonly members: ReadonlyMap<string, TeamRole>;
  /** ms since epoch */
  readonly createdAt: number;
}

/** What a budget applies to; `end_user` and `tag` budgets name one end-user id or one `name=value` tag. */
export type BudgetScope = 'key' | 'user' | 'team' | 'end_user' | 'tag';

/** How a budget's window resets: never (`lifetime`), at calendar boundaries, or every `rollingMs`. */
export type BudgetPeriod = 'lifetime' | 'day' | 'week' | 'month' | 'rolling';

/** A budget as projected (see schemas/control-plane/budget-periods.ts for its windows). */
export interface BudgetRecord {
  /** `bgt_` + 16 lowercase hex characters. */
  readonly budgetId: string;
  readonly name: string;
  readonly scope: BudgetScope;
  /** keyId, userId, teamId, the end-user id, or `name=value` for a tag. */
  readonly scopeId: string;
  /** Spend limit per window, nano-USD; null = no USD limit. */
  readonly limitNanoUsd: bigint | null;
  /** Token limit (input + output) per window; null = no token limit. At least one limit is set. */
  readonly limitTokens: number | null;
  readonly period: BudgetPeriod;
  /** Window length of a `rolling` budget, ms (≥ 60 000); null for the others. */
  readonly rollingMs: number | null;
  /** IANA time zone of calendar periods (`UTC`, `Europe/Berlin`). Weeks start on Monday (ISO 8601). */
  readonly timeZone: string;
  /** Soft thresholds, percent of the limit in (0, 100], ascending: crossing each raises one alert per window. */
  readonly thresholds: ReadonlyArray<number>;
  /** At the hard limit, route to this (cheaper) model instead of refusing; null = refuse. */
  readonly downgradeModel: string | null;
  /** ms since epoch of the first BudgetSet: the anchor of `rolling` windows. */
  readonly createdAt: number;
}

/** Payload style of an alert webhook: Standard Webhooks JSON, or a Slack incoming-webhook message. */
export type AlertWebhookFormat = 'json' | 'slack';

/** A webhook budget alerts are delivered to (the signing secret stays encrypted, never shown). */
export interface AlertWebhookRecord {
  /** `whk_` + 16 lowercase hex characters. */
  readonly webhookId: string;
  readonly name: string;
  readonly url: string;
  readonly format: AlertWebhookFormat;
  /** AES-256-GCM ciphertext of the HMAC signing secret (credential-cipher.ts), as channel credentials. */
  readonly secretCiphertext: string;
  readonly enabled: boolean;
  /** ms since epoch */
  readonly createdAt: number;
}
