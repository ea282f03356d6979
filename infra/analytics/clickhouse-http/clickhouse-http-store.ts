/**
 * The analytics port over a ClickHouse server's HTTP interface (@clickhouse/client), used when
 * CLICKHOUSE_URL is set. Works against Debian's ClickHouse 18.16 as well as current servers:
 * statements go through `command`, selects through `query` with `format: 'JSONEachRow'`, and
 * inserts are sent as `INSERT INTO <table> FORMAT JSONEachRow\n<rows>` so that Decimal values
 * stay bare literals (the client's own `insert()` quotes them, which 18.16 rejects).
 */
import type { ClickHouseClient } from '@clickhouse/client';
import { engineClientLibrary } from '../../engine-client-libraries.ts';
import { toJsonEachRow, type AnalyticsStore, type AnalyticsValue } from '../../../schemas/analytics/analytics-store.ts';
import { assertTableName } from '../assert-table-name.ts';

/** Where the server is and which database to use. */
export interface ClickHouseStoreOptions {
  /** Server URL, e.g. `http://127.0.0.1:18123` (credentials may be given as `http://user:pass@host:port`). */
  readonly url: string;
  /**
   * Database for all statements; created (`CREATE DATABASE IF NOT EXISTS`) before the first one.
   * Must be a plain identifier. Default: the URL's database, else `default`.
   */
  readonly database?: string;
  /** Per-request timeout, ms (default 30 000). */
  readonly requestTimeoutMs?: number;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Creates a ClickHouse-over-HTTP analytics store. Nothing is sent until the first call; that call
 * creates the database when one is given. Every method rejects with the server's error (an
 * Error whose message carries ClickHouse's `Code: N … DB::Exception: …`) or a network error.
 * @throws Error synchronously when `database` is not a plain identifier.
 */
export function createClickHouseStore(options: ClickHouseStoreOptions): AnalyticsStore {
  const { url, database } = options;
  if (database !== undefined && !IDENTIFIER.test(database))
    throw new Error(`invalid ClickHouse database name: ${JSON.stringify(database)}`);
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  let ready: Promise<ClickHouseClient> | undefined;
  let closed = false;

  const client = (): Promise<ClickHouseClient> => {
    if (closed) return Promise.reject(new Error('analytics store is closed'));
    if (!ready) {
      const starting = connect(url, database, requestTimeout);
      ready = starting;
      // A failed start (server down) is retried by the next call rather than cached forever.
      starting.catch(() => {
        if (ready === starting) ready = undefined;
      });
    }
    return ready;
  };

  return {
    async exec(sql) {
      await (await client()).command({ query: sql });
    },
    async insert(table: string, rows: ReadonlyArray<Record<string, AnalyticsValue>>) {
      assertTableName(table);
      if (rows.length === 0) return;
      await (await client()).command({ query: `INSERT INTO ${table} FORMAT JSONEachRow\n${toJsonEachRow(rows)}` });
    },
    async query<T = Record<string, unknown>>(sql: string): Promise<T[]> {
      const result = await (await client()).query({ query: sql, format: 'JSONEachRow' });
      return result.json<T>();
    },
    async version() {
      const rows = await (await client()).query({ query: 'SELECT version() AS version', format: 'JSONEachRow' });
      const [row] = await rows.json<{ version: string }>();
      if (!row) throw new Error('ClickHouse returned no version');
      return row.version;
    },
    async close() {
      if (closed) return;
      closed = true;
      const pending = ready;
      ready = undefined;
      if (pending) await (await pending.catch(() => undefined))?.close();
    },
  };
}

/** Errors reach the caller as rejections; the client's own logging would report them twice. */
const quiet = () => ({ level: engineClientLibrary('@clickhouse/client').ClickHouseLogLevel.OFF });

/** Creates the database (if one is named) with a short-lived client, then the client that uses it. */
async function connect(url: string, database: string | undefined, requestTimeout: number): Promise<ClickHouseClient> {
  const { createClient } = engineClientLibrary('@clickhouse/client');
  if (database !== undefined) {
    const admin = createClient({ url, database: 'default', request_timeout: requestTimeout, log: quiet() });
    try {
      await admin.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
    } finally {
      await admin.close();
    }
  }
  return createClient({
    url,
    request_timeout: requestTimeout,
    log: quiet(),
    ...(database !== undefined ? { database } : {}),
  });
}
