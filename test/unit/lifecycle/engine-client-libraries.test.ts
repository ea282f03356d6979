/**
 * The engine client libraries (kafkajs, ioredis, @clickhouse/client) load on first use: a process
 * that opens the embedded adapters and builds the gateway app never loads them, and one that opens a
 * production adapter loads exactly the library that adapter needs.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-engine-libraries-'));

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

/** Runs `body` in a child process after importing open-adapters.ts and app.ts; returns the engine packages then loaded. */
function enginePackagesLoadedAfter(body: string): string[] {
  const script = `
    import { createRequire } from 'node:module';
    const adapters = await import(${JSON.stringify(ROOT + 'infra/open-adapters.ts')});
    await import(${JSON.stringify(ROOT + 'gateway/app.ts')});
    ${body}
    const loaded = Object.keys(createRequire(import.meta.url).cache)
      .map((path) => /node_modules\\/(kafkajs|ioredis|@clickhouse\\/client)\\//.exec(path)?.[1])
      .filter(Boolean);
    console.log(JSON.stringify([...new Set(loaded)].sort()));
    process.exit(0);
  `;
  const out = execFileSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return JSON.parse(out.trim().split('\n').pop()!) as string[];
}

describe('engine client libraries', () => {
  it('are not loaded by a process using the embedded adapters', () => {
    const loaded = enginePackagesLoadedAfter(`
      const settings = adapters.engineSettingsFromEnv({ TOLLGATE_DATA_DIR: ${JSON.stringify(dataDir)} });
      const log = adapters.openEventLog(settings);
      const state = adapters.openStateStore(settings);
      adapters.openRateLimiter(settings);
      adapters.openSessionStore(settings);
      await log.close();
      await state.close?.();
    `);
    expect(loaded).toEqual([]);
  }, 60_000);

  it('load the one library an opened production adapter needs', () => {
    // The limiter connects in the background; an address nothing listens on only makes it retry.
    const loaded = enginePackagesLoadedAfter(`
      adapters.openRateLimiter({ dataDir: ${JSON.stringify(dataDir)}, redisUrl: 'redis://127.0.0.1:1' });
    `);
    expect(loaded).toEqual(['ioredis']);
  }, 60_000);
});
