/**
 * The gateway's read model of the control plane: users, keys, channels and prices folded from the
 * config topic (schemas/control-plane/control-plane-events.ts). Every node keeps one in memory,
 * fed by its own subscription to the topic; reads are synchronous and never touch the network.
 */
import type { ChannelConfig } from '../config/config-schema.ts';
import type { PriceEntryConfig } from '../../schemas/billing/price-book.ts';
import type { ControlEvent } from '../../schemas/control-plane/control-plane-events.ts';

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
}

/** A channel as projected: the config-file shape (credential decrypted in memory) plus limits. */
export interface ChannelRecord {
  readonly config: ChannelConfig;
  readonly rpm: number | null;
  readonly tpm: number | null;
  readonly updatedAt: number;
}

/**
 * One applied control event as the audit shows it: who changed what, when. `changes` is the event
 * without its header and without secrets (no key `digest`, no `passwordHash`; a channel's
 * `apiKeyCiphertext` becomes `hasApiKey: boolean`); other values are as in the event.
 */
export interface AuditEntry {
  readonly eventId: string;
  /** ms since epoch */
  readonly occurredAt: number;
  /** `admin`, `cli`, `config-file`, `bootstrap` or a user id */
  readonly actor: string;
  /** The event type, e.g. `KeyCreated`. */
  readonly type: ControlEvent['type'];
  /** userId, keyId, channelId or priceId */
  readonly entityId: string;
  readonly changes: Readonly<Record<string, unknown>>;
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
  prices(): ReadonlyArray<PriceEntryConfig & { readonly priceId: string }>;
  /** Every applied event as an AuditEntry, oldest first (the newest 100 000 at most). */
  history(): ReadonlyArray<AuditEntry>;
  /** Increases with every applied event. */
  readonly version: number;
  /** Called after each applied batch of events (routing rebuilds its channel table). */
  onChange(listener: () => void): () => void;
}
