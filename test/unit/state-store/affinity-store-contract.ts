/**
 * The behaviour suite every AffinityStore adapter must pass (memory in test/unit, Redis in
 * test/integration): pin and read back, replacement, a credential id kept, expiry, re-pinning
 * slides the lifetime, isolation between namespaces, TTL validation. `advance(ms)` moves time on:
 * a fake clock for memory, a real sleep for Redis — so the TTLs are a few hundred ms with margins.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { AffinityStore } from '../../../schemas/state-store/affinity-store.ts';

/** How the suite gets stores and moves time. */
export interface AffinityStoreHarness {
  /** A store; stores of different namespaces never share pins. */
  make(namespace: string): Promise<AffinityStore>;
  /** Whether two stores made with the same namespace share their pins (Redis: yes, memory: no). */
  readonly sharedByNamespace: boolean;
  /** Lets `ms` pass for the stores made by `make`. */
  advance(ms: number): Promise<void>;
}

const key = (): string => randomUUID().replaceAll('-', '');

/** Registers the shared suite for one adapter. */
export function describeAffinityStoreContract(adapter: string, harness: AffinityStoreHarness): void {
  describe(`AffinityStore contract: ${adapter}`, () => {
    const open: AffinityStore[] = [];
    const fresh = async (namespace = randomUUID()): Promise<AffinityStore> => {
      const store = await harness.make(namespace);
      open.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });

    it('reads back a pin, with and without a credential id, and undefined for an unknown key', async () => {
      const store = await fresh();
      const a = key();
      const b = key();
      await store.put(a, { channelId: 'openai-1' }, 60_000);
      await store.put(b, { channelId: 'anthropic-2', credentialId: 'team-key-3' }, 60_000);
      expect(await store.get(a)).toEqual({ channelId: 'openai-1' });
      expect(await store.get(b)).toEqual({ channelId: 'anthropic-2', credentialId: 'team-key-3' });
      expect(await store.get(key())).toBeUndefined();
    });

    it('replaces a pin (a conversation moved to another channel)', async () => {
      const store = await fresh();
      const a = key();
      await store.put(a, { channelId: 'openai-1', credentialId: 'k1' }, 60_000);
      await store.put(a, { channelId: 'openai-2' }, 60_000);
      expect(await store.get(a)).toEqual({ channelId: 'openai-2' });
    });

    it('forgets a pin after its ttl, and re-pinning slides the lifetime', async () => {
      const store = await fresh();
      const a = key();
      const b = key();
      await store.put(a, { channelId: 'c' }, 400);
      await store.put(b, { channelId: 'c' }, 400);
      await harness.advance(250);
      await store.put(b, { channelId: 'c' }, 400);
      await harness.advance(250);
      expect(await store.get(a)).toBeUndefined();
      expect(await store.get(b)).toEqual({ channelId: 'c' });
    });

    it('keeps namespaces apart', async () => {
      const namespace = randomUUID();
      const one = await fresh(namespace);
      const two = await fresh(namespace);
      const other = await fresh();
      const a = key();
      await one.put(a, { channelId: 'c' }, 60_000);
      expect(await other.get(a)).toBeUndefined();
      expect(await two.get(a)).toEqual(harness.sharedByNamespace ? { channelId: 'c' } : undefined);
    });

    it('refuses a ttl that is not a positive integer', async () => {
      const store = await fresh();
      await expect(store.put(key(), { channelId: 'c' }, 0)).rejects.toThrow(RangeError);
      await expect(store.put(key(), { channelId: 'c' }, 1.5)).rejects.toThrow(/ttlMs/);
    });
  });
}
