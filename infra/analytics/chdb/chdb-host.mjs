/**
 * The chdb engine's process (see chdb-store.ts): started by the engine's thread (chdb-worker.mjs)
 * with child_process.fork and `serialization: 'advanced'`, it owns one persistent chdb Session and
 * answers one request at a time over the IPC channel
 * (https://nodejs.org/api/child_process.html#child_processforkmodulepath-args-options). Plain ESM
 * JavaScript on purpose: it needs no TypeScript loader, so it starts the same from the sources and
 * from the compiled tree.
 *
 * Options: argv[2], JSON `{ path: string, database?: string, background?: boolean }`. With
 * `database` (a plain identifier, checked by chdb-store.ts) the session creates that database if
 * missing and makes it current with `USE`, which lasts for the session
 * (https://clickhouse.com/docs/sql-reference/statements/use), so every statement runs in it;
 * without, the engine's default database (`default`) is used.
 *
 * Requests:  { id: number, op: 'exec' | 'query' | 'close', sql?: string }
 * Replies:   { id, ok: true, rows?: object[] }  or  { id, ok: false, message: string }
 *  - exec  runs a statement (DDL, INSERT … FORMAT JSONEachRow <rows>) and discards its output;
 *  - query runs a SELECT and replies with its JSONEachRow rows, parsed;
 *  - close closes the session (releasing the data directory's lock), replies, and the process
 *    exits.
 * A session that could not be opened fails the first request with `cannot open chdb at <path>: …`,
 * and the process exits after that reply.
 * When its parent goes away (the channel disconnects, the parent killed included) it closes the
 * session and exits: no engine outlives the server that started it. The engine runs in a process
 * group of its own (chdb-worker.mjs), so a signal to the server's group does not reach it; SIGTERM
 * and SIGINT sent to it directly are ignored from its first statement on, before the engine's
 * library loads (seconds on a cold disk): the server's drain still writes its last batches
 * through it.
 */
// First: modules are evaluated in the order they are imported (https://tc39.es/ecma262/#sec-innermoduleevaluation).
import './ignore-stop-signals.mjs';
import { mkdirSync } from 'node:fs';
import { Session } from 'chdb';
import { lowerThisThreadPriority } from '../../lower-thread-priority.mjs';

/** @type {{ path: string, database?: string, background?: boolean }} */
const options = JSON.parse(process.argv[2] ?? '{}');

/**
 * Engine settings, as command-line arguments of the embedded clickhouse-local:
 * - 64-bit integers come back as JSON strings, as they do from a ClickHouse server;
 * - server settings (https://clickhouse.com/docs/operations/server-configuration-parameters/settings)
 *   sized for an engine that shares the gateway's machine: at most 16 idle threads kept in the
 *   global pool (default 1000: every thread ever started stays, with its allocator caches, so the
 *   process grows with the busiest moment it ever had), and caches of marks, primary indexes and
 *   query conditions capped at 64/16/16/16 MiB (defaults 5 GiB, 5 GiB, 1 GiB and 100 MiB).
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
if (options.background) lowerThisThreadPriority();
try {
  mkdirSync(options.path, { recursive: true });
  session = new Session(options.path, { connectionArgs: CONNECTION_ARGS });
  if (options.database) {
    session.query(`CREATE DATABASE IF NOT EXISTS ${options.database}`, 'CSV');
    session.query(`USE ${options.database}`, 'CSV');
  }
} catch (error) {
  openFailure = `cannot open chdb at ${options.path}: ${error instanceof Error ? error.message : String(error)}`;
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
    closeSession();
    return {};
  }
  if (!session) throw new Error(openFailure ?? 'chdb session is closed');
  if (request.op === 'exec') {
    session.query(String(request.sql), 'CSV');
    return {};
  }
  if (request.op === 'query') return { rows: parseRows(session.query(String(request.sql), 'JSONEachRow')) };
  throw new Error(`unknown chdb engine op: ${request.op}`);
}

/** Closes the session if open (an error closing it is ignored: the process is ending or the session is gone). */
function closeSession() {
  try {
    session?.close();
  } catch {
    // closing anyway
  }
  session = undefined;
}

process.on('message', (request) => {
  let reply;
  try {
    reply = { id: request.id, ok: true, ...handle(request) };
  } catch (error) {
    reply = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  // Closed, or never opened (its directory locked by another engine, say): this process is done,
  // and the next request starts a new one, which tries to open the directory again. It disconnects
  // once the reply is written, never inside this listener: a request that came while the modules
  // still loaded is delivered from Node's queue of pending messages, which Node empties after the
  // listener returns and which must still have its channel then.
  const done = request.op === 'close' || openFailure !== undefined;
  process.send?.(reply, done ? () => process.disconnect?.() : undefined);
});
process.on('disconnect', () => {
  closeSession();
  process.exit(0);
});
