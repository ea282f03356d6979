/**
 * Starts a peer gateway's server as a child process for the load benchmark: on a free loopback
 * port chosen beforehand (the peers take their port as a flag, not port 0), optionally under
 * `taskset -c <cpuList>` like the bench's own servers, its output appended to a log file (the load
 * generator spends no CPU reading it), and ready once an HTTP request to it is answered.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { request } from 'undici';
import { trackBenchChild } from '../spawn-bench-server.ts';
import { stopChildProcess } from '../../support/spawn-gateway.ts';

/** How to start a peer and know it is up. */
export interface PeerProcessOptions {
  /** Shown in errors, e.g. `Portkey 1.15.2`. */
  readonly name: string;
  readonly command: string;
  readonly args: ReadonlyArray<string>;
  readonly cwd: string;
  /** The child's whole environment. */
  readonly env: NodeJS.ProcessEnv;
  /** With a CPU list (e.g. `1`) the child runs under `taskset -c <cpuList>`; taskset execs it, so the PID is the peer's. */
  readonly cpuList?: string;
  /** File its stdout and stderr are appended to. */
  readonly logFile: string;
  /** GET this URL until it answers `readyStatus` (any status when absent). */
  readonly readyUrl: string;
  readonly readyStatus?: number;
  /** ms to wait for readiness. */
  readonly timeoutMs: number;
}

/** A running peer. */
export interface PeerProcess {
  /** PID of the peer's main process (its descendants are read through /proc with it). */
  readonly pid: number;
  /** The last `chars` characters of its output (default 2 000). */
  outputTail(chars?: number): string;
  /** Whether it has exited, and how. */
  exitDescription(): string | undefined;
  /** SIGTERM, then SIGKILL after 10 s; resolves once it exited. */
  stop(): Promise<void>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

async function answers(url: string, status: number | undefined): Promise<boolean> {
  try {
    const answer = await request(url, { headersTimeout: 2000, bodyTimeout: 2000 });
    await answer.body.dump();
    return status === undefined || answer.statusCode === status;
  } catch {
    return false;
  }
}

/**
 * Spawns the peer and polls `readyUrl` every 250 ms. The child is tracked by spawn-bench-server.ts,
 * so killBenchServers stops it by PID on every exit path of the bench.
 * @throws Error with the tail of its output when it exits or is not ready within `timeoutMs` (it is stopped first)
 */
export async function spawnPeerProcess(options: PeerProcessOptions): Promise<PeerProcess> {
  const output = openSync(options.logFile, 'a');
  const [command, args] =
    options.cpuList === undefined
      ? [options.command, [...options.args]]
      : ['taskset', ['-c', options.cpuList, options.command, ...options.args]];
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', output, output] });
  closeSync(output);
  trackBenchChild(child);
  let spawnError: string | undefined;
  child.once('error', (error) => (spawnError = error.message));
  const outputTail = (chars = 2000): string => {
    try {
      return readFileSync(options.logFile, 'utf8').slice(-chars);
    } catch {
      return '';
    }
  };
  const exitDescription = (): string | undefined =>
    spawnError ??
    (child.exitCode !== null
      ? `exited with code ${child.exitCode}`
      : child.signalCode !== null
        ? `exited on ${child.signalCode}`
        : undefined);
  const stop = (): Promise<void> => (spawnError !== undefined ? Promise.resolve() : stopChildProcess(child, 10_000));
  const peer: PeerProcess = { pid: child.pid ?? -1, outputTail, exitDescription, stop };
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if (await answers(options.readyUrl, options.readyStatus)) return peer;
    const exited = exitDescription();
    if (exited !== undefined || Date.now() > deadline) {
      await peer.stop();
      throw new Error(
        `${options.name} ${exited ?? `was not ready within ${Math.round(options.timeoutMs / 1000)} s`}; output ends: ${outputTail(600).replace(/\s+/g, ' ').trim()}`,
      );
    }
    await sleep(250);
  }
}
