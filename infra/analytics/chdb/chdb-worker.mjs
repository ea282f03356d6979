/**
 * The chdb engine's thread (see chdb-store.ts): it runs the engine in a child process
 * (chdb-host.mjs) and relays requests to it one at a time, so that the engine's library (about
 * 190 MB resident once loaded, https://man7.org/linux/man-pages/man2/madvise.2.html: a process
 * cannot hand mapped library pages back) and its memory leave with that process. The process is
 * started by the first request and, with `workerData.idleExitMs` > 0, stopped once that long has
 * passed without a request (its session closed, the data directory's lock released); the next
 * request starts it again (about 0.2 s). An engine process that dies fails the request in flight
 * with `chdb engine process exited …`; the next request starts a new one.
 *
 * workerData: { path: string, database?: string, background: boolean, idleExitMs: number }
 * Requests:  { id: number, op: 'exec' | 'query' | 'close', sql?: string }, on the parent port or on
 *            any port attached with { op: 'attach', port: MessagePort } (no reply), each answered
 *            on the port it came from; the engine runs one statement at a time across all ports.
 * Replies:   { id, ok: true, rows?: object[] }  or  { id, ok: false, message: string }
 *  - exec  runs a statement (DDL, INSERT … FORMAT JSONEachRow <rows>) and discards its output;
 *  - query runs a SELECT and replies with its JSONEachRow rows, parsed;
 *  - close stops the engine process and replies; every later request fails with
 *    `chdb session is closed`.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

const HOST = fileURLToPath(new URL('./chdb-host.mjs', import.meta.url));
const HOST_OPTIONS = JSON.stringify({
  path: workerData.path,
  database: workerData.database,
  background: workerData.background === true,
});
/** @type {number} ms without a request before the engine process is stopped (0: never) */
const IDLE_EXIT_MS = Number(workerData.idleExitMs) || 0;

/**
 * The running engine process and the reply it is awaited for.
 * @typedef {{ child: import('node:child_process').ChildProcess, exited: Promise<void>, awaiting?: (reply: object) => void }} Engine
 */
/** @type {Engine | undefined} */
let engine;
let closed = false;
/** Requests received and not yet answered. */
let outstanding = 0;
/** @type {ReturnType<typeof setTimeout> | undefined} */
let idleTimer;
/** Every request and stop runs after the one before it. */
let chain = Promise.resolve();

/** @returns {Engine} a started engine process */
function startEngine() {
  // In a process group of its own: a supervisor's SIGTERM or a terminal's Ctrl-C to the server's
  // group must not reach an engine still loading its library, before chdb-host.mjs could ignore
  // it (https://nodejs.org/api/child_process.html#optionsdetached). It still goes with its
  // server: it exits when the IPC channel closes.
  const child = fork(HOST, [HOST_OPTIONS], {
    serialization: 'advanced',
    execArgv: [],
    detached: true,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  /** @type {Engine} */
  const started = {
    child,
    exited: new Promise((resolve) => {
      const ended = (/** @type {string} */ how) => {
        if (engine === started) engine = undefined;
        started.awaiting?.({ ok: false, message: `chdb engine process exited (${how})` });
        started.awaiting = undefined;
        resolve();
      };
      child.once('exit', (code, signal) => ended(signal ? `signal ${signal}` : `code ${code}`));
      child.once('error', (error) => {
        ended(error.message);
        child.kill('SIGKILL');
      });
    }),
  };
  child.on('message', (reply) => {
    started.awaiting?.(reply);
    started.awaiting = undefined;
  });
  return started;
}

/**
 * Runs one request on the engine process, starting it when none runs.
 * @param {{ op: string, sql?: string }} request
 * @returns {Promise<{ ok: boolean, rows?: object[], message?: string }>}
 */
async function runOnEngine(request) {
  if (closed) return { ok: false, message: 'chdb session is closed' };
  // An engine that closed its channel (its session could not be opened) is on its way out.
  if (engine && !engine.child.connected) await engine.exited;
  engine ??= startEngine();
  const current = engine;
  return new Promise((resolve) => {
    current.awaiting = resolve;
    current.child.send({ id: 0, op: request.op, sql: request.sql });
  });
}

/** Stops the engine process, if one runs: its session closes, then it exits. */
async function stopEngine() {
  const current = engine;
  if (!current) return;
  engine = undefined;
  if (current.child.connected) current.child.send({ id: 0, op: 'close' });
  else current.child.kill('SIGKILL');
  await current.exited;
}

/** Arms the idle stop once nothing is outstanding. */
function armIdleStop() {
  if (IDLE_EXIT_MS <= 0 || outstanding > 0 || closed) return;
  clearTimeout(idleTimer);
  idleTimer = setTimeout(() => {
    if (outstanding > 0) return;
    chain = chain.then(stopEngine);
  }, IDLE_EXIT_MS);
  idleTimer.unref();
}

/**
 * @param {import('node:worker_threads').MessagePort} port
 */
function serve(port) {
  port.on('message', (request) => {
    if (request.op === 'attach') {
      serve(request.port);
      return;
    }
    outstanding += 1;
    clearTimeout(idleTimer);
    const run = async () => {
      if (request.op === 'close') {
        closed = true;
        await stopEngine();
        return { ok: true };
      }
      return runOnEngine(request);
    };
    chain = chain
      .then(run)
      .then(
        (reply) => port.postMessage({ ...reply, id: request.id }),
        (error) =>
          port.postMessage({
            id: request.id,
            ok: false,
            message: error instanceof Error ? error.message : String(error),
          }),
      )
      .finally(() => {
        outstanding -= 1;
        armIdleStop();
      });
  });
}

if (parentPort) serve(parentPort);
