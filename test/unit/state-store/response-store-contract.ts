/**
 * The behaviour suite every ResponseStore adapter must pass (memory in test/unit, Redis in
 * test/integration): put/get/getMany/delete, key scoping, replacement, expiry after the retention,
 * the record size limit, id validation and copies. `advance(ms)` moves time on: a fake clock for
 * memory, a real sleep for Redis — so retentions here are a few hundred ms with wide margins.
 */
import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import type { ResponseStore, StoredResponse } from '../../../schemas/state-store/response-store.ts';

/** How the suite gets stores and moves time. */
export interface ResponseStoreHarness {
  /** A store of `namespace` with the given limits (ms, bytes); stores of different namespaces never share records. */
  make(namespace: string, options?: { retentionMs?: number; maxRecordBytes?: number }): Promise<ResponseStore>;
  /** Whether two stores made with the same namespace share their records (Redis: yes, memory: no). */
  readonly sharedByNamespace: boolean;
  /** Lets `ms` pass for the stores made by `make`. */
  advance(ms: number): Promise<void>;
}

const responseId = (): string => `resp_${randomUUID().replaceAll('-', '')}`;

/** A record of key `keyId` with a small Response object. */
export function sampleRecord(overrides: Partial<StoredResponse> = {}): StoredResponse {
  const id = overrides.id ?? responseId();
  return {
    id,
    keyId: 'key_0123456789ab',
    createdAt: 1_767_225_600_000,
    previousResponseId: null,
    ancestorIds: [],
    inputItems: [
      {
        id: 'msg_1',
        type: 'message',
        role: 'user',
        status: 'completed',
        content: [{ type: 'input_text', text: 'héllo ✓' }],
      },
    ],
    response: {
      id,
      object: 'response',
      status: 'completed',
      output: [
        {
          id: 'msg_2',
          type: 'message',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'hi', annotations: [] }],
        },
      ],
    },
    ...overrides,
  };
}

/** Registers the shared suite for one adapter. */
export function describeResponseStoreContract(adapter: string, harness: ResponseStoreHarness): void {
  describe(`ResponseStore contract: ${adapter}`, () => {
    const open: ResponseStore[] = [];
    const fresh = async (
      options?: { retentionMs?: number; maxRecordBytes?: number },
      namespace = randomUUID(),
    ): Promise<ResponseStore> => {
      const store = await harness.make(namespace, options);
      open.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(open.splice(0).map((s) => s.close()));
    });

    it('puts, gets and deletes a record', async () => {
      const store = await fresh();
      const record = sampleRecord();
      expect(await store.get(record.keyId, record.id)).toBeUndefined();
      expect(await store.put(record)).toBe('stored');
      expect(await store.get(record.keyId, record.id)).toEqual(record);
      expect(await store.delete(record.keyId, record.id)).toBe(true);
      expect(await store.get(record.keyId, record.id)).toBeUndefined();
      expect(await store.delete(record.keyId, record.id)).toBe(false);
    });

    it('scopes records to the key that created them', async () => {
      const store = await fresh();
      const record = sampleRecord();
      await store.put(record);
      expect(await store.get('key_other000000', record.id)).toBeUndefined();
      expect(await store.getMany('key_other000000', [record.id])).toEqual([undefined]);
      expect(await store.delete('key_other000000', record.id)).toBe(false);
      expect(await store.get(record.keyId, record.id)).toEqual(record);
    });

    it('reads a chain in one call, in the order asked, undefined where missing', async () => {
      const store = await fresh();
      const [a, b] = [sampleRecord(), sampleRecord()];
      await store.put(a);
      await store.put(b);
      expect(await store.getMany(a.keyId, [b.id, responseId(), a.id])).toEqual([b, undefined, a]);
      expect(await store.getMany(a.keyId, [])).toEqual([]);
    });

    it('replaces a record put again', async () => {
      const store = await fresh();
      const record = sampleRecord();
      await store.put(record);
      await store.put({ ...record, previousResponseId: 'resp_before', ancestorIds: ['resp_before'] });
      expect((await store.get(record.keyId, record.id))?.ancestorIds).toEqual(['resp_before']);
    });

    it('forgets a record after the retention', async () => {
      const store = await fresh({ retentionMs: 300 });
      expect(store.retentionMs).toBe(300);
      const record = sampleRecord();
      await store.put(record);
      await harness.advance(100);
      expect(await store.get(record.keyId, record.id)).toBeDefined();
      await harness.advance(400);
      expect(await store.get(record.keyId, record.id)).toBeUndefined();
      expect(await store.delete(record.keyId, record.id)).toBe(false);
    });

    it('refuses a record above maxRecordBytes (UTF-8 bytes of its JSON) and stores nothing', async () => {
      const store = await fresh({ maxRecordBytes: 2_000 });
      expect(store.maxRecordBytes).toBe(2_000);
      const big = sampleRecord({ inputItems: [{ id: 'msg_big', type: 'message', content: 'é'.repeat(1_000) }] }); // 2 000 bytes of text alone
      expect(await store.put(big)).toBe('too-large');
      expect(await store.get(big.keyId, big.id)).toBeUndefined();
      expect(await store.put(sampleRecord())).toBe('stored');
    });

    it('refuses invalid ids with RangeError', async () => {
      const store = await fresh();
      await expect(store.put(sampleRecord({ id: 'has:colon' }))).rejects.toThrow(RangeError);
      await expect(store.put(sampleRecord({ ancestorIds: [''] }))).rejects.toThrow(RangeError);
      await expect(store.put(sampleRecord({ id: 'x'.repeat(101) }))).rejects.toThrow(RangeError);
    });

    it('keeps namespaces apart and shares one namespace between stores', async () => {
      const namespace = randomUUID();
      const [a, b, other] = [await fresh(undefined, namespace), await fresh(undefined, namespace), await fresh()];
      const record = sampleRecord();
      await a.put(record);
      expect(await other.get(record.keyId, record.id)).toBeUndefined();
      expect((await b.get(record.keyId, record.id)) !== undefined).toBe(harness.sharedByNamespace); // Redis: every node continues every chain
    });

    it('returns a copy: changing what was put or got does not change the store', async () => {
      const store = await fresh();
      const record = sampleRecord();
      const inputItems = [{ id: 'msg_x', type: 'message' }];
      await store.put({ ...record, inputItems });
      inputItems[0]!.type = 'mutated';
      const got = (await store.get(record.keyId, record.id))!;
      (got.response as Record<string, unknown>).status = 'mutated-too';
      const again = (await store.get(record.keyId, record.id))!;
      expect(again.inputItems[0]!.type).toBe('message');
      expect(again.response.status).toBe('completed');
    });
  });
}
