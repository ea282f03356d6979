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
    effectiveFrom: new Date(event.effectiveFrom).toISOString(),
  };
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
  /** See ControlEventHeader.actor: a token name, a console login, `bootstrap-token`, `config-file`, … */
  readonly actor: string;
  /** The event type, e.g. `KeyCreated`. */
  readonly type: ControlEvent['type'];
  /** userId, keyId, channelId, priceId or tokenId */
  readonly entityId: string;
  readonly changes: Readonly<Record<string, unknown>>;
}
