/**
 * The prompt-cache affinity store port: which channel (and which credential of its key pool)
 * served a conversation last, keyed by a digest the gateway derives from the request (never the
 * client's text itself), kept for a TTL matched to the provider's prompt-cache lifetime. Every
 * gateway node sharing the store keeps a conversation on the same upstream account.
 * Adapters: Redis (REDIS_URL or REDIS_CLUSTER_NODES; key layout in REDIS-KEYS.md) and in-process
 * memory (embedded mode). Chosen by `openAffinityStore` (infra/open-adapters.ts).
 *
 * Outage: while its engine cannot answer in time, an adapter rejects with
 * StateStoreUnavailableError (state-store-unavailable.ts) within its deadline; routing then goes
 * on without affinity. The memory adapter never rejects.
 */
import { parseStoredJson } from './stored-value.ts';

/** Rejects a TTL that is not a positive integer number of ms (stored-value.ts). @throws RangeError naming the argument */
export { assertValidTtl } from './stored-value.ts';

/** Where a conversation was served last: a channel id and, for a channel with a key pool, the credential id. */
export interface AffinityPin {
  readonly channelId: string;
  /** The key-pool credential that served it; absent for a channel with one credential. */
  readonly credentialId?: string;
}

/** Conversation pins by affinity key. Times in ms. */
export interface AffinityStore {
  /** The pin of `affinityKey`, or undefined when unknown or expired. */
  get(affinityKey: string): Promise<AffinityPin | undefined>;
  /**
   * Pins `affinityKey` to `pin` for `ttlMs` from now (replacing any pin and its lifetime: the
   * gateway re-pins after every served request, which slides the lifetime).
   * @throws RangeError when `ttlMs` is not a positive integer
   */
  put(affinityKey: string, pin: AffinityPin, ttlMs: number): Promise<void>;
  close(): Promise<void>;
}

/** A stored pin back to an AffinityPin; undefined when it is not one (never throws). */
export function parseStoredPin(text: string): AffinityPin | undefined {
  const value = parseStoredJson(text);
  if (typeof value !== 'object' || value === null) return undefined;
  const { channelId, credentialId } = value as Record<string, unknown>;
  if (typeof channelId !== 'string' || channelId === '') return undefined;
  if (credentialId !== undefined && typeof credentialId !== 'string') return undefined;
  return credentialId === undefined ? { channelId } : { channelId, credentialId };
}

/** The JSON stored for `pin` (only its two fields). */
export function storedPin(pin: AffinityPin): string {
  return JSON.stringify(
    pin.credentialId === undefined
      ? { channelId: pin.channelId }
      : { channelId: pin.channelId, credentialId: pin.credentialId },
  );
}
