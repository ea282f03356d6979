/**
 * Starts the consumers as their own process for the pipeline case, exactly as deployed:
 * Node on the compiled infra/processes/tollgate-consumers (the bench build; `node --import tsx` on the
 * source on the tsx runtime, bench-runtime.ts) from the repository root with the run's environment.
 * Ready once it logs `consumers running` (migrations applied, subscriptions started). Its
 * warn/error log lines (pino JSON on stdout: TOLLGATE_LOG_FORMAT=json) and anything on its stderr
 * are passed to this process's stderr. Killed by PID if this process exits.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { activeBenchRuntime, nodeArgsFor, serverChildEnvironment } from './bench-runtime.ts';
import { readProcessUsage } from './read-process-usage.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A running consumers process. */
export interface BenchConsumersHandle {
  readonly pid: number;
  /** When the process was spawned, ms since epoch. */
  readonly spawnedAtMs: number;
  /** When its `consumers running` line was read here, ms since epoch. */
  readonly runningAtMs: number;
  /** CPU time (user + system) the process used so far, µs, at 10 ms resolution; undefined where /proc is not available. */
  cpuMicros(): number | undefined;
  /** SIGTERM (the process finishes in-flight batches), SIGKILL after `graceMs`; resolves once it exited. */
  stop(graceMs?: number): Promise<void>;
}

/** A pino line: level 40 warn, 50 error, 60 fatal (https://getpino.io/#/docs/api?id=levels). */
interface LogLine {
  readonly level?: number;
  readonly msg?: string;
}

/** pino's level number for `warn`. */
const WARN_LEVEL = 40;

function parseLine(line: string): LogLine {
  try {
    return JSON.parse(line) as LogLine;
  } catch {
    return { level: 50, msg: line };
  }
}

/**
 * Spawns the consumers with `env` and waits (default 60 s) for their `consumers running` line.
 * @throws Error if the process exits or stays silent before it is ready (its last lines included).
 */
export async function spawnBenchConsumers(env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<BenchConsumersHandle> {
  const spawnedAtMs = Date.now();
  const child = spawn(process.execPath, nodeArgsFor('tollgate-consumers', activeBenchRuntime()), {
    cwd: REPO_ROOT,
    env: serverChildEnvironment({ ...env, TOLLGATE_LOG_FORMAT: 'json' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const pid = child.pid ?? -1;
  const kill = (): void => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  };
  process.on('exit', kill);
  const exited = new Promise<void>((resolve) => child.once('exit', () => (process.off('exit', kill), resolve())));
  const recent: string[] = [];
  let buffered = '';
  const ready = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () =>
        reject(new Error(`consumers did not report ready within ${timeoutMs} ms; last lines:\n${recent.join('\n')}`)),
      timeoutMs,
    );
    child.once(
      'exit',
      (code, signal) => (
        clearTimeout(timer),
        reject(
          new Error(
            `consumers exited before ready (code ${String(code)}, signal ${String(signal)}); last lines:\n${recent.join('\n')}`,
          ),
        )
      ),
    );
    child.stderr?.on('data', (chunk: Buffer) => process.stderr.write(`consumers: ${chunk.toString('utf8')}`));
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      let newline: number;
      while ((newline = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        recent.push(line);
        if (recent.length > 20) recent.shift();
        const parsed = parseLine(line);
        if (parsed.msg === 'consumers running') {
          clearTimeout(timer);
          resolve(Date.now());
        } else if ((parsed.level ?? 0) >= WARN_LEVEL) process.stderr.write(`consumers: ${line}\n`);
      }
    });
  });
  let runningAtMs: number;
  try {
    runningAtMs = await ready;
  } catch (error) {
    kill();
    throw error;
  }
  return {
    pid,
    spawnedAtMs,
    runningAtMs,
    cpuMicros: () => {
      try {
        return readProcessUsage(pid).cpuMicros;
      } catch {
        return undefined; // exited
      }
    },
    stop: async (graceMs = 10_000) => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(kill, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}
