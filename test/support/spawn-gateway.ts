/**
 * Runs the real entry point, `infra/processes/tollgate-server.ts`, in a child process — in demo mode (no config file:
 * the mock channel and the demo key) or with `TOLLGATE_CONFIG` — and waits for its address: the demo's "running at"
 * banner, or the "Tollgate listening" log line (printed at LOG_LEVEL info and below).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** A running gateway process. */
export interface GatewayProcess {
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** Everything the process printed so far (stdout and stderr). */
  output(): string;
  /** SIGTERM, then SIGKILL after 10 s; resolves once it exited. */
  stop(): Promise<void>;
}

/**
 * Spawns `infra/processes/tollgate-server.ts` with exactly `env` (set PORT 0 and HOST for an ephemeral loopback port;
 * outside demo mode set LOG_LEVEL to info or lower, so that the address is printed).
 * @throws Error (with the process output) when no address came within `timeoutMs` (the process is killed) or it exited first.
 */
export async function spawnGateway(env: NodeJS.ProcessEnv, timeoutMs = 60_000): Promise<GatewayProcess> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'infra/processes/tollgate-server.ts'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const origin = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // no address: nothing will stop it later
      reject(new Error(`gateway printed no address within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      const match = /running at (http:\/\/[\d.]+:\d+)/.exec(output) ?? /"address":"(http:\/\/[\d.]+:\d+)".*"msg":"Tollgate listening"/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
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
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
