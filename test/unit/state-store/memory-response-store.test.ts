import { describe, expect, it } from 'vitest';
import { createMemoryResponseStore } from '../../../infra/state-store/memory/memory-response-store.ts';
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
    expect(await store.getMany(records[0]!.keyId, records.map((r) => r.id))).toEqual([undefined, records[1], records[2]]);
  });

  it('refuses a retention that is not a positive integer of ms', () => {
    for (const retentionMs of [0, -1, 1.5, Number.NaN]) expect(() => createMemoryResponseStore({ retentionMs })).toThrow(RangeError);
  });
});
