/**
 * Runs one install command of a peer gateway (`npm install --prefix …`, `python3 -m venv …`,
 * `pip install …`) as a child process with its output appended to a log file, and a time limit.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { trackBenchChild } from '../spawn-bench-server.ts';

/** What to run. */
export interface InstallCommand {
  readonly command: string;
  readonly args: ReadonlyArray<string>;
  readonly cwd: string;
  /** The child's whole environment. */
  readonly env: NodeJS.ProcessEnv;
  /** File the command's stdout and stderr are appended to. */
  readonly logFile: string;
  /** After this many ms the command is killed (SIGTERM, then SIGKILL 5 s later) and the run fails. */
  readonly timeoutMs: number;
}

/** The last non-blank line of `text` (a command's output) that looks like an error, else its last non-blank line; at most 300 characters. */
export function lastErrorLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  const errorLine = [...lines]
    .reverse()
    .find((l) => /error|not found|no matching|could not|failed|E[A-Z]{3,}/i.test(l));
  return (errorLine ?? lines.at(-1) ?? '(no output)').slice(0, 300);
}

function readLog(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/**
 * Runs `command` to its end. The child is tracked by spawn-bench-server.ts, so the bench's exit
 * handlers stop it by PID if the bench is interrupted meanwhile.
 * @throws Error `<command> exited with code N: <last error line of its output>`, or naming the timeout or the spawn error
 */
export async function runInstallCommand(options: InstallCommand): Promise<void> {
  const output = openSync(options.logFile, 'a');
  const child = spawn(options.command, [...options.args], {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', output, output],
  });
  closeSync(output);
  trackBenchChild(child);
  const name = [options.command, ...options.args.slice(0, 2)].join(' ');
  await new Promise<void>((resolve, reject) => {
    let timedOut = false;
    let killTimer: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGTERM');
      killTimer = setTimeout(() => child.kill('SIGKILL'), 5000);
    }, options.timeoutMs);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`${name}: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (killTimer) clearTimeout(killTimer);
      if (timedOut) return reject(new Error(`${name} did not finish within ${Math.round(options.timeoutMs / 1000)} s`));
      if (code === 0) return resolve();
      reject(
        new Error(
          `${name} exited with ${code === null ? `signal ${String(signal)}` : `code ${code}`}: ${lastErrorLine(readLog(options.logFile))}`,
        ),
      );
    });
  });
}
