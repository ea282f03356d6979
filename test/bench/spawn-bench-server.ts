/**
 * Starts one bench server child (bench-servers.ts) as a separate Node process, so the load
 * generator in the parent does not share an event loop with what it measures.
 * The child runs `node <bench build>/test/bench/bench-servers.js <role> [...args]` (or, on the tsx
 * runtime, `node --import tsx test/bench/bench-servers.ts …`; bench-runtime.ts) from the repository root.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';
import { activeBenchRuntime, nodeArgsFor, serverChildEnvironment, type BenchRuntime } from './bench-runtime.ts';
import {
  FLUSH_EVENTS_PATH,
  type BenchEventsFlushed,
  type BenchServerReady,
  type BenchServerRole,
  type BenchServerStats,
} from './bench-server-contract.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A running child: its ports, its PID, a stats reader and a stopper. */
export interface BenchServerHandle {
  readonly role: BenchServerRole;
  readonly pid: number;
  /** `http://127.0.0.1:PORT` of the served API. */
  readonly origin: string;
  /** `http://127.0.0.1:PORT` of the control server (stats; pipeline probe when the child has one). */
  readonly controlOrigin: string;
  /** Resolves once the child has exited. */
  readonly exited: Promise<void>;
  /** Reads the child's CPU time, RSS and outcome tallies. @throws on a non-200 answer */
  stats(): Promise<BenchServerStats>;
  /**
   * Gateway child with BENCH_GATEWAY_EVENTS=1: resolves once every event published so far is
   * acknowledged by the event log or spooled, with the publisher's status then.
   * @throws on a non-200 answer (no event log, or the flush failed)
   */
  flushEvents(): Promise<BenchEventsFlushed>;
  /** Sends SIGTERM to the child's PID (no-op once it exited). */
  stop(): void;
}

/** Every child started and not yet exited, so exit handlers can kill them by PID. */
const liveChildren = new Set<ChildProcess>();

/** Adds a child started elsewhere (the embedded gateway) to those killBenchServers stops; forgotten once it exits. */
export function trackBenchChild(child: ChildProcess): void {
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
}

/** Sends SIGTERM to every live child by PID. Safe to call from a synchronous `exit` handler. */
export function killBenchServers(): void {
  for (const child of liveChildren) {
    if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
      try {
        process.kill(child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
  }
}

function readReadyLine(child: ChildProcess, role: BenchServerRole, timeoutMs: number): Promise<BenchServerReady> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    const timer = setTimeout(
      () => reject(new Error(`bench ${role} server did not report ready within ${timeoutMs} ms`)),
      timeoutMs,
    );
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`bench ${role} server exited before ready (code ${String(code)}, signal ${String(signal)})`));
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const newline = buffered.indexOf('\n');
      if (newline < 0) return;
      clearTimeout(timer);
      try {
        resolve(JSON.parse(buffered.slice(0, newline)) as BenchServerReady);
      } catch {
        reject(new Error(`bench ${role} server printed an unexpected line: ${buffered.slice(0, newline)}`));
      }
    });
  });
}

async function readStats(controlPort: number): Promise<BenchServerStats> {
  const answer = await request(`http://127.0.0.1:${controlPort}/stats`);
  if (answer.statusCode !== 200) throw new Error(`bench stats server answered ${answer.statusCode}`);
  return (await answer.body.json()) as BenchServerStats;
}

async function flushEvents(controlPort: number): Promise<BenchEventsFlushed> {
  const answer = await request(`http://127.0.0.1:${controlPort}${FLUSH_EVENTS_PATH}`);
  const text = await answer.body.text();
  if (answer.statusCode !== 200)
    throw new Error(`bench gateway event flush answered ${answer.statusCode}: ${text.slice(0, 300)}`);
  return JSON.parse(text) as BenchEventsFlushed;
}

/**
 * Spawns a `role` child on `runtime` (default: the bench's, bench-runtime.ts) and waits for its
 * ready line (default 30 s; tsx compiles on first run).
 * The child's stderr is inherited; its stdin is a pipe it watches, so it exits if this process dies.
 * `env` replaces the child's environment (default: this process's). With `cpuList` (e.g. `1`) the
 * child runs under `taskset -c <cpuList>` (taskset execs Node, so the PID is Node's).
 * @throws Error if the child exits or stays silent before it is ready.
 */
export async function spawnBenchServer(
  role: BenchServerRole,
  args: ReadonlyArray<string> = [],
  timeoutMs = 30_000,
  env: NodeJS.ProcessEnv = process.env,
  cpuList?: string,
  runtime: BenchRuntime = activeBenchRuntime(),
): Promise<BenchServerHandle> {
  const nodeArgs = [...nodeArgsFor('bench-servers', runtime), role, ...args];
  const [command, commandArgs] =
    cpuList === undefined ? [process.execPath, nodeArgs] : ['taskset', ['-c', cpuList, process.execPath, ...nodeArgs]];
  const child = spawn(command, commandArgs, {
    cwd: REPO_ROOT,
    env: serverChildEnvironment(env),
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  liveChildren.add(child);
  child.once('exit', () => liveChildren.delete(child));
  let ready: BenchServerReady;
  try {
    ready = await readReadyLine(child, role, timeoutMs);
  } catch (error) {
    if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGTERM');
    throw error;
  }
  const pid = child.pid ?? -1;
  return {
    role,
    pid,
    origin: `http://127.0.0.1:${ready.port}`,
    controlOrigin: `http://127.0.0.1:${ready.controlPort}`,
    exited,
    stats: () => readStats(ready.controlPort),
    flushEvents: () => flushEvents(ready.controlPort),
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGTERM');
    },
  };
}
