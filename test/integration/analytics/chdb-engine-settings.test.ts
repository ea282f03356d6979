/**
 * The embedded engine runs with the server settings chdb-host.mjs passes for an engine that shares
 * the gateway's machine: a small idle thread pool and capped caches (read back from
 * system.server_settings), and it still answers queries as before.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChdbStore } from '../../../infra/analytics/chdb/chdb-store.ts';

describe('chdb engine settings', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tollgate-chdb-settings-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps at most 16 idle threads and caps the mark, index and query-condition caches', async () => {
    const store = createChdbStore({ path: join(dir, 'chdb') });
    try {
      const rows = await store.query<{ name: string; value: string }>(
        "SELECT name, value FROM system.server_settings WHERE name IN ('max_thread_pool_free_size', 'mark_cache_size', 'index_mark_cache_size', 'primary_index_cache_size', 'query_condition_cache_size') ORDER BY name",
      );
      expect(Object.fromEntries(rows.map((row) => [row.name, row.value]))).toEqual({
        index_mark_cache_size: String(16 * 1024 * 1024),
        mark_cache_size: String(64 * 1024 * 1024),
        max_thread_pool_free_size: '16',
        primary_index_cache_size: String(16 * 1024 * 1024),
        query_condition_cache_size: String(16 * 1024 * 1024),
      });
      await store.exec('CREATE TABLE IF NOT EXISTS probe (n UInt64) ENGINE = MergeTree ORDER BY n');
      await store.insert('probe', [{ n: 1 }, { n: 2 }]);
      expect(await store.query('SELECT sum(n) AS total FROM probe')).toEqual([{ total: '3' }]);
    } finally {
      await store.close();
    }
  });
});
