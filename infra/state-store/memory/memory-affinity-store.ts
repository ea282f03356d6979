/**
 * The in-process prompt-cache affinity store (embedded mode, no REDIS_URL): a Map with expiry
 * times, the same contract as the Redis adapter (affinity-store.ts). Expired pins are dropped when
 * read and swept every 1024 writes; at most `maxPins` are kept (oldest written out first).
 */
import { assertValidTtl, type AffinityPin, type AffinityStore } from '../../../schemas/state-store/affinity-store.ts';

/** Options of the memory store; `clock` (ms since epoch) is for tests. */
export interface MemoryAffinityStoreOptions {
  readonly clock?: () => number;
  /** Most pins held (default 100 000, about 20 MB). */
  readonly maxPins?: number;
}

const SWEEP_EVERY_PUTS = 1024;

/** Creates an empty in-process AffinityStore. */
export function createMemoryAffinityStore(options: MemoryAffinityStoreOptions = {}): AffinityStore {
  const clock = options.clock ?? Date.now;
  const maxPins = options.maxPins ?? 100_000;
  const pins = new Map<string, { pin: AffinityPin; expiresAt: number }>();
  let puts = 0;
  const sweep = (now: number): void => {
    for (const [key, entry] of pins) if (entry.expiresAt <= now) pins.delete(key);
  };

  return {
    async get(affinityKey: string): Promise<AffinityPin | undefined> {
      const now = clock();
      const entry = pins.get(affinityKey);
      if (!entry) return undefined;
      if (entry.expiresAt <= now) {
        pins.delete(affinityKey);
        return undefined;
      }
      return entry.pin;
    },

    async put(affinityKey: string, pin: AffinityPin, ttlMs: number): Promise<void> {
      assertValidTtl(ttlMs, 'ttlMs');
      const now = clock();
      if (++puts % SWEEP_EVERY_PUTS === 0) sweep(now);
      pins.delete(affinityKey);
      if (pins.size >= maxPins) {
        const oldest = pins.keys().next();
        if (!oldest.done) pins.delete(oldest.value);
      }
      const copy: AffinityPin =
        pin.credentialId === undefined
          ? { channelId: pin.channelId }
          : { channelId: pin.channelId, credentialId: pin.credentialId };
      pins.set(affinityKey, { pin: copy, expiresAt: now + ttlMs });
    },

    async close(): Promise<void> {
      pins.clear();
    },
  };
}
