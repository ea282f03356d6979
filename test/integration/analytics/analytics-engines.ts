/**
 * The two analytics engines every analytics test runs on: the ClickHouse server from
 * CLICKHOUSE_URL (18.16 in CI and here; a fresh database per store) and chdb (a fresh temp
 * directory per store). chdb allows one open data directory per process: dispose a chdb store
 * before opening the next.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AnalyticsStore } from '../../../schemas/analytics/analytics-store.ts';
import { createChdbStore } from '../../../infra/analytics/chdb/chdb-store.ts';
import { createClickHouseStore } from '../../../infra/analytics/clickhouse-http/clickhouse-http-store.ts';
import { requireEngineUrl, runnableCases } from '../../support/engines.ts';

/** A store on an empty database, and how to throw it away. */
export interface TestAnalyticsStore {
  readonly store: AnalyticsStore;
  /** The database (server) or directory (chdb) it uses. */
  readonly where: string;
  dispose(): Promise<void>;
}

/** One engine to run the tests on. */
export interface AnalyticsEngine {
  readonly name: 'clickhouse-server' | 'chdb';
  open(): Promise<TestAnalyticsStore>;
}

let counter = 0;

/** The engines, for `describe.each(ANALYTICS_ENGINES)`; chdb alone in a run without engines (engines.ts). */
export const ANALYTICS_ENGINES: ReadonlyArray<AnalyticsEngine> = runnableCases<AnalyticsEngine>(
  [
    {
      name: 'clickhouse-server',
      async open() {
        const url = await requireEngineUrl('CLICKHOUSE_URL');
        counter += 1;
        const database = `tollgate_test_${process.pid}_${Date.now()}_${counter}`;
        const store = createClickHouseStore({ url, database });
        return {
          store,
          where: database,
          async dispose() {
            await store.exec(`DROP DATABASE IF EXISTS ${database}`).finally(() => store.close());
          },
        };
      },
    },
    {
      name: 'chdb',
      async open() {
        const dir = await mkdtemp(join(tmpdir(), 'tollgate-chdb-'));
        const store = createChdbStore({ path: join(dir, 'chdb') });
        return {
          store,
          where: dir,
          async dispose() {
            await store.close();
            await rm(dir, { recursive: true, force: true });
          },
        };
      },
    },
  ],
  (engine) => engine.name === 'clickhouse-server',
);

/**
 * Exact decimal text as nano-units: `'1.5'` and `'1.500000000'` (chdb trims trailing zeros in
 * toString, 18.16 does not) both give 1 500 000 000n.
 * @throws Error when the text is not a decimal with at most 9 fractional digits.
 */
export function decimalNano(text: unknown): bigint {
  const match = /^(-?)(\d+)(?:\.(\d{1,9}))?$/.exec(String(text));
  if (!match) throw new Error(`not an exact decimal: ${JSON.stringify(text)}`);
  const nano = BigInt(match[2] ?? '0') * 1_000_000_000n + BigInt((match[3] ?? '').padEnd(9, '0'));
  return match[1] === '-' ? -nano : nano;
}
