/** The in-process stored-Responses store as the composition root opens it: its cap comes from TOLLGATE_RESPONSE_STORE_MEMORY_MB (MiB). */
import { describe, expect, it } from 'vitest';
import { engineSettingsFromEnv, openResponseStore } from '../../../infra/open-adapters.ts';
import { sampleRecord } from './response-store-contract.ts';

const recordOf = (kib: number) =>
  sampleRecord({
    inputItems: [
      {
        id: 'msg_1',
        type: 'message',
        role: 'user',
        status: 'completed',
        content: [{ type: 'input_text', text: 'x'.repeat(kib * 1024) }],
      },
    ],
  });

describe('openResponseStore (memory)', () => {
  it('caps the store at TOLLGATE_RESPONSE_STORE_MEMORY_MB, oldest records out first', async () => {
    const settings = engineSettingsFromEnv({
      TOLLGATE_DATA_DIR: '/nonexistent',
      TOLLGATE_RESPONSE_STORE_MEMORY_MB: '1',
    });
    expect(settings.responseStoreMemoryMiB).toBe(1);
    const store = openResponseStore(settings);
    const records = [recordOf(400), recordOf(400), recordOf(400)];
    for (const record of records) await store.put(record);
    expect(
      (
        await store.getMany(
          records[0]!.keyId,
          records.map((r) => r.id),
        )
      ).map((r) => r !== undefined),
    ).toEqual([false, true, true]);
    await store.close();
  });

  it('refuses a cap that is not a whole number of MiB from 1 to 65536', () => {
    for (const value of ['0', '-1', '1.5', 'lots', '65537']) {
      expect(() => engineSettingsFromEnv({ TOLLGATE_RESPONSE_STORE_MEMORY_MB: value })).toThrow(
        /TOLLGATE_RESPONSE_STORE_MEMORY_MB/,
      );
    }
  });
});
