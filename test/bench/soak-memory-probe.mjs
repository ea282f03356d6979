/**
 * Preloaded into the soaked gateway process (`node --import ./test/bench/soak-memory-probe.mjs …`)
 * so the soak can read the process's own memory figures over the IPC channel the parent opened
 * (https://nodejs.org/api/child_process.html#subprocesssendmessage-sendhandle-options-callback).
 * Plain JavaScript: worker threads inherit the `--import` flags, and the chdb worker loads no
 * TypeScript loader. Does nothing without an IPC channel (worker threads included). Messages
 * (parent → child → parent; shapes: SoakProbeRequest and SoakProbeReply in spawn-soak-gateway.ts):
 * - `{ type: 'memory' }` → `{ type: 'memory', memory }`, bytes from process.memoryUsage() and
 *   v8.getHeapStatistics() (https://nodejs.org/api/process.html#processmemoryusage), and the
 *   entries of the tokenizer's merge cache;
 * - `{ type: 'snapshot', path }` → writes a V8 heap snapshot there
 *   (https://nodejs.org/api/v8.html#v8writeheapsnapshotfilenameoptions), then
 *   `{ type: 'snapshot', path }` or `{ type: 'snapshot', error }`.
 * The channel is unref'd so it never keeps the gateway alive; when it closes (the parent died) the
 * probe sends the process SIGTERM, so it shuts down as it would under a supervisor.
 */
import { getHeapStatistics, writeHeapSnapshot } from 'node:v8';

/**
 * Entries in the o200k tokenizer's merge cache (npm `gpt-tokenizer`, the same module instance the
 * gateway counts with), read from the library's private LRU map; undefined when unavailable.
 */
async function tokenizerMergeCacheEntries() {
  try {
    const o200k = (await import('gpt-tokenizer/encoding/o200k_base')).default;
    return o200k?.bytePairEncodingCoreProcessor?.mergeCache?.size;
  } catch {
    return undefined;
  }
}

async function readMemory() {
  const usage = process.memoryUsage();
  const heap = getHeapStatistics();
  const mergeCacheEntries = await tokenizerMergeCacheEntries();
  return {
    rssBytes: usage.rss,
    heapUsedBytes: usage.heapUsed,
    heapTotalBytes: usage.heapTotal,
    externalBytes: usage.external,
    arrayBuffersBytes: usage.arrayBuffers,
    mallocedBytes: heap.malloced_memory,
    ...(mergeCacheEntries === undefined ? {} : { tokenizerMergeCacheEntries: mergeCacheEntries }),
  };
}

async function answer(request) {
  if (request.type === 'memory') return { type: 'memory', memory: await readMemory() };
  try {
    return { type: 'snapshot', path: writeHeapSnapshot(request.path) };
  } catch (error) {
    return { type: 'snapshot', error: error instanceof Error ? error.message : String(error) };
  }
}

if (process.send && process.channel) {
  process.on('message', (message) => {
    if (message?.type !== 'memory' && message?.type !== 'snapshot') return;
    void answer(message).then((reply) => process.send?.(reply));
  });
  // After the listener: adding a 'message' listener refs the channel again.
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
