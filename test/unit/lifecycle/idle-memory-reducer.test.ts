/**
 * The idle memory reducer: a process gone quiet after allocating gives its heap back (one
 * compacting collection), a busy one is left alone, and many starts share one reducer. Each case
 * runs in a child process so that its heap is its own.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const REDUCER = JSON.stringify(ROOT + 'gateway/lifecycle/idle-memory-reducer.ts');

/**
 * Runs `body` (an async module body that prints one JSON line last) under tsx; its parsed line.
 * Asynchronous, so that children can run side by side.
 */
async function runChild(body: string): Promise<Record<string, number>> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', body],
    { cwd: ROOT, encoding: 'utf8' },
  );
  return JSON.parse(stdout.trim().split('\n').pop()!) as Record<string, number>;
}

/**
 * Module-body text that fills the old generation with ≈ 80 MB of objects held long enough to be
 * promoted, then drops all but every 100th: garbage spread over sparse pages.
 */
const ALLOCATE = `
  let held = [];
  for (let i = 0; i < 1_000_000; i++) held.push({ index: i, label: 'item ' + i });
  await new Promise((resolve) => setTimeout(resolve, 50));
  globalThis.kept = held.filter((_, i) => i % 100 === 0);
  held = undefined;
`;

describe('idle memory reducer', () => {
  it('collects and compacts the heap once the process is quiet', async () => {
    const result = await runChild(`
      import { getHeapStatistics } from 'node:v8';
      const { startIdleMemoryReducer } = await import(${REDUCER});
      ${ALLOCATE}
      const before = getHeapStatistics();
      const reducer = startIdleMemoryReducer({ checkIntervalMs: 100, quietChecks: 2, growthBytes: 8 * 1024 * 1024 });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      const after = getHeapStatistics();
      reducer.stop();
      console.log(JSON.stringify({ collections: reducer.collections, usedBefore: before.used_heap_size,
        usedAfter: after.used_heap_size, totalBefore: before.total_heap_size, totalAfter: after.total_heap_size }));
    `);
    // One collection, though 1.5 s at 100 ms holds a dozen quiet checks: no growth after it.
    expect(result.collections).toBe(1);
    expect(result.usedAfter).toBeLessThan(result.usedBefore! * 0.6);
    expect(result.totalAfter).toBeLessThan(result.totalBefore! * 0.8);
  }, 30_000);

  it('waits for 10 s of quiet by default: a pause of 4 s between requests is not collected', async () => {
    // The same garbage and the same 4.5 s pause, once with the default and once with one 2 s check:
    // the control shows the pause is long enough for a reducer that does not wait.
    const pause = (options: string) => `
      const { startIdleMemoryReducer } = await import(${REDUCER});
      ${ALLOCATE}
      const reducer = startIdleMemoryReducer(${options});
      await new Promise((resolve) => setTimeout(resolve, 4500));
      reducer.stop();
      console.log(JSON.stringify({ collections: reducer.collections }));
    `;
    const [byDefault, oneCheck] = await Promise.all([runChild(pause('')), runChild(pause('{ quietChecks: 1 }'))]);
    expect(oneCheck.collections).toBe(1);
    expect(byDefault.collections).toBe(0);
  }, 30_000);

  it('leaves a busy process to V8, and one reducer serves every start', async () => {
    const result = await runChild(`
      const { startIdleMemoryReducer } = await import(${REDUCER});
      const first = startIdleMemoryReducer({ checkIntervalMs: 100, quietChecks: 2, growthBytes: 1024 });
      const second = startIdleMemoryReducer();
      // Busy: the loop works 90 % of each 10 ms slice for 1.2 s, allocating as it goes.
      const until = Date.now() + 1200;
      let sink = [];
      await new Promise((resolve) => {
        const slice = () => {
          const end = Date.now() + 9;
          while (Date.now() < end) sink.push({ at: Date.now() });
          if (sink.length > 100_000) sink = [];
          if (Date.now() < until) setTimeout(slice, 1); else resolve();
        };
        slice();
      });
      const busyCollections = first.collections;
      first.stop();
      // Still held by the second start: quiet now, it collects.
      await new Promise((resolve) => setTimeout(resolve, 600));
      const quietCollections = second.collections;
      second.stop();
      second.stop();
      console.log(JSON.stringify({ busyCollections, quietCollections }));
    `);
    expect(result.busyCollections).toBe(0);
    expect(result.quietCollections).toBeGreaterThanOrEqual(1);
  }, 30_000);
});
