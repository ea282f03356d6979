/**
 * Starts the gateway as `npm start` ships it (infra/processes/tollgate-server.ts: gateway, in-process
 * consumers, file event log, memory state and chdb (its engine in a child process); compiled, or on tsx with
 * BENCH_TSX=1: bench-runtime.ts) in a child process, with the
 * soak's memory probe preloaded (soak-memory-probe.mjs) and an IPC channel to ask it for figures.
 * Engine URLs (KAFKA_BROKERS, REDIS_URL, CLICKHOUSE_URL) are removed from the child's environment so
 * it always runs embedded. Only the last 64 KiB of its output is kept.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { activeBenchRuntime, nodeArgsFor, serverChildEnvironment } from './bench-runtime.ts';
import { readProcessUsage } from './read-process-usage.ts';
import { listeningAddressIn, stopChildProcess, withoutEngineVariables } from '../support/spawn-gateway.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const PROBE = fileURLToPath(new URL('./soak-memory-probe.mjs', import.meta.url));
const OUTPUT_TAIL_CHARS = 64 * 1024;

/** One reading of the gateway's memory, bytes (process.memoryUsage and v8.getHeapStatistics). */
export interface SoakMemorySample {
  /** RSS of the gateway's whole process tree (/proc): the chdb engine's process included. */
  readonly rssBytes: number;
  readonly heapUsedBytes: number;
  readonly heapTotalBytes: number;
  readonly externalBytes: number;
  readonly arrayBuffersBytes: number;
  /** v8.getHeapStatistics().malloced_memory: memory V8 allocated outside its heap. */
  readonly mallocedBytes: number;
  /** Entries in the o200k tokenizer's merge cache (absent when the probe could not read it). */
  readonly tokenizerMergeCacheEntries?: number;
}

/** A request to the preloaded probe (soak-memory-probe.mjs). */
type SoakProbeRequest = { readonly type: 'memory' } | { readonly type: 'snapshot'; readonly path: string };

/** The probe's answer. */
type SoakProbeReply =
  | { readonly type: 'memory'; readonly memory: SoakMemorySample }
  | { readonly type: 'snapshot'; readonly path?: string; readonly error?: string };

/** A running soak gateway. */
export interface SoakGateway {
  readonly pid: number;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** The last 64 KiB of its stdout and stderr. */
  outputTail(): string;
  /** The process's memory now. @throws Error when it does not answer within 10 s or has exited */
  memory(): Promise<SoakMemorySample>;
  /** Writes a V8 heap snapshot to `path` (blocks the gateway meanwhile). @throws Error when it fails */
  heapSnapshot(path: string): Promise<string>;
  /** SIGTERM, then SIGKILL after 15 s; resolves once it exited. */
  stop(): Promise<void>;
}

function ask(child: ChildProcess, message: SoakProbeRequest, timeoutMs: number): Promise<SoakProbeReply> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.off('message', onMessage);
      reject(new Error(`soak gateway did not answer ${message.type} within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (reply: SoakProbeReply): void => {
      if (reply.type !== message.type) return;
      clearTimeout(timer);
      child.off('message', onMessage);
      resolve(reply);
    };
    child.on('message', onMessage);
    if (!child.connected) {
      clearTimeout(timer);
      child.off('message', onMessage);
      reject(new Error('soak gateway has exited'));
      return;
    }
    child.send(message);
  });
}

/**
 * Spawns the server with `env` (merged over this process's without its engine URLs and
 * TOLLGATE_CONSUMERS) and waits for its
 * "Tollgate listening" log line (LOG_LEVEL info).
 * @throws Error with its output when it exits or stays silent for `timeoutMs` ms
 */
export async function spawnSoakGateway(env: Record<string, string>, timeoutMs = 90_000): Promise<SoakGateway> {
  const childEnv: NodeJS.ProcessEnv = { ...withoutEngineVariables(process.env), LOG_LEVEL: 'info', ...env };
  const child = spawn(process.execPath, nodeArgsFor('tollgate-server', activeBenchRuntime(), [PROBE]), {
    cwd: REPO_ROOT,
    env: serverChildEnvironment(childEnv),
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let output = '';
  const onData = (chunk: Buffer): void => {
    output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL_CHARS);
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`soak gateway did not listen within ${timeoutMs} ms:\n${output}`)),
      timeoutMs,
    );
    const check = (): void => {
      const address = listeningAddressIn(output);
      if (!address) return;
      clearTimeout(timer);
      child.stdout?.off('data', check);
      resolve(address);
    };
    child.stdout?.on('data', check);
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`soak gateway exited (code ${String(code)}, signal ${String(signal)}):\n${output}`));
    });
  });
  return {
    pid: child.pid ?? -1,
    origin,
    outputTail: () => output,
    memory: async () => {
      const reply = await ask(child, { type: 'memory' }, 10_000);
      if (reply.type !== 'memory') throw new Error('soak gateway answered the wrong message');
      return { ...reply.memory, rssBytes: readProcessUsage(child.pid ?? -1).rssBytes };
    },
    heapSnapshot: async (path) => {
      const reply = await ask(child, { type: 'snapshot', path }, 300_000);
      if (reply.type !== 'snapshot' || !reply.path)
        throw new Error(
          `heap snapshot failed: ${reply.type === 'snapshot' ? (reply.error ?? 'no path') : 'wrong answer'}`,
        );
      return reply.path;
    },
    stop: () => stopChildProcess(child, 15_000),
  };
}
