/**
 * The chdb store's `database` option: statements run in that database (created when missing),
 * the default store keeps using chdb's `default` database as before, both are reachable by
 * qualified names from either store, and infra/open-adapters.ts passes CLICKHOUSE_DATABASE to
 * chdb only when a caller sets it (the environment alone leaves embedded data where it is).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createChdbStore } from '../../../infra/analytics/chdb/chdb-store.ts';
import { engineSettingsFromEnv } from '../../../infra/open-adapters.ts';

describe('chdb store database option', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tollgate-chdb-db-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('runs every statement in its database and leaves the default one where it was', async () => {
    const path = join(dir, 'chdb');
    const plain = createChdbStore({ path });
    await plain.exec('CREATE TABLE IF NOT EXISTS marks (name String) ENGINE = MergeTree ORDER BY name');
    await plain.insert('marks', [{ name: 'live' }]);
    expect(await plain.query('SELECT currentDatabase() AS db')).toEqual([{ db: 'default' }]);
    await plain.close();

    const audit = createChdbStore({ path, database: 'audit_copy' });
    expect(await audit.query('SELECT currentDatabase() AS db')).toEqual([{ db: 'audit_copy' }]);
    await audit.exec('CREATE TABLE IF NOT EXISTS marks (name String) ENGINE = MergeTree ORDER BY name');
    await audit.insert('marks', [{ name: 'replayed' }]);
    expect(await audit.query('SELECT name FROM marks')).toEqual([{ name: 'replayed' }]);
    expect(await audit.query('SELECT name FROM default.marks')).toEqual([{ name: 'live' }]);
    // Dropped and re-created under the open session, the database stays the current one.
    await audit.exec('DROP DATABASE IF EXISTS audit_copy');
    await audit.exec('CREATE DATABASE IF NOT EXISTS audit_copy');
    await audit.exec('CREATE TABLE IF NOT EXISTS marks (name String) ENGINE = MergeTree ORDER BY name');
    expect(await audit.query('SELECT count() AS n FROM audit_copy.marks')).toEqual([{ n: '0' }]);
    await audit.close();

    const again = createChdbStore({ path });
    expect(await again.query('SELECT name FROM marks')).toEqual([{ name: 'live' }]);
    await again.close();
  });

  it('rejects a database name that is not a plain identifier', () => {
    expect(() => createChdbStore({ path: join(dir, 'other'), database: 'x; DROP TABLE y' })).toThrow(
      /invalid ClickHouse database name/,
    );
  });

  it('reads CLICKHOUSE_DATABASE from the environment only for a ClickHouse server', () => {
    expect(engineSettingsFromEnv({ CLICKHOUSE_DATABASE: 'elsewhere' }).clickhouseDatabase).toBeUndefined();
    expect(
      engineSettingsFromEnv({ CLICKHOUSE_URL: 'http://127.0.0.1:8123', CLICKHOUSE_DATABASE: 'elsewhere' })
        .clickhouseDatabase,
    ).toBe('elsewhere');
  });
});
