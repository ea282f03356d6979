/**
 * The chdb engine's thread (see chdb-store.ts): owns one persistent chdb Session at
 * `workerData.path` and answers one request at a time. Plain ESM JavaScript on purpose: Node 20
 * does not apply `--import tsx` to a Worker's execArgv, so a .ts worker would not load.
 *
 * With `workerData.database` (a plain identifier, checked by chdb-store.ts) the session creates
 * that database if missing and makes it current with `USE`, which lasts for the session
 * (https://clickhouse.com/docs/sql-reference/statements/use), so every statement runs in it;
 * without, the engine's default database (`default`) is used, as it always was.
 *
 * Requests:  { id: number, op: 'exec' | 'query' | 'close', sql?: string }, on the parent port or on
 *            any port attached with { op: 'attach', port: MessagePort } (no reply), each answered
 *            on the port it came from; the engine runs one statement at a time across all ports.
 * Replies:   { id, ok: true, rows?: object[] }  or  { id, ok: false, message: string }
 *  - exec  runs a statement (DDL, INSERT … FORMAT JSONEachRow <rows>) and discards its output;
 *  - query runs a SELECT and replies with its JSONEachRow rows, parsed;
 *  - close closes the session (releasing the process-wide data directory) and replies.
 */
import { mkdirSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { Session } from 'chdb';
import { lowerThisThreadPriority } from '../../lower-thread-priority.mjs';

/**
 * Engine settings, as command-line arguments of the embedded clickhouse-local:
 * - 64-bit integers come back as JSON strings, as they do from a ClickHouse server;
 * - server settings (https://clickhouse.com/docs/operations/server-configuration-parameters/settings)
 *   sized for an engine that shares the gateway's process: at most 16 idle threads kept in the global
 *   pool (default 1000: every thread ever started stays, with its allocator caches, so the process
 *   grows with the busiest moment it ever had), and caches of marks, primary indexes and query
 *   conditions capped at 64/16/16/16 MiB (defaults 5 GiB, 5 GiB, 1 GiB and 100 MiB of memory the
 *   gateway would never get back).
 */
const CONNECTION_ARGS = [
  '--output_format_json_quote_64bit_integers=1',
  '--max_thread_pool_free_size=16',
  '--mark_cache_size=67108864',
  '--index_mark_cache_size=16777216',
  '--primary_index_cache_size=16777216',
  '--query_condition_cache_size=16777216',
];

/** @type {Session | undefined} */
let session;
/** @type {string | undefined} why the session could not be opened */
let openFailure;
// Before the engine starts its thread pools, which inherit it: requests preempt the engine's work.
if (workerData.background) lowerThisThreadPriority();
try {
  mkdirSync(workerData.path, { recursive: true });
  session = new Session(workerData.path, { connectionArgs: CONNECTION_ARGS });
  if (workerData.database) {
    session.query(`CREATE DATABASE IF NOT EXISTS ${workerData.database}`, 'CSV');
    session.query(`USE ${workerData.database}`, 'CSV');
  }
} catch (error) {
  openFailure = `cannot open chdb at ${workerData.path}: ${error instanceof Error ? error.message : String(error)}`;
  // A session whose database could not be made current must not answer in another database.
  try {
    session?.close();
  } catch {
    // already failing; the open failure is what callers see
  }
  session = undefined;
}

/** @param {string} text JSONEachRow output */
function parseRows(text) {
  const rows = [];
  for (const line of text.split('\n')) if (line.trim() !== '') rows.push(JSON.parse(line));
  return rows;
}

/** @param {{ op: string, sql?: string }} request */
function handle(request) {
  if (request.op === 'close') {
    session?.close();
    session = undefined;
    return {};
  }
  if (!session) throw new Error(openFailure ?? 'chdb session is closed');
  if (request.op === 'exec') {
    session.query(String(request.sql), 'CSV');
    return {};
  }
  if (request.op === 'query') return { rows: parseRows(session.query(String(request.sql), 'JSONEachRow')) };
  throw new Error(`unknown chdb worker op: ${request.op}`);
}

/** @param {import('node:worker_threads').MessagePort} port */
function serve(port) {
  port.on('message', (request) => {
    if (request.op === 'attach') {
      serve(request.port);
      return;
    }
    try {
      port.postMessage({ id: request.id, ok: true, ...handle(request) });
    } catch (error) {
      port.postMessage({ id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) });
    }
  });
}

if (parentPort) serve(parentPort);
