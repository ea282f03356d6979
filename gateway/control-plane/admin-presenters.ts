/**
 * How the admin API shows projected records: plain JSON, times as ISO-8601 strings, quotas as
 * USD decimal strings — and never a secret (no key digest, no channel credential, no password hash).
 */
import type { PriceEntryConfig } from '../../schemas/billing/price-book.ts';
import { priceStandings, type PriceStanding } from '../../schemas/billing/price-standing.ts';
import type { RateLimits } from '../../schemas/control-plane/control-plane-events.ts';
import type { ChannelConfig } from '../config/config-schema.ts';
import type { AdminTokenRecord, ChannelRecord, KeyRecord, UserRecord } from './control-plane-view.ts';
import { nanoToUsd } from './commands-common.ts';

/** A key's state at a given time: revoked beats expired beats disabled. */
export type KeyStatus = 'active' | 'disabled' | 'revoked' | 'expired';

/** A key as listed: no digest, no secret. Quota in USD (decimal string), times ISO-8601. */
export interface KeyView {
  readonly keyId: string;
  readonly publicId: string;
  readonly name: string;
  readonly userId: string | null;
  readonly rpm: number | null;
  readonly tpm: number | null;
  readonly quotaUsd: string | null;
  readonly expiresAt: string | null;
  readonly models: string[] | null;
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
 * credential, which is reduced to `hasApiKey`, and the config-file-only `mock`; absent protocol
 * and baseUrl as null; rpm/tpm limits (null = unlimited); updatedAt ISO-8601.
 */
export type ChannelView = {
  readonly id: string;
  readonly provider: string;
  readonly protocol: string | null;
  readonly baseUrl: string | null;
  readonly hasApiKey: boolean;
} & Readonly<ChannelSettings> &
  RateLimits & { readonly updatedAt: string };

/** The config fields a ChannelView shows as they are. */
type ChannelSettings = Omit<ChannelConfig, 'id' | 'provider' | 'protocol' | 'baseUrl' | 'apiKey' | 'mock'>;

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
    rpm: key.rpm,
    tpm: key.tpm,
    quotaUsd: key.quotaNanoUsd === null ? null : nanoToUsd(key.quotaNanoUsd),
    expiresAt: isoOrNull(key.expiresAt),
    models: key.models === null ? null : [...key.models],
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

/** Shows a channel without its credential (a copy: the view shares nothing with the record). */
export function presentChannel(channel: ChannelRecord): ChannelView {
  const { id, provider, protocol, baseUrl, apiKey, mock, ...settings } = channel.config;
  const shown: ChannelSettings = structuredClone(settings);
  return {
    id,
    provider,
    protocol: protocol ?? null,
    baseUrl: baseUrl ?? null,
    hasApiKey: apiKey !== '',
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

function isoOrNull(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}
