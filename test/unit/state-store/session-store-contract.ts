/**
 * The behaviour suite every SessionStore adapter must pass (memory in test/unit, Redis in
 * test/integration): put/get/delete, replacement, expiry, sliding, isolation between namespaces,
 * TTL validation. `advance(ms)` moves time on: a fake clock for memory, a real sleep for Redis —
 * so the TTLs here are a few hundred ms with wide margins.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ConsoleSession, SessionStore } from '../../../schemas/state-store/session-store.ts';

/** How the suite gets stores and moves time. */
export interface SessionStoreHarness {
  /** A store; stores of different namespaces never share sessions. */
  make(namespace: string): Promise<SessionStore>;
  /** Whether two stores made with the same namespace share their sessions (Redis: yes, memory: no). */
  readonly sharedByNamespace: boolean;
  /** Lets `ms` pass for the stores made by `make`. */
  advance(ms: number): Promise<void>;
}

const session = (userId = 'usr_1'): ConsoleSession => ({
  userId,
  csrfSecret: `csrf-${randomUUID()}`,
  createdAt: 1_767_225_600_000,
  credentialsStamp: `stamp-${userId}`,
});
const digest = (): string => randomUUID().replaceAll('-', '').repeat(2);

/** Registers the shared suite for one adapter. */
export function describeSessionStoreContract(adapter: string, harness: SessionStoreHarness): void {
  describe(`SessionStore contract: ${adapter}`, () => {
    const open: SessionStore[] = [];
    const fresh = async (namespace = randomUUID()): Promise<SessionStore> => {
      const store = await harness.make(namespace);
      open.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });

    it('puts, gets and deletes a session', async () => {
      const store = await fresh();
      const key = digest();
      const stored = session();
      expect(await store.get(key)).toBeUndefined();
      await store.put(key, stored, 60_000);
      expect(await store.get(key)).toEqual(stored);
      expect(await store.get(key, 60_000)).toEqual(stored);
      expect(await store.get(digest())).toBeUndefined();
      await store.delete(key);
      expect(await store.get(key)).toBeUndefined();
      await store.delete(key); // deleting twice is fine
    });

    it('replaces a session put again under the same key', async () => {
      const store = await fresh();
      const key = digest();
      await store.put(key, session('usr_a'), 60_000);
      await store.put(key, session('usr_b'), 60_000);
      expect((await store.get(key))?.userId).toBe('usr_b');
    });

    it('expires a session after its ttl', async () => {
      const store = await fresh();
      const [short, long] = [digest(), digest()];
      await store.put(short, session(), 300);
      await store.put(long, session(), 60_000);
      await harness.advance(100);
      expect(await store.get(short)).toBeDefined();
      await harness.advance(400);
      expect(await store.get(short)).toBeUndefined();
      expect(await store.get(long)).toBeDefined();
    });

    it('slides the lifetime on get(key, slideTtlMs), and only then', async () => {
      const store = await fresh();
      const [slid, plain] = [digest(), digest()];
      await store.put(slid, session(), 400);
      await store.put(plain, session(), 400);
      await harness.advance(200);
      expect(await store.get(slid, 800)).toBeDefined(); // now lives until ≈ 1000
      expect(await store.get(plain)).toBeDefined(); // still ends at ≈ 400
      await harness.advance(450); // ≈ 650
      expect(await store.get(plain)).toBeUndefined();
      expect(await store.get(slid)).toBeDefined();
      await harness.advance(600); // ≈ 1250
      expect(await store.get(slid)).toBeUndefined();
    });

    it('keeps namespaces apart and shares one namespace between stores', async () => {
      const namespace = randomUUID();
      const [a, b, other] = [await fresh(namespace), await fresh(namespace), await fresh()];
      const key = digest();
      await a.put(key, session(), 60_000);
      expect(await other.get(key)).toBeUndefined();
      expect((await b.get(key)) !== undefined).toBe(harness.sharedByNamespace); // Redis: every node sees the same sessions
      await other.put(key, session('usr_other'), 60_000);
      expect((await a.get(key))?.userId).toBe('usr_1');
    });

    it('refuses a ttl that is not a positive integer of ms', async () => {
      const store = await fresh();
      for (const ttl of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        await expect(store.put(digest(), session(), ttl)).rejects.toThrow(RangeError);
        await expect(store.get(digest(), ttl)).rejects.toThrow(RangeError);
      }
    });

    it('returns a copy: changing what was put or got does not change the store', async () => {
      const store = await fresh();
      const key = digest();
      const stored = { ...session() };
      await store.put(key, stored, 60_000);
      (stored as { userId: string }).userId = 'mutated';
      const got = (await store.get(key))!;
      (got as { userId: string }).userId = 'mutated-too';
      expect((await store.get(key))?.userId).toBe('usr_1');
    });
  });
}
