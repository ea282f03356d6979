/**
 * Control-plane events: console and CLI actions append these to the config topic
 * (`tollgate.config`, infinite retention, keyed by entity id); every gateway node folds them into
 * its projection, and replaying the topic rebuilds it. Secrets never appear in clear: keys travel
 * as HMAC-SHA-256 digests, channel credentials as AES-256-GCM ciphertext, console passwords as
 * scrypt hashes.
 * Every event carries `eventId`, `occurredAt` (ms) and `actor` (who made the change).
 */

/** RPM/TPM limits; null = unlimited. */
export interface RateLimits {
  /** requests per minute */
  readonly rpm: number | null;
  /** tokens per minute (input estimate + max output at admission, settled with actual usage) */
  readonly tpm: number | null;
}

/** Common event header. */
export interface ControlEventHeader {
  readonly eventId: string;
  /** ms since epoch */
  readonly occurredAt: number;
  /**
   * Who made the change: the name of the personal admin token used (`alice`), the console login
   * of the signed-in user, `bootstrap-token` (TOLLGATE_ADMIN_TOKEN), `config-file`, `bootstrap`
   * (the console's first admin). Events written by older versions may hold `admin`, `cli` or a
   * user id.
   */
  readonly actor: string;
}

export interface UserCreated extends ControlEventHeader, RateLimits {
  readonly userId: string;
  readonly name: string;
  readonly role: 'admin' | 'user';
  /** Spend quota over all the user's keys, nano-USD; null = unlimited. */
  readonly quotaNanoUsd: string | null;
}

export interface UserUpdated extends ControlEventHeader, RateLimits {
  readonly userId: string;
  readonly name: string;
  readonly role: 'admin' | 'user';
  readonly quotaNanoUsd: string | null;
  readonly disabled: boolean;
}

/**
 * The user `userId` signs in to the console as `login` (lower-case, 3–64 of `[a-z0-9._@-]`) with a
 * password whose scrypt hash is `passwordHash` (`scrypt$N$r$p$<salt b64url>$<hash b64url>`, see
 * gateway/control-plane/password-hash.ts). Replaces any earlier login and password of the user.
 */
export interface UserCredentialsSet extends ControlEventHeader {
  readonly userId: string;
  readonly login: string;
  /** scrypt hash, never the password */
  readonly passwordHash: string;
}

export interface KeyCreated extends ControlEventHeader, RateLimits {
  readonly keyId: string;
  /** The public id shown in listings (`sk-<publicId>…`). */
  readonly publicId: string;
  /** hex HMAC-SHA-256 of the full key under TOLLGATE_KEY_HMAC_SECRET */
  readonly digest: string;
  readonly name: string;
  readonly userId: string | null;
  /** nano-USD as a decimal string; null = unlimited */
  readonly quotaNanoUsd: string | null;
  /** ms since epoch; null = never */
  readonly expiresAt: number | null;
  /** Allowed client model names; null = all */
  readonly models: ReadonlyArray<string> | null;
}

export interface KeyUpdated extends ControlEventHeader, RateLimits {
  readonly keyId: string;
  readonly name: string;
  readonly quotaNanoUsd: string | null;
  readonly expiresAt: number | null;
  readonly models: ReadonlyArray<string> | null;
  readonly enabled: boolean;
}

export interface KeyRevoked extends ControlEventHeader {
  readonly keyId: string;
  /** When the revocation takes effect (ms; = occurredAt, or later for a rotation's grace period). */
  readonly effectiveAt: number;
  readonly reason: string | null;
}

/** A channel as stored: the credential is encrypted. Fields mirror the config file's channel. */
export interface ChannelUpserted extends ControlEventHeader, RateLimits {
  readonly channelId: string;
  readonly provider: string;
  readonly protocol: string | null;
  readonly baseUrl: string | null;
  /** AES-256-GCM under TOLLGATE_MASTER_KEY: base64 of iv(12) | tag(16) | ciphertext */
  readonly apiKeyCiphertext: string;
  readonly models: ReadonlyArray<string>;
  readonly modelMap: Readonly<Record<string, string>>;
  readonly priority: number;
  readonly weight: number;
  readonly enabled: boolean;
  /** Upstream timeout to response headers, ms. */
  readonly timeoutMs: number;
  /**
   * Mock provider only: the built-in fake model's behaviour (the config file's `mock`). Absent or
   * null = none. Optional so that producers of other channels need not mention it; the Avro
   * field is `["null", ChannelMock]` with default null.
   */
  readonly mock?: ChannelMock | null;
  /** Total time of one attempt, ms; absent or null = the gateway's default. Added in version 2. */
  readonly deadlineMs?: number | null;
  /** Slowest streamed body accepted; absent or null = the gateway's default. Added in version 2. */
  readonly minStreamRate?: ChannelMinStreamRate | null;
}

/** Minimum rate of a streamed upstream body (mirrors the config file's `minStreamRate`). */
export interface ChannelMinStreamRate {
  /** bytes per window; 0 = no check */
  readonly bytes: number;
  /** ms */
  readonly windowMs: number;
}

/** Behaviour of the built-in fake model of a mock channel (mirrors the config file's `mock`). */
export interface ChannelMock {
  /** ms before the response headers */
  readonly latencyMs: number;
  /** ms between stream chunks */
  readonly chunkDelayMs: number;
  /** HTTP status every request fails with; null = succeed */
  readonly failStatus: number | null;
}

export interface ChannelRemoved extends ControlEventHeader {
  readonly channelId: string;
}

/** One price-book entry set (same fields as the config file's `prices`). */
export interface PriceSet extends ControlEventHeader {
  readonly priceId: string;
  readonly model: string;
  readonly channel: string | null;
  readonly inputPerMTok: number;
  readonly outputPerMTok: number;
  readonly cacheReadPerMTok: number | null;
  readonly cacheWritePerMTok: number | null;
  /** ms since epoch */
  readonly effectiveFrom: number;
}

/**
 * A personal admin token was created: the admin API accepts it as a Bearer token and records its
 * `name` as the actor of every change made with it. Only the digest travels, never the token.
 */
export interface AdminTokenCreated extends ControlEventHeader {
  /** `adm_` + 16 lowercase hex characters. */
  readonly tokenId: string;
  /** The person it belongs to: 3–64 of `a-z 0-9 . _ @ -`, unique among active tokens. */
  readonly name: string;
  /** hex HMAC-SHA-256 of the full token under TOLLGATE_KEY_HMAC_SECRET */
  readonly digest: string;
}

/** A personal admin token was revoked: refused from this event on, never reinstated. */
export interface AdminTokenRevoked extends ControlEventHeader {
  readonly tokenId: string;
  readonly reason: string | null;
}

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
  | { readonly type: 'AdminTokenRevoked'; readonly event: AdminTokenRevoked };
