/**
 * The behaviour suite every CredentialCooldownStore adapter must pass (memory in test/unit, Redis
 * in test/integration): a marked cooldown is read back while it runs and not after, a running
 * cooldown is extended but never shortened, channels are kept apart, bad input is refused.
 * `now()` is the time the adapter's cooldowns are judged against (Redis expires keys in real time).
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { CredentialCooldown, CredentialCooldownStore } from '../../../schemas/state-store/credential-cooldowns.ts';

/** How the suite gets stores. */
export interface CredentialCooldownHarness {
  /** A store; stores of different namespaces never share cooldowns. */
  make(namespace: string): Promise<CredentialCooldownStore>;
  /** Whether two stores of the same namespace share cooldowns (Redis: yes, memory: no). */
  readonly sharedByNamespace: boolean;
}

/** Registers the shared suite for one adapter. */
export function describeCredentialCooldownContract(adapter: string, harness: CredentialCooldownHarness): void {
  describe(`CredentialCooldownStore contract: ${adapter}`, () => {
    const open: CredentialCooldownStore[] = [];
    const fresh = async (namespace = randomUUID()): Promise<CredentialCooldownStore> => {
      const store = await harness.make(namespace);
      open.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((store) => store.close()));
    });
    const now = Date.now();
    const cooldown = (fields: Partial<CredentialCooldown> = {}): CredentialCooldown => ({
      channelId: 'ch-1',
      credentialId: 'key-a',
      untilMs: now + 60_000,
      reason: 'rate-limited',
      ...fields,
    });

    it('reads a cooldown back while it runs, and not once it has ended', async () => {
      const store = await fresh();
      expect(await store.readCooling(['ch-1'], now)).toEqual([]);
      await store.markCooling(cooldown());
      expect(await store.readCooling(['ch-1'], now)).toEqual([cooldown()]);
      expect(await store.readCooling(['ch-1'], now + 60_000)).toEqual([]);
    });

    it('extends a running cooldown but never shortens it; the reason follows the longer one', async () => {
      const store = await fresh();
      await store.markCooling(cooldown({ untilMs: now + 120_000, reason: 'unauthorized' }));
      await store.markCooling(cooldown({ untilMs: now + 30_000 }));
      expect(await store.readCooling(['ch-1'], now)).toEqual([
        cooldown({ untilMs: now + 120_000, reason: 'unauthorized' }),
      ]);
      await store.markCooling(cooldown({ untilMs: now + 300_000, reason: 'forbidden' }));
      expect(await store.readCooling(['ch-1'], now)).toEqual([
        cooldown({ untilMs: now + 300_000, reason: 'forbidden' }),
      ]);
    });

    it('keeps channels and credentials apart, and reads only the channels asked for', async () => {
      const store = await fresh();
      const a = cooldown({ channelId: 'ch:a', credentialId: 'key-1' });
      const b = cooldown({ channelId: 'ch:a', credentialId: 'key-2', untilMs: now + 5_000 });
      const c = cooldown({ channelId: 'ch:b', credentialId: 'key-1' });
      for (const entry of [a, b, c]) await store.markCooling(entry);
      const read = await store.readCooling(['ch:a'], now);
      expect([...read].sort((x, y) => x.credentialId.localeCompare(y.credentialId))).toEqual([a, b]);
      expect(await store.readCooling(['ch:b', 'ch:none'], now)).toEqual([c]);
      expect(await store.readCooling([], now)).toEqual([]);
    });

    it(`${harness.sharedByNamespace ? 'shares' : 'does not share'} cooldowns between stores of one namespace`, async () => {
      const namespace = randomUUID();
      const writer = await fresh(namespace);
      const reader = await fresh(namespace);
      await writer.markCooling(cooldown());
      expect(await reader.readCooling(['ch-1'], now)).toEqual(harness.sharedByNamespace ? [cooldown()] : []);
      expect(await (await fresh()).readCooling(['ch-1'], now)).toEqual([]);
    });

    it('refuses an empty id, a bad time or an unknown reason with a RangeError', async () => {
      const store = await fresh();
      await expect(store.markCooling(cooldown({ channelId: '' }))).rejects.toThrow(RangeError);
      await expect(store.markCooling(cooldown({ credentialId: '' }))).rejects.toThrow(RangeError);
      await expect(store.markCooling(cooldown({ untilMs: 1.5 }))).rejects.toThrow(RangeError);
      await expect(store.markCooling(cooldown({ untilMs: -1 }))).rejects.toThrow(RangeError);
      await expect(store.markCooling(cooldown({ reason: 'tired' as CredentialCooldown['reason'] }))).rejects.toThrow(
        RangeError,
      );
      expect(await store.readCooling(['ch-1', ''], now)).toEqual([]);
    });
  });
}
