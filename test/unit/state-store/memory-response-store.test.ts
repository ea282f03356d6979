import { describe, expect, it } from 'vitest';
import {
  createMemoryResponseStore,
  DEFAULT_MEMORY_RESPONSE_STORE_BYTES,
} from '../../../infra/state-store/memory/memory-response-store.ts';
import { DEFAULT_RESPONSE_RETENTION_MS } from '../../../schemas/state-store/response-store.ts';
import { describeResponseStoreContract, sampleRecord } from './response-store-contract.ts';

let now = 1_767_225_600_000;
describeResponseStoreContract('memory', {
  // a memory store holds its own records only: every store is its own namespace
  sharedByNamespace: false,
  make: async (_namespace, options) => createMemoryResponseStore({ ...options, clock: () => now }),
  advance: async (ms) => {
    now += ms;
  },
});

describe('memory response store', () => {
  it('keeps records 30 days by default and expires exactly at put time + retention', async () => {
    let t = 0;
    const store = createMemoryResponseStore({ clock: () => t });
    expect(store.retentionMs).toBe(DEFAULT_RESPONSE_RETENTION_MS);
    expect(DEFAULT_RESPONSE_RETENTION_MS).toBe(30 * 86_400_000);
    const record = sampleRecord();
    await store.put(record);
    t = DEFAULT_RESPONSE_RETENTION_MS - 1;
    expect(await store.get(record.keyId, record.id)).toBeDefined();
    t = DEFAULT_RESPONSE_RETENTION_MS;
    expect(await store.get(record.keyId, record.id)).toBeUndefined();
  });

  it('forgets the oldest records first beyond maxTotalBytes', async () => {
    const records = [sampleRecord(), sampleRecord(), sampleRecord()];
    const oneRecordBytes = JSON.stringify(records[0]).length + 200;
    const store = createMemoryResponseStore({ maxTotalBytes: oneRecordBytes * 2 });
    for (const record of records) await store.put(record);
    expect(
      await store.getMany(
        records[0]!.keyId,
        records.map((r) => r.id),
      ),
    ).toEqual([undefined, records[1], records[2]]);
  });

  it('holds at most 32 MiB of JSON by default, forgetting the oldest records first', async () => {
    expect(DEFAULT_MEMORY_RESPONSE_STORE_BYTES).toBe(32 * 1024 * 1024);
    const store = createMemoryResponseStore();
    const filler = 'x'.repeat(1024 * 1024);
    const records = Array.from({ length: 40 }, () =>
      sampleRecord({
        inputItems: [
          {
            id: 'msg_1',
            type: 'message',
            role: 'user',
            status: 'completed',
            content: [{ type: 'input_text', text: filler }],
          },
        ],
      }),
    );
    for (const record of records) expect(await store.put(record)).toBe('stored');
    const held = (
      await store.getMany(
        records[0]!.keyId,
        records.map((r) => r.id),
      )
    ).map((r) => r !== undefined);
    // 40 records of just over 1 MiB: the 31 newest fit under 32 MiB, the oldest ones are gone.
    expect(held.filter(Boolean).length).toBe(31);
    expect(held.slice(-31).every(Boolean)).toBe(true);
  });

  it('refuses a retention that is not a positive integer of ms', () => {
    for (const retentionMs of [0, -1, 1.5, Number.NaN])
      expect(() => createMemoryResponseStore({ retentionMs })).toThrow(RangeError);
  });
});
