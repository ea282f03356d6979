/**
 * Runs the real entry point, `infra/processes/tollgate-server.ts`, in a child process — in demo mode (no config file:
 * the mock channel and the demo key) or with `TOLLGATE_CONFIG` — and waits for its address: the demo's "running at"
 * banner, the "Tollgate listening" log line (printed at LOG_LEVEL info and below), or the console-admin notice a
 * first start on a fresh data dir prints.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Variables that take a server off its embedded engines: engine URLs, and where the consumers run. */
export const ENGINE_VARIABLES = ['KAFKA_BROKERS', 'REDIS_URL', 'CLICKHOUSE_URL', 'TOLLGATE_CONSUMERS'] as const;

/** `env` without ENGINE_VARIABLES (nor `alsoRemove`): a server started with it runs embedded. */
export function withoutEngineVariables(
  env: NodeJS.ProcessEnv,
  alsoRemove: ReadonlyArray<string> = [],
): NodeJS.ProcessEnv {
  const embedded = { ...env };
  for (const name of [...ENGINE_VARIABLES, ...alsoRemove]) delete embedded[name];
  return embedded;
}

/** The address in the server's "Tollgate listening" log line (LOG_LEVEL info), if `output` holds it. */
export function listeningAddressIn(output: string): string | undefined {
  return /"address":"(http:\/\/[\d.]+:\d+)".*"msg":"Tollgate listening"/.exec(output)?.[1];
}

/** SIGTERM to `child`, then SIGKILL after `graceMs`; resolves once it exited (at once if it had). */
export async function stopChildProcess(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(timer);
}

/** A running gateway process. */
export interface GatewayProcess {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** SIGTERM, then SIGKILL after 10 s; resolves once it exited. */
  stop(): Promise<void>;
  /** Sends `signal` to the process (e.g. SIGTERM to watch its drain). */
  kill(signal: NodeJS.Signals): void;
  /** Resolves when the process exited: its exit code, or the signal that ended it. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Spawns `infra/processes/tollgate-server.ts` with exactly `env` (set PORT 0 and HOST for an ephemeral loopback port;
 * outside demo mode set LOG_LEVEL to info or lower, so that the address is printed).
 * @throws Error (with the process output) when no address came within `timeoutMs` (the process is killed) or it exited first.
 */
export async function spawnGateway(env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<GatewayProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'infra/processes/tollgate-server.ts'], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // no address: nothing will stop it later
      reject(new Error(`gateway printed no address within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const address =
        /running at (http:\/\/[\d.]+:\d+)/.exec(output)?.[1] ??
        listeningAddressIn(output) ??
        /Sign in at (http:\/\/[\d.]+:\d+)\/console\//.exec(output)?.[1];
      if (address) {
        clearTimeout(timer);
        resolve(address);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`gateway exited with ${code}:\n${output}`));
    });
  });
  return {
    origin,
    output: () => output,
    stop: () => stopChildProcess(child, 10_000),
    kill: (signal) => void child.kill(signal),
    exited,
  };
}
