/**
 * npm start's build step (infra/build/ensure-dist.mjs), on a real compile of the repository into
 * a build directory of its own: two starts at once on a tree never built compile it once — the
 * other waits for the lock and finds it fresh —, a lock left by a dead process and the temporary
 * directory of a killed build are taken over and removed, and the result is a complete build
 * whose stamp matches the sources.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { isDistFresh } from '../../../infra/build/ensure-dist.mjs';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const ENSURE_DIST = pathToFileURL(join(ROOT, 'infra', 'build', 'ensure-dist.mjs')).href;

mkdirSync(join(ROOT, '.tollgate'), { recursive: true });
const outDir = mkdtempSync(join(ROOT, '.tollgate', 'ensure-dist-test-'));
const siblingPrefix = join(dirname(outDir), `.${basename(outDir)}`);

afterAll(() => {
  rmSync(outDir, { recursive: true, force: true });
  for (const name of readdirSync(dirname(outDir)))
    if (name.startsWith(`.${basename(outDir)}`)) rmSync(join(dirname(outDir), name), { recursive: true, force: true });
});

/** Runs ensureDist({ outDir }) in a separate Node process; resolves with its result and output. */
function ensureInChild(): Promise<{ code: number | null; result?: { built: boolean }; output: string }> {
  const script = `const { ensureDist } = await import(${JSON.stringify(ENSURE_DIST)});
process.stdout.write(JSON.stringify(await ensureDist({ outDir: ${JSON.stringify(outDir)} })));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) =>
    child.once('exit', (code) => {
      let result: { built: boolean } | undefined;
      try {
        result = JSON.parse(stdout) as { built: boolean };
      } catch {
        result = undefined;
      }
      resolve({ code, ...(result ? { result } : {}), output: stderr });
    }),
  );
}

describe('ensure-dist: the build step of npm start', () => {
  it('builds once for two concurrent starts, taking over a dead lock and removing a killed build', async () => {
    const deadPid = spawnSync(process.execPath, ['-e', '']).pid;
    expect(deadPid).toBeGreaterThan(0);
    writeFileSync(`${siblingPrefix}.lock`, String(deadPid));
    const abandoned = `${siblingPrefix}.building-${deadPid}-abandoned`;
    mkdirSync(join(abandoned, 'gateway'), { recursive: true });
    expect(isDistFresh({ outDir }).fresh).toBe(false);

    const [first, second] = await Promise.all([ensureInChild(), ensureInChild()]);

    expect([first.code, second.code], `${first.output}\n${second.output}`).toEqual([0, 0]);
    expect([first.result?.built, second.result?.built].filter(Boolean)).toHaveLength(1);
    expect(`${first.output}${second.output}`.match(/compiling to /g)).toHaveLength(1);
    for (const file of [
      'infra/processes/tollgate-server.js',
      'infra/processes/consumer-thread-worker.js',
      '.source-stamp.json',
    ])
      expect(existsSync(join(outDir, file)), file).toBe(true);
    expect(existsSync(abandoned)).toBe(false);
    expect(existsSync(`${siblingPrefix}.lock`)).toBe(false);
    expect(readdirSync(dirname(outDir)).filter((name) => name.startsWith(`.${basename(outDir)}.`))).toEqual([]);
    expect(isDistFresh({ outDir }).fresh).toBe(true);

    const again = await ensureInChild();
    expect(again.result).toMatchObject({ built: false });
    expect(again.output).toBe('');
  }, 240_000);
});
