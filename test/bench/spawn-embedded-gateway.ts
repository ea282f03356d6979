/**
 * Starts Tollgate as `npm start` ships it — Node on the compiled infra/processes/tollgate-server
 * (the bench build; `node --import tsx` on the source on the tsx runtime, bench-runtime.ts):
 * gateway, in-process consumers, embedded file event log, memory state, chdb, one process with
 * worker threads — for the load benchmark, on 127.0.0.1 port 0 with the bench config
 * (bench-gateway-config.ts) in a fresh temporary data directory. Engine URLs (KAFKA_BROKERS,
 * REDIS_URL, CLICKHOUSE_URL) and TOLLGATE_CONSUMERS are removed from its environment so it always
 * runs embedded. Its stdout and stderr (LOG_LEVEL info) go to a file in that directory, so the
 * load generator spends no CPU reading them.
 */
import { spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CHDB_IDLE_EXIT_MS } from '../../infra/analytics/chdb/chdb-store.ts';
import { BENCH_ADMIN_TOKEN } from './bench-gateway-config.ts';
import { activeBenchRuntime, nodeArgsFor, serverChildEnvironment, type BenchRuntime } from './bench-runtime.ts';
import { readProcessUsage } from './read-process-usage.ts';
import { trackBenchChild } from './spawn-bench-server.ts';
import { listeningAddressIn, stopChildProcess, withoutEngineVariables } from '../support/spawn-gateway.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A running embedded Tollgate. */
export interface EmbeddedGateway {
  readonly pid: number;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** Its temporary directory (config file, output log, data directory); removed by stop(). */
  readonly dataDir: string;
  /** The last `chars` characters of its output (default 4 000). */
  outputTail(chars?: number): string;
  /** SIGTERM, then SIGKILL after 15 s; resolves once it exited, then removes its data directory. */
  stop(): Promise<void>;
  /**
   * Resolves once its consumers caught up with every event written so far (embeddedConsumersCaughtUp),
   * then its process tree went quiet (waitForQuietTree), its analytics engine's process included
   * while it runs (ClickHouse's merges of what they inserted). So work deferred by batching, by
   * their lower priority or by the engine is counted with the load that caused it, and not with the
   * next server's case on the same CPU. The engine keeps running between cases, as it does between
   * the requests of a server in use (it stops after DEFAULT_CHDB_IDLE_EXIT_MS without a query).
   * @throws Error when they have not caught up within `timeoutMs` (default 600 s)
   */
  settled(timeoutMs?: number): Promise<void>;
  /**
   * Resolves once its analytics engine's process stopped after its idle time and was reaped
   * (waitForChildrenToEnd, at most DEFAULT_CHDB_IDLE_EXIT_MS + 120 s), then its process tree went
   * quiet: the server as it idles, for its idle figures. Never throws.
   */
  engineStopped(): Promise<void>;
}

/** A process tree is quiet when it used at most this share of a core over QUIET_WINDOW_MS (idle is under 1 %). */
const QUIET_CPU_SHARE = 0.05;
const QUIET_WINDOW_MS = 500;

/**
 * Waits until process `pid` has no child process left (the embedded analytics engine stops after
 * DEFAULT_CHDB_IDLE_EXIT_MS without a query), or `timeoutMs` passed; never throws.
 */
async function waitForChildrenToEnd(pid: number, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  try {
    while (readProcessUsage(pid).processes > 1 && Date.now() < until) await sleep(100);
  } catch {
    // The process is gone: nothing left to wait for.
  }
}

/**
 * Waits until process `pid` and its children used at most QUIET_CPU_SHARE of a core over a
 * QUIET_WINDOW_MS window, or `timeoutMs` (default 60 s) passed; never throws (a tree that does not
 * quiet down leaves its work to the next case's figures, as before this wait).
 */
async function waitForQuietTree(pid: number, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  try {
    let before = readProcessUsage(pid).cpuMicros;
    while (Date.now() < until) {
      await sleep(QUIET_WINDOW_MS);
      const now = readProcessUsage(pid).cpuMicros;
      if (now - before <= QUIET_CPU_SHARE * QUIET_WINDOW_MS * 1000) return;
      before = now;
    }
  } catch {
    // The process is gone: nothing left to wait for.
  }
}

/**
 * The consumer groups of an embedded data directory (`<dataDir>/offsets/<group>/<topic>.offset`)
 * that have not committed up to the end of the topic they read (`<dataDir>/events/<topic>.log`,
 * whose size is the next record's position), as `group/topic committed/size` (bytes); undefined
 * when no group has committed yet.
 */
function laggingGroups(dataDir: string): string[] | undefined {
  const offsetsDir = join(dataDir, 'offsets');
  if (!existsSync(offsetsDir)) return undefined;
  const lagging: string[] = [];
  for (const group of readdirSync(offsetsDir))
    for (const file of readdirSync(join(offsetsDir, group))) {
      if (!file.endsWith('.offset')) continue;
      const topic = file.slice(0, -'.offset'.length);
      const log = join(dataDir, 'events', `${topic}.log`);
      const committed = Number(readFileSync(join(offsetsDir, group, file), 'utf8'));
      const size = existsSync(log) ? statSync(log).size : 0;
      if (committed < size) lagging.push(`${group}/${topic} ${committed}/${size}`);
    }
  return lagging;
}

/**
 * Whether every consumer group of an embedded data directory has committed up to the end of the
 * topic it reads (laggingGroups), i.e. every event written is in ClickHouse and the state store.
 */
export function embeddedConsumersCaughtUp(dataDir: string): boolean {
  return laggingGroups(dataDir)?.length === 0;
}

/** The lagging groups of laggingGroups as one line of text. */
function lagOf(dataDir: string): string {
  return laggingGroups(dataDir)?.join(', ') ?? 'no offsets committed yet';
}

/** The last 40 lines of the server's output at level warn or above (pino levels 40–60), or the output's tail when it has none. */
function warningsIn(outputFile: string): string {
  let text = '';
  try {
    text = readFileSync(outputFile, 'utf8');
  } catch {
    return '';
  }
  const warnings = text
    .split('\n')
    .filter((line) => /"level":(40|50|60)\b/.test(line) || (line !== '' && !line.startsWith('{')));
  return (warnings.length > 0 ? warnings.slice(-40).join('\n') : text.slice(-4000)).slice(-8000);
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Writes `config` (a config file document) into a new temporary data directory, spawns the server
 * there on `runtime` (default: the bench's; under `taskset -c <cpuList>` when given) and waits for
 * its "Tollgate listening" line (its output file is read every 20 ms).
 * @throws Error with the tail of its output when it exits or does not listen within `timeoutMs` ms
 */
export async function spawnEmbeddedGateway(
  config: Record<string, unknown>,
  cpuList?: string,
  timeoutMs = 120_000,
  runtime: BenchRuntime = activeBenchRuntime(),
): Promise<EmbeddedGateway> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-embedded-'));
  const configFile = join(dataDir, 'tollgate-config.json');
  const outputFile = join(dataDir, 'server-output.log');
  writeFileSync(configFile, JSON.stringify(config));
  const env: NodeJS.ProcessEnv = {
    ...withoutEngineVariables(process.env),
    PORT: '0',
    HOST: '127.0.0.1',
    TOLLGATE_CONFIG: configFile,
    TOLLGATE_DATA_DIR: join(dataDir, 'data'),
    LOG_LEVEL: 'info',
    TOLLGATE_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
  };
  const output = openSync(outputFile, 'a');
  const nodeArgs = nodeArgsFor('tollgate-server', runtime);
  const [command, args] =
    cpuList === undefined ? [process.execPath, nodeArgs] : ['taskset', ['-c', cpuList, process.execPath, ...nodeArgs]];
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: serverChildEnvironment(env),
    stdio: ['ignore', output, output],
  });
  closeSync(output);
  trackBenchChild(child);
  const outputTail = (chars = 4000): string => {
    try {
      return readFileSync(outputFile, 'utf8').slice(-chars);
    } catch {
      return '';
    }
  };
  const stop = async (): Promise<void> => {
    await stopChildProcess(child, 15_000);
    rmSync(dataDir, { recursive: true, force: true });
  };
  // Its consumers have waited minutes for the engine while the kernel was slow to reap a stopped one (README, "Tests and benchmarks").
  const settled = async (settleTimeoutMs = 600_000): Promise<void> => {
    const until = Date.now() + settleTimeoutMs;
    while (!embeddedConsumersCaughtUp(join(dataDir, 'data'))) {
      if (Date.now() > until)
        throw new Error(
          `embedded Tollgate: its consumers did not catch up within ${settleTimeoutMs} ms (${lagOf(join(dataDir, 'data'))}); its last warnings and errors:\n${warningsIn(outputFile)}`,
        );
      await sleep(50);
    }
    await waitForQuietTree(child.pid ?? -1);
  };
  const engineStopped = async (): Promise<void> => {
    await waitForChildrenToEnd(child.pid ?? -1, DEFAULT_CHDB_IDLE_EXIT_MS + 120_000);
    await waitForQuietTree(child.pid ?? -1);
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const origin = listeningAddressIn(readFileSync(outputFile, 'utf8'));
    if (origin) return { pid: child.pid ?? -1, origin, dataDir, outputTail, stop, settled, engineStopped };
    if (child.exitCode !== null || child.signalCode !== null || Date.now() > deadline) {
      const tail = outputTail();
      await stop();
      throw new Error(
        `embedded Tollgate ${child.exitCode === null && child.signalCode === null ? `did not listen within ${timeoutMs} ms` : `exited (code ${String(child.exitCode)}, signal ${String(child.signalCode)})`}:\n${tail}`,
      );
    }
    await sleep(20);
  }
}
