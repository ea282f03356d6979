/**
 * The credential-cooldown port: which pooled credentials of a channel (README "Key pools") are
 * cooling down after the upstream refused them (429, 401, 403), shared by every gateway node so
 * that a key one node saw rate-limited is skipped by all. Adapters: Redis (REDIS_URL or
 * REDIS_CLUSTER_NODES; key layout in REDIS-KEYS.md) and in-process memory (embedded mode). The
 * gateway reads it in the background into an in-process snapshot (gateway/routing/credential-pool.ts),
 * never on the request path. Only ids are stored, never a credential.
 *
 * Outage: while its engine cannot answer in time, an adapter rejects with
 * StateStoreUnavailableError (state-store-unavailable.ts) within its deadline; the memory adapter never does.
 */

/** Why a credential cools down: the upstream answered 429 (`rate-limited`), 401 (`unauthorized`) or 403 (`forbidden`). */
export const CREDENTIAL_COOLDOWN_REASONS = ['rate-limited', 'unauthorized', 'forbidden'] as const;

/** One of CREDENTIAL_COOLDOWN_REASONS. */
export type CredentialCooldownReason = (typeof CREDENTIAL_COOLDOWN_REASONS)[number];

/** One credential of one channel cooling down until `untilMs` (ms since epoch). */
export interface CredentialCooldown {
  readonly channelId: string;
  readonly credentialId: string;
  /** ms since epoch */
  readonly untilMs: number;
  readonly reason: CredentialCooldownReason;
}

/** Where credential cooldowns are shared. Times in ms since epoch. */
export interface CredentialCooldownStore {
  /**
   * Records `cooldown`. A cooldown already running for the same credential that ends later is
   * kept (cooldowns are extended, never shortened); the record is forgotten once it has ended.
   * @throws RangeError when `untilMs` is not a positive integer or an id is empty
   */
  markCooling(cooldown: CredentialCooldown): Promise<void>;
  /** The cooldowns of these channels still running at `nowMs` (any order). */
  readCooling(channelIds: ReadonlyArray<string>, nowMs: number): Promise<ReadonlyArray<CredentialCooldown>>;
  close(): Promise<void>;
}

/** @throws RangeError when `cooldown` cannot be stored (empty id, `untilMs` not a positive integer, unknown reason). */
export function assertValidCooldown(cooldown: CredentialCooldown): void {
  if (cooldown.channelId === '' || cooldown.credentialId === '')
    throw new RangeError('credential cooldown: channelId and credentialId must be non-empty');
  if (!Number.isSafeInteger(cooldown.untilMs) || cooldown.untilMs <= 0)
    throw new RangeError(`credential cooldown: untilMs must be a positive integer, got ${cooldown.untilMs}`);
  if (!isCooldownReason(cooldown.reason))
    throw new RangeError(`credential cooldown: unknown reason '${String(cooldown.reason)}'`);
}

/** Whether `value` is one of CREDENTIAL_COOLDOWN_REASONS. */
export function isCooldownReason(value: unknown): value is CredentialCooldownReason {
  return (CREDENTIAL_COOLDOWN_REASONS as ReadonlyArray<unknown>).includes(value);
}

/**
 * A stored cooldown value `"<untilMs>:<reason>"` back to its parts; undefined when it is not one
 * (never throws).
 */
export function parseStoredCooldown(text: string): { untilMs: number; reason: CredentialCooldownReason } | undefined {
  const match = /^(\d{1,16}):([a-z-]+)$/.exec(text);
  if (!match) return undefined;
  const untilMs = Number(match[1]);
  const reason = match[2];
  return isCooldownReason(reason) ? { untilMs, reason } : undefined;
}
