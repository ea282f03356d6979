/**
 * The analytics port over the embedded ClickHouse engine (npm `chdb`), used when CLICKHOUSE_URL
 * is absent. The engine runs in a child process (chdb-host.mjs) holding one persistent Session in
 * the data directory, reached through a `worker_threads` Worker (chdb-worker.mjs) that relays the
 * requests, so no query ever runs on the request thread and the engine's library never loads into
 * this process. Calls are serialised: one request is in flight at a time, matched to its reply by
 * id. Another thread (the embedded consumers' worker) reaches the same engine through a port from
 * openClientPort().
 *
 * The engine process starts with the first call and stops after `idleExitMs` without one (default
 * 60 s), taking the engine's memory with it (a bare process holding a chdb session is about 240 MB
 * resident, 190 MB of it the library's pages); the next call starts it again, in about 0.2 s.
 * ClickHouse locks its data directory: one engine process per directory at a time, so a second
 * store on the same path fails with `Cannot lock file …` while the first one's engine runs.
 */
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import {
  toJsonCompactEachRow,
  toJsonEachRow,
  type AnalyticsStore,
  type AnalyticsValue,
} from '../../../schemas/analytics/analytics-store.ts';
import { assertTableName } from '../assert-table-name.ts';

/** Where the engine keeps its data. */
export interface ChdbStoreOptions {
  /** Data directory (created if missing), e.g. `${TOLLGATE_DATA_DIR}/chdb`. */
  readonly path: string;
  /**
   * Database every statement runs in (unqualified table names resolve there), created
   * (`CREATE DATABASE IF NOT EXISTS`) when the engine opens. Must be a plain identifier. Absent:
   * the engine's own default database (`default`), where the embedded tables have always lived.
   * Other databases of the same data directory stay reachable by qualified names (`db.table`).
   */
  readonly database?: string;
  /**
   * Run the engine process's threads at background priority (infra/lower-thread-priority.mjs): a
   * request thread sharing a core preempts them. Default false.
   */
  readonly background?: boolean;
  /**
   * ms without a call after which the engine process is stopped, its memory returned; the next call
   * starts it again. Default DEFAULT_CHDB_IDLE_EXIT_MS; 0 keeps it running until close().
   */
  readonly idleExitMs?: number;
}

/**
 * ChdbStoreOptions.idleExitMs when not given, ms: a minute. A start and stop of the engine process
 * costs about 0.3 s of CPU (measured on a 2-CPU AMD EPYC: loading the library 60 ms, opening the
 * session on the migrated tables 65–140 ms, closing it 10 ms, Node's own start and exit the rest),
 * and the consumers insert the rows of every request that ends. A coding agent's session pauses
 * for seconds to a minute between the requests that end (a long answer streaming, a tool running,
 * its user reading): with a few seconds here the engine stopped and started again for nearly every
 * request, hundreds of times the CPU the request itself cost. A server without traffic for a
 * minute still gives the engine's memory back.
 */
export const DEFAULT_CHDB_IDLE_EXIT_MS = 60_000;

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A request to the engine's thread (see chdb-worker.mjs). */
type WorkerRequest = { readonly op: 'exec' | 'query'; readonly sql: string } | { readonly op: 'close' };

/** The worker's reply to request `id`. */
type WorkerReply =
  | { readonly id: number; readonly ok: true; readonly rows?: unknown[] }
  | { readonly id: number; readonly ok: false; readonly message: string };

interface Pending {
  readonly resolve: (rows: unknown[]) => void;
  readonly reject: (error: Error) => void;
}

/** Either end the requests can travel over: the engine's Worker itself, or a MessagePort attached to it. */
interface EngineEndpoint {
  postMessage(message: unknown): void;
  ref(): void;
  unref(): void;
  on(event: 'message', listener: (reply: WorkerReply) => void): unknown;
}

/** The chdb analytics store of this process: an AnalyticsStore that can also serve another thread. */
export interface ChdbStore extends AnalyticsStore {
  /**
   * A MessagePort wired straight to the engine's worker, for another thread of this process to
   * pass to createChdbStoreClient (transfer it in the `transferList` of the postMessage or
   * `workerData` that carries it). Its requests run on the engine thread between this store's,
   * one statement at a time; they never pass through this thread.
   * @throws Error after close()
   */
  openClientPort(): MessagePort;
}

/**
 * Requests over an endpoint, one in flight at a time, matched to replies by id; the endpoint holds
 * the process open only while a request is pending. `failAll` rejects what is pending and every
 * later request with its error.
 */
function engineClient(endpoint: EngineEndpoint) {
  const pending = new Map<number, Pending>();
  let nextId = 1;
  let queue: Promise<unknown> = Promise.resolve();
  let failure: Error | undefined;

  const settle = (id: number): Pending | undefined => {
    const entry = pending.get(id);
    pending.delete(id);
    if (pending.size === 0) endpoint.unref();
    return entry;
  };
  const failAll = (error: Error): void => {
    failure ??= error;
    for (const id of [...pending.keys()]) settle(id)?.reject(error);
  };
  endpoint.on('message', (reply: WorkerReply) => {
    const entry = settle(reply.id);
    if (!entry) return;
    if (reply.ok) entry.resolve(reply.rows ?? []);
    else entry.reject(new Error(reply.message));
  });
  endpoint.unref(); // after the listener: adding a 'message' listener re-refs the endpoint

  const send = (request: WorkerRequest): Promise<unknown[]> =>
    new Promise((resolve, reject) => {
      if (failure) return reject(failure);
      const id = nextId++;
      pending.set(id, { resolve, reject });
      endpoint.ref();
      endpoint.postMessage({ id, ...request });
    });
  /** Queues a request behind the previous one, so the worker sees one at a time from this client. */
  const call = (request: WorkerRequest): Promise<unknown[]> => {
    const result = queue.then(() => send(request));
    queue = result.catch(() => undefined);
    return result;
  };
  return { call, failAll };
}

/**
 * The INSERT of `rows` into `table`: JSONCompactEachRow with the column list (chdb's engine has
 * had the format since ClickHouse 20.1), or JSONEachRow when the rows do not share their keys.
 */
function insertStatement(table: string, rows: ReadonlyArray<Record<string, AnalyticsValue>>): string {
  const compact = toJsonCompactEachRow(rows);
  return compact
    ? `INSERT INTO ${table} (${compact.columns.join(', ')}) FORMAT JSONCompactEachRow\n${compact.text}`
    : `INSERT INTO ${table} FORMAT JSONEachRow\n${toJsonEachRow(rows)}`;
}

/** The AnalyticsStore methods over a client's `call`; `isClosed` makes every call reject once closing began. */
function analyticsOver(
  call: (request: WorkerRequest) => Promise<unknown[]>,
  isClosed: () => boolean,
): Omit<AnalyticsStore, 'close'> {
  const guarded = (request: WorkerRequest): Promise<unknown[]> =>
    isClosed() ? Promise.reject(new Error('analytics store is closed')) : call(request);
  return {
    async exec(sql) {
      await guarded({ op: 'exec', sql });
    },
    async insert(table: string, rows: ReadonlyArray<Record<string, AnalyticsValue>>) {
      assertTableName(table);
      if (rows.length === 0) return;
      await guarded({ op: 'exec', sql: insertStatement(table, rows) });
    },
    async query<T = Record<string, unknown>>(sql: string): Promise<T[]> {
      return (await guarded({ op: 'query', sql })) as T[];
    },
    async version() {
      const [row] = (await guarded({ op: 'query', sql: 'SELECT version() AS version' })) as Array<{ version: string }>;
      if (!row) throw new Error('chdb returned no version');
      return row.version;
    },
  };
}

/**
 * Starts the engine's thread and returns the store; the engine process starts with the first call.
 * Every method rejects with an Error carrying the engine's message (`Query failed: Code: 62.
 * DB::Exception: Syntax error …`), or with `cannot open chdb at <path>: …` when the data directory
 * could not be opened (e.g. another engine process holds its lock), or with `chdb engine process
 * exited (…)` when the engine process died during the call, or after close() with `analytics store
 * is closed`. The thread does not keep the process alive while idle; close() stops the engine
 * process and the thread. A `database` that cannot be created makes every call reject with
 * `cannot open chdb at <path>: …` too.
 * @throws Error synchronously when `database` is not a plain identifier.
 */
export function createChdbStore(options: ChdbStoreOptions): ChdbStore {
  const { database } = options;
  if (database !== undefined && !IDENTIFIER.test(database))
    throw new Error(`invalid ClickHouse database name: ${JSON.stringify(database)}`);
  const worker = new Worker(new URL('./chdb-worker.mjs', import.meta.url), {
    workerData: {
      path: options.path,
      database,
      background: options.background === true,
      idleExitMs: options.idleExitMs ?? DEFAULT_CHDB_IDLE_EXIT_MS,
    },
  });
  const { call, failAll } = engineClient(worker);
  worker.on('error', (error) => failAll(error));
  worker.on('exit', (code) => failAll(new Error(`chdb worker exited (code ${code})`)));
  let closing: Promise<void> | undefined;

  return {
    ...analyticsOver(call, () => closing !== undefined),
    openClientPort() {
      if (closing) throw new Error('analytics store is closed');
      const { port1, port2 } = new MessageChannel();
      worker.postMessage({ op: 'attach', port: port1 }, [port1]);
      return port2;
    },
    close() {
      closing ??= call({ op: 'close' })
        .catch(() => undefined)
        .then(async () => {
          worker.ref(); // an unref'd worker would let the process exit before terminate() settles
          await worker.terminate();
        });
      return closing;
    },
  };
}

/**
 * The analytics store of another thread of this process, over a port from ChdbStore.openClientPort():
 * the same methods and errors as the owning store's, served by the same engine thread. close()
 * closes only the port (the owning store closes the engine); later calls reject with
 * `analytics store is closed`, and so do pending ones when the engine goes away.
 */
export function createChdbStoreClient(port: MessagePort): AnalyticsStore {
  const { call, failAll } = engineClient(port);
  port.on('close', () => failAll(new Error('analytics store is closed')));
  let closed = false;
  return {
    ...analyticsOver(call, () => closed),
    async close() {
      closed = true;
      port.close();
    },
  };
}
