/**
 * Starts a Redis Cluster of plain `redis-server` processes (Debian's `redis-server` package, which
 * brings `redis-cli`) on free loopback ports in a temporary directory: every node with
 * `--cluster-enabled yes`, then `redis-cli --cluster create … --cluster-replicas 0 --cluster-yes`
 * assigns the 16 384 slots (https://redis.io/docs/latest/operate/oss_and_stack/management/scaling/,
 * "Create a Redis Cluster"). Masters only, no persistence: for tests and local trials. `stop()`
 * ends exactly the processes it started, by PID, and deletes the directory.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, openSync, closeSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freeLoopbackPorts } from '../free-loopback-ports.ts';
import { ephemeralRedisServerArgs } from '../redis-server-args.ts';

/** The install line for the binaries this module needs (Debian/Ubuntu). */
export const REDIS_CLUSTER_INSTALL_HINT = 'apt-get install -y redis-server';

/** Options of startRedisCluster. */
export interface RedisClusterStartOptions {
  /** Master nodes (default 3, the least Redis Cluster accepts). */
  readonly masters?: number;
  /** Longest wait for the nodes to answer and the cluster to report `cluster_state:ok`, ms (default 30 000). */
  readonly readyTimeoutMs?: number;
}

/** A running cluster. */
export interface RunningRedisCluster {
  /** The nodes' client addresses, e.g. `[{ host: '127.0.0.1', port: 41234 }, …]`. */
  readonly nodes: ReadonlyArray<{ readonly host: string; readonly port: number }>;
  /** The same as REDIS_CLUSTER_NODES expects: `127.0.0.1:41234,127.0.0.1:41240,…`. */
  readonly seedNodes: string;
  /** The PIDs of the redis-server processes. */
  readonly pids: ReadonlyArray<number>;
  /** The temporary directory holding the nodes' files and logs. */
  readonly dir: string;
  /** Stops every node (SIGTERM, SIGKILL after 5 000 ms) and deletes the directory. */
  stop(): Promise<void>;
}

/** Raised when `redis-server` or `redis-cli` is not on PATH. */
export class RedisClusterToolsMissingError extends Error {}

const HOST = '127.0.0.1';

/** True when `binary` runs (`--version` exits 0). */
function runs(binary: string): boolean {
  return spawnSync(binary, ['--version'], { stdio: 'ignore' }).status === 0;
}

/** @throws RedisClusterToolsMissingError naming the install line when a binary is missing */
export function assertRedisClusterTools(): void {
  const missing = ['redis-server', 'redis-cli'].filter((binary) => !runs(binary));
  if (missing.length > 0)
    throw new RedisClusterToolsMissingError(
      `${missing.join(' and ')} not found on PATH: ${REDIS_CLUSTER_INSTALL_HINT}`,
    );
}

/** `redis-cli -p <port> <args…>` → its stdout; '' when the node does not answer. */
function redisCli(port: number, ...args: string[]): string {
  const result = spawnSync('redis-cli', ['-h', HOST, '-p', String(port), ...args], { encoding: 'utf8', timeout: 5000 });
  return result.status === 0 ? result.stdout : '';
}

/** Polls `check` every 100 ms until it holds. @throws Error saying `what` after `timeoutMs` */
async function waitFor(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Redis Cluster: ${what} within ${timeoutMs} ms`);
    await sleep(100);
  }
}

/** Starts one node: client port `port`, cluster bus port `busPort`, files under `dir/<port>`. */
function startNode(dir: string, port: number, busPort: number): ChildProcess {
  const nodeDir = join(dir, String(port));
  mkdirSync(nodeDir);
  const log = openSync(join(nodeDir, 'redis.log'), 'a');
  const args = [
    ...ephemeralRedisServerArgs(HOST, port, nodeDir),
    '--cluster-enabled',
    'yes',
    '--cluster-port',
    String(busPort),
    '--cluster-config-file',
    'nodes.conf',
  ];
  const child = spawn('redis-server', args, { stdio: ['ignore', log, log] });
  closeSync(log);
  return child;
}

/** SIGTERM to every child still running, SIGKILL to those alive after 5 000 ms. */
async function stopNodes(children: ReadonlyArray<ChildProcess>): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(child.pid, 'SIGTERM');
      const timer = setTimeout(
        () => child.pid !== undefined && child.exitCode === null && process.kill(child.pid, 'SIGKILL'),
        5000,
      );
      await exited;
      clearTimeout(timer);
    }),
  );
}

/**
 * Starts the cluster and resolves once every node reports `cluster_state:ok` and knows every other.
 * @throws RedisClusterToolsMissingError when redis-server or redis-cli is missing
 * @throws Error when a node does not start or the cluster is not ready within `readyTimeoutMs` (the nodes started are stopped)
 */
export async function startRedisCluster(options: RedisClusterStartOptions = {}): Promise<RunningRedisCluster> {
  assertRedisClusterTools();
  const masters = options.masters ?? 3;
  const timeoutMs = options.readyTimeoutMs ?? 30_000;
  if (!Number.isInteger(masters) || masters < 3)
    throw new RangeError(`a Redis Cluster needs at least 3 masters, got ${masters}`);
  const dir = mkdtempSync(join(tmpdir(), 'tollgate-redis-cluster-'));
  const ports = await freeLoopbackPorts(2 * masters);
  const clientPorts = ports.slice(0, masters);
  const children = clientPorts.map((port, i) => startNode(dir, port, ports[masters + i] as number));
  const stop = async (): Promise<void> => {
    await stopNodes(children);
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    for (const [i, port] of clientPorts.entries()) {
      const child = children[i] as ChildProcess;
      const log = join(dir, String(port), 'redis.log');
      await waitFor(
        () => {
          if (child.exitCode !== null || child.signalCode !== null)
            throw new Error(`Redis Cluster: the node on port ${port} exited (log: ${log})`);
          return redisCli(port, 'PING').trim() === 'PONG';
        },
        timeoutMs,
        `the node on port ${port} did not answer PING (log: ${log})`,
      );
    }
    const create = spawnSync(
      'redis-cli',
      [
        '--cluster',
        'create',
        ...clientPorts.map((port) => `${HOST}:${port}`),
        '--cluster-replicas',
        '0',
        '--cluster-yes',
      ],
      { encoding: 'utf8', timeout: timeoutMs },
    );
    if (create.status !== 0)
      throw new Error(
        `Redis Cluster: redis-cli --cluster create failed: ${(create.stderr || create.stdout).trim().split('\n').slice(-3).join(' ')}`,
      );
    for (const port of clientPorts) {
      await waitFor(
        () => {
          const info = redisCli(port, 'CLUSTER', 'INFO');
          return info.includes('cluster_state:ok') && info.includes(`cluster_known_nodes:${masters}`);
        },
        timeoutMs,
        `the node on port ${port} did not report cluster_state:ok`,
      );
    }
  } catch (error) {
    await stop();
    throw error;
  }
  const nodes = clientPorts.map((port) => ({ host: HOST, port }));
  return {
    nodes,
    seedNodes: nodes.map((node) => `${node.host}:${node.port}`).join(','),
    pids: children.map((child) => child.pid as number),
    dir,
    stop,
  };
}
