/**
 * The process logger's default destination: the lines of one turn of the event loop go out in one
 * write at its end, a lone line is never held, pino's flush writes at once, and a process that
 * exits writes every pending line (and those logged after, from later `exit` listeners).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loopTurnLogDestination } from '../../../infra/logging/loop-turn-log-destination.ts';
import { createProcessLogger } from '../../../infra/logging/process-logger.ts';

const ROOT = resolve(import.meta.dirname, '../../..');
const nextTurn = (): Promise<void> => new Promise((done) => setImmediate(done));

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A log file in a fresh temporary directory: its descriptor and a reader of its text. */
function logFile(): { fd: number; text: () => string } {
  dir = mkdtempSync(join(tmpdir(), 'tollgate-log-'));
  const path = join(dir, 'out.log');
  const fd = openSync(path, 'w');
  return { fd, text: () => readFileSync(path, 'utf8') };
}

/** The process logger, JSON lines, through a loop-turn destination on `fd`. */
function jsonLogger(fd: number): ReturnType<typeof createProcessLogger> {
  return createProcessLogger({
    name: 'tollgate-test',
    level: 'info',
    format: 'json',
    destination: loopTurnLogDestination(fd),
  });
}

describe('loopTurnLogDestination', () => {
  it('writes the lines of one turn together once the turn ends, in order', async () => {
    const file = logFile();
    const logger = jsonLogger(file.fd);
    logger.info({ n: 1 }, 'request completed');
    logger.info({ n: 2 }, 'request completed');
    logger.warn({ n: 3 }, 'slow upstream');
    expect(file.text()).toBe('');
    await nextTurn();
    const lines = file
      .text()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { n: number; msg: string });
    expect(lines.map((line) => [line.n, line.msg])).toEqual([
      [1, 'request completed'],
      [2, 'request completed'],
      [3, 'slow upstream'],
    ]);
    logger.info({ n: 4 }, 'next turn');
    await nextTurn();
    expect(file.text().trimEnd().split('\n')).toHaveLength(4);
    closeSync(file.fd);
  });

  it("writes at once on pino's flush and calls its callback", () => {
    const file = logFile();
    const logger = jsonLogger(file.fd);
    logger.info('before the flush');
    let called = false;
    logger.flush(() => {
      called = true;
    });
    expect(called).toBe(true);
    expect(file.text()).toContain('"msg":"before the flush"');
    closeSync(file.fd);
  });

  it('writes every pending line when the process exits in the same turn, and lines logged from later exit listeners', () => {
    const script = `
      import { createProcessLogger } from './infra/logging/process-logger.ts';
      const logger = createProcessLogger({ name: 'tollgate-test', level: 'info', format: 'json' });
      process.on('exit', () => logger.info('logged while exiting'));
      for (let n = 0; n < 500; n += 1) logger.info({ n }, 'request completed');
      process.exit(3);
    `;
    let stdout = '';
    let status: number | null = null;
    try {
      execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, TOLLGATE_LOG_FORMAT: 'json' },
      });
    } catch (error) {
      const failure = error as { status: number | null; stdout: string };
      status = failure.status;
      stdout = failure.stdout;
    }
    expect(status).toBe(3);
    const messages = stdout
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { n?: number; msg: string });
    expect(messages).toHaveLength(501);
    expect(messages.slice(0, 500).map((line) => line.n)).toEqual([...Array(500).keys()]);
    expect(messages[500]?.msg).toBe('logged while exiting');
  }, 30_000);

  it('writes a lone line of a process that stays up without waiting for more', async () => {
    const script = `
      import { createProcessLogger } from './infra/logging/process-logger.ts';
      const logger = createProcessLogger({ name: 'tollgate-test', level: 'info', format: 'json' });
      logger.info('listening');
      setTimeout(() => {}, 60_000);
    `;
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const line = await new Promise<string>((done, fail) => {
        let text = '';
        child.stdout.on('data', (chunk: Buffer) => {
          text += chunk.toString('utf8');
          if (text.includes('\n')) done(text);
        });
        child.once('exit', (code) => fail(new Error(`exited with ${String(code)} before logging`)));
      });
      expect(JSON.parse(line) as { msg: string }).toMatchObject({ msg: 'listening' });
    } finally {
      child.kill('SIGKILL');
    }
  }, 30_000);
});
