import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Decimal,
  sqlLiteral,
  toJsonEachRow,
  type AnalyticsStore,
  type AnalyticsValue,
} from '../../../schemas/analytics/analytics-store.ts';
import {
  createChdbStore,
  createChdbStoreClient,
  type ChdbStore,
  type ChdbStoreOptions,
} from '../../../infra/analytics/chdb/chdb-store.ts';
import { ANALYTICS_ENGINES, decimalNano, type TestAnalyticsStore } from './analytics-engines.ts';

const TRICKY = `it's a "quote" \\ back\\slash, tab\t, newline\n, émoji 🚀`;

describe.each(ANALYTICS_ENGINES)('analytics store on $name', (engine) => {
  let opened: TestAnalyticsStore;
  let store: AnalyticsStore;
  beforeAll(async () => {
    opened = await engine.open();
    store = opened.store;
  });
  afterAll(async () => opened?.dispose());

  it('reports the engine version', async () => {
    expect(await store.version()).toMatch(engine.name === 'chdb' ? /^2\d\.\d+\./ : /^\d+\.\d+/);
  });

  it('round-trips strings, integers, NULL and exact decimals through JSONEachRow', async () => {
    await store.exec(
      'CREATE TABLE round_trip (id UInt32, s String, n UInt64, maybe Nullable(UInt64), money Decimal64(9)) ENGINE = MergeTree ORDER BY id',
    );
    // Decimal64(9) holds 18 digits: the largest is 999 999 999.999999999
    const amounts = [1n, 1_234n, 12_345_678_901_234n, 999_999_999_999_999_999n, -500_000_000n, 0n];
    await store.insert(
      'round_trip',
      amounts.map((nano, i) => ({
        id: i,
        s: i === 0 ? TRICKY : `row ${i}`,
        n: 2 ** 53 - i,
        maybe: i % 2 === 0 ? null : i,
        money: new Decimal(nano),
      })),
    );
    const rows = await store.query<{ id: number; s: string; n: string; maybe: string | null; money: string }>(
      'SELECT id, s, toString(n) AS n, maybe, toString(money) AS money FROM round_trip ORDER BY id',
    );
    expect(rows.map((r) => decimalNano(r.money))).toEqual(amounts);
    expect(rows[0]?.s).toBe(TRICKY);
    expect(rows.map((r) => r.n)).toEqual(amounts.map((_, i) => String(2 ** 53 - i)));
    expect(rows.map((r) => (r.maybe === null ? null : Number(r.maybe)))).toEqual([null, 1, null, 3, null, 5]);
    const [row] = await store.query<{ n: unknown }>('SELECT n FROM round_trip WHERE id = 0');
    expect(row?.n).toBe(String(2 ** 53)); // 64-bit integers come back as strings on both engines
    const [found] = await store.query<{ c: string }>(
      `SELECT count() AS c FROM round_trip WHERE s = ${sqlLiteral(TRICKY)}`,
    );
    expect(found?.c).toBe('1');
  });

  it('sums decimals exactly: 10 000 × 0.000000001 + 0.1 × 3 = 0.30001', async () => {
    await store.exec('CREATE TABLE sums (id UInt32, money Decimal64(9)) ENGINE = MergeTree ORDER BY id');
    const rows = Array.from({ length: 10_000 }, (_, i) => ({ id: i, money: new Decimal(1n) }));
    await store.insert('sums', [
      ...rows,
      ...[1, 2, 3].map((i) => ({ id: 10_000 + i, money: new Decimal(100_000_000n) })),
    ]);
    const [sum] = await store.query<{ total: string }>('SELECT toString(sum(money)) AS total FROM sums');
    expect(decimalNano(sum?.total)).toBe(300_010_000n);
  });

  it('rejects bad SQL with the engine message, and keeps working afterwards', async () => {
    await expect(store.query('SELEC 1')).rejects.toThrow(/Syntax error/);
    await expect(store.exec('INSERT INTO no_such_table FORMAT JSONEachRow\n{"a":1}')).rejects.toThrow(/no_such_table/);
    await expect(store.insert('bad name; DROP TABLE x', [{ a: 1 }])).rejects.toThrow('invalid table name');
    expect(await store.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('answers concurrent calls each with its own result', async () => {
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        i === 7
          ? store.query('SELECT nope').catch((e: Error) => e.message)
          : store.query<{ i: number }>(`SELECT ${i} AS i`).then((r) => r[0]?.i),
      ),
    );
    results.forEach((result, i) => (i === 7 ? expect(result).toMatch(/nope/) : expect(result).toBe(i)));
  });

  it('rejects every call after close()', async () => {
    const other = await engine.open();
    await other.dispose();
    await expect(other.store.query('SELECT 1')).rejects.toThrow('analytics store is closed');
  });
});

describe('chdb store specifics', () => {
  it('stores rows that share their keys (JSONCompactEachRow) and rows that do not exactly as a JSONEachRow insert does', async () => {
    await withChdbStore({}, async (store) => {
      const columns =
        '(id UInt32, s String, maybe Nullable(UInt64), money Decimal64(9), tags Array(String), flag UInt8, `format` UInt8, filled UInt32 DEFAULT id * 10)';
      for (const table of ['by_store', 'by_each_row'])
        await store.exec(`CREATE TABLE ${table} ${columns} ENGINE = MergeTree ORDER BY id`);
      const shared = [0, 1, 2, 3].map((i) => ({
        id: i,
        s: i === 0 ? TRICKY : `row ${i}`,
        maybe: i % 2 === 0 ? null : 2 ** 53 - i,
        money: new Decimal(i === 3 ? -999_999_999_999_999_999n : 1_234n * BigInt(i)),
        tags: i === 1 ? [] : [TRICKY, `t${i}`],
        flag: i % 2 === 0,
        format: i, // a column spelled like a keyword
      }));
      // The second row leaves `maybe` out: the batch cannot go as compact rows.
      const mixed: Array<Record<string, AnalyticsValue>> = [
        { id: 10, s: 'x', maybe: 5, money: new Decimal(1n), tags: ['a'], flag: true },
        { id: 11, s: 'y', money: new Decimal(2n), tags: [], flag: false },
      ];
      await store.insert('by_store', shared);
      await store.insert('by_store', mixed);
      await store.exec(`INSERT INTO by_each_row FORMAT JSONEachRow\n${toJsonEachRow([...shared, ...mixed])}`);
      const dump = (table: string) =>
        store.query(
          `SELECT id, s, maybe, toString(money) AS money, tags, flag, \`format\`, filled FROM ${table} ORDER BY id`,
        );
      const stored = await dump('by_store');
      expect(stored).toHaveLength(6);
      expect(stored).toEqual(await dump('by_each_row'));
      expect(stored.map((row) => row.filled)).toEqual([0, 10, 20, 30, 100, 110]);
    });
  });

  it('runs queries off the event loop: timers keep firing during a 600 ms query', async () => {
    await withChdbStore({}, async (store) => {
      await store.version(); // started
      let ticks = 0;
      const timer = setInterval(() => (ticks += 1), 10);
      const started = Date.now();
      await store.query('SELECT sleep(0.6) AS slept');
      clearInterval(timer);
      expect(Date.now() - started).toBeGreaterThanOrEqual(590);
      expect(ticks).toBeGreaterThanOrEqual(20);
    });
  });

  it('serves a client port: its statements reach the same engine, its errors come back, and it fails once the engine closes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tollgate-chdb-'));
    const owner = createChdbStore({ path: join(dir, 'chdb') });
    const client = createChdbStoreClient(owner.openClientPort());
    try {
      await client.exec('CREATE TABLE shared (x UInt32) ENGINE = MergeTree ORDER BY x');
      await Promise.all([client.insert('shared', [{ x: 1 }, { x: 2 }]), owner.insert('shared', [{ x: 3 }])]);
      expect(await owner.query('SELECT count() AS n FROM shared')).toEqual([{ n: '3' }]);
      await expect(client.query('SELEC 1')).rejects.toThrow(/Syntax error/);
      const second = createChdbStoreClient(owner.openClientPort());
      await second.close();
      await expect(second.query('SELECT 1')).rejects.toThrow('analytics store is closed');
      expect(await client.query('SELECT sum(x) AS s FROM shared')).toEqual([{ s: '6' }]);
      await owner.close();
      await expect(client.query('SELECT 1')).rejects.toThrow();
      expect(() => owner.openClientPort()).toThrow('analytics store is closed');
    } finally {
      await client.close();
      await owner.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('keeps data across close and reopen; a second store on the same directory waits for its lock, one on another directory works at once', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'tollgate-chdb-'));
    const first = createChdbStore({ path: join(dir, 'a'), idleExitMs: 0 });
    await first.exec('CREATE TABLE kept (x Decimal64(9)) ENGINE = MergeTree ORDER BY x');
    await first.insert('kept', [{ x: new Decimal(42n) }]);
    const other = createChdbStore({ path: join(dir, 'b') });
    const same = createChdbStore({ path: join(dir, 'a') });
    try {
      expect(await other.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      // ClickHouse's lock on the directory (its `status` file): the engine's message names it only at times.
      await expect(same.version()).rejects.toThrow(`cannot open chdb at ${join(dir, 'a')}:`);
      await first.close();
      expect(await same.query('SELECT toString(x) AS x FROM kept')).toEqual([{ x: '0.000000042' }]);
    } finally {
      await Promise.all([first.close(), other.close(), same.close()]);
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('stops its engine process after idleExitMs without a call and starts it again with the next, data kept', async () => {
    await withChdbStore({ idleExitMs: 300 }, async (store) => {
      expect(engineProcesses()).toEqual([]); // nothing starts before the first call
      await store.exec('CREATE TABLE idle (x UInt32) ENGINE = MergeTree ORDER BY x');
      await store.insert('idle', [{ x: 7 }]);
      const [running] = engineProcesses();
      expect(running).toBeDefined();
      await waitUntil(() => engineProcesses().length === 0, 5_000);
      expect(await store.query('SELECT sum(x) AS s FROM idle')).toEqual([{ s: '7' }]);
      const [again] = engineProcesses();
      expect(again).toBeDefined();
      expect(again).not.toBe(running);
    });
    expect(engineProcesses()).toEqual([]); // close() stops it
  });

  it("runs its engine in a process group of its own that ignores SIGTERM: a stop sent to the server's group leaves it to serve the drain", async () => {
    await withChdbStore({ idleExitMs: 0 }, async (store) => {
      await store.version();
      const [pid] = engineProcesses();
      expect(pid).toBeDefined();
      // Not in this process's group: a SIGTERM to that group (a supervisor, Ctrl-C) cannot reach
      // it, not even while it still loads the engine's library.
      expect(processGroupOf(pid!)).not.toBe(processGroupOf(process.pid));
      process.kill(pid!, 'SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(engineProcesses()).toEqual([pid]);
      expect(await store.query('SELECT 3 AS three')).toEqual([{ three: 3 }]);
    });
  });

  it("keeps its engine process by default across a pause of seconds between calls (a coding agent's), not restarting it per call", async () => {
    await withChdbStore({}, async (store) => {
      await store.version();
      const [running] = engineProcesses();
      expect(running).toBeDefined();
      await new Promise((resolve) => setTimeout(resolve, 7_000));
      expect(engineProcesses()).toEqual([running]);
      expect(await store.query('SELECT 4 AS four')).toEqual([{ four: 4 }]);
      expect(engineProcesses()).toEqual([running]);
    });
  }, 20_000);

  it('fails the call in flight when its engine process dies, and the next call starts a new one', async () => {
    await withChdbStore({ idleExitMs: 0 }, async (store) => {
      await store.version();
      const [pid] = engineProcesses();
      const slow = store.query('SELECT sleep(2) AS slept');
      await new Promise((resolve) => setTimeout(resolve, 300));
      process.kill(pid!, 'SIGKILL');
      await expect(slow).rejects.toThrow('chdb engine process exited (signal SIGKILL)');
      expect(await store.query('SELECT 2 AS two')).toEqual([{ two: 2 }]);
    });
  });
});

/**
 * Runs `body` with a chdb store (`options` as createChdbStore's) on a fresh temporary directory,
 * then closes the store and removes the directory, whether `body` resolved or threw.
 */
async function withChdbStore(
  options: Omit<ChdbStoreOptions, 'path'>,
  body: (store: ChdbStore) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'tollgate-chdb-'));
  const store = createChdbStore({ ...options, path: join(dir, 'chdb') });
  try {
    await body(store);
  } finally {
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** PIDs of this process's chdb engine processes (children running chdb-host.mjs). */
function engineProcesses(): number[] {
  const pids: number[] = [];
  for (const task of readdirSync('/proc/self/task')) {
    let children = '';
    try {
      children = readFileSync(`/proc/self/task/${task}/children`, 'utf8');
    } catch {
      continue; // the thread ended meanwhile
    }
    for (const pid of children.split(' ').filter(Boolean).map(Number)) {
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('chdb-host.mjs')) pids.push(pid);
      } catch {
        // exited meanwhile
      }
    }
  }
  return pids;
}

/** The process group of `pid`: the third field after the command name in /proc/<pid>/stat (https://man7.org/linux/man-pages/man5/proc_pid_stat.5.html). */
function processGroupOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
}

async function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
