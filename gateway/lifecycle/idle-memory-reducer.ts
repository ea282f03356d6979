/**
 * Gives memory back once a process goes quiet after work.
 *
 * Why: V8 collects its old generation when allocation pushes it to a limit, not because the
 * process went idle: Node sends V8 no idle notifications, and V8's own memory reducer waits for
 * its allocation-rate samples to decay. Measured on the gateway alone after 20 000 requests at 32
 * connections: 110–140 MB of heap "used" (20–40 MB of it live), 137 MB committed and an RSS
 * 60–100 MB above a fresh start's, unchanged 25 s after the last request.
 *
 * How: every `checkIntervalMs` the reducer reads the event loop's utilization over the period
 * (https://nodejs.org/api/perf_hooks.html#performanceeventlooputilizationutilization1-utilization2)
 * and what V8's old generation holds (every heap space but the young generation's). Once the loop
 * has been idle (below `idleUtilization`) for `quietChecks` checks in a row, and the old
 * generation grew by `growthBytes` or more since the last collection or (once per quiet period)
 * commits `growthBytes / 2` or more beyond what it uses, it runs one full,
 * compacting collection: V8's `gc()` with `--compact-on-every-full-gc` set for its duration
 * (https://github.com/v8/v8/blob/main/src/flags/flag-definitions.h), so pages left sparse by the
 * burst are evacuated and returned. Measured on the gateway alone after 20 000 requests: RSS
 * 246 → 184 MB, heap committed 137 → 75 MB.
 *
 * When: after `quietChecks` × `checkIntervalMs` of quiet, 10 s by default, so that a pause between
 * requests (a coding agent running a tool, a client between turns) never pays for it. Such a
 * collection costs the requests after it, not only its own pause (100–200 ms of the loop): with
 * every request's objects dead, it frees the hidden classes ("maps") that only they had, and V8
 * throws away the optimized code that was specialised to those maps
 * (https://benediktmeurer.de/2016/10/11/the-case-of-temporary-objects-in-chrome/, "The
 * fundamental problem"). Measured on the gateway alone, translated Anthropic requests at one
 * connection in 1 s slices with 1–5 s pauses between them, after load at 32 connections: when the
 * reducer collected in a pause after 2 s of quiet, V8 optimized about 200 functions again in the
 * next 10 s, and the next two slices' p99 read 2.2–3.9 ms against 0.8–1.7 ms for the later ones
 * (five runs); waiting for 10 s of quiet, no pause was long enough and the first two read
 * 0.9–1.6 ms (two runs). The price: a collection after 10 s of low allocation lets V8 shrink its
 * young generation (`Heap::ReduceNewSpaceSize`), so the next load scavenges more often until it
 * grows back. After 15 s idle, the next 1 s slices at one connection scavenged 25–88 times each
 * against 6–8 with the collection at 2 s of quiet; their p99 after the first two slices did not
 * move with it (0.98–1.11 ms against 0.75–1.85 ms).
 * The `gc` function comes from V8's flag `--expose-gc` set at run time and read from a fresh
 * context, as Jest's leak detector does
 * (https://github.com/jestjs/jest/blob/main/packages/jest-leak-detector/src/index.ts); a process
 * started with `--expose-gc` keeps its own. A busy process never pays.
 *
 * One reducer runs per process however many apps start one (tests start many): the first start
 * creates it, and it stops when every start was stopped.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Settings of startIdleMemoryReducer (the first start's apply to the process's reducer). */
export interface IdleMemoryReducerOptions {
  /** How often the loop's utilization and the heap are read, ms (default 2 000). */
  readonly checkIntervalMs?: number;
  /** Consecutive idle checks before a collection (default 5: 10 s of quiet at the default interval). */
  readonly quietChecks?: number;
  /** Old-generation growth since the last collection that makes one worth running, bytes (default 32 MiB). */
  readonly growthBytes?: number;
  /** Event-loop utilization over a check period under which the process counts as idle, 0–1 (default 0.02). */
  readonly idleUtilization?: number;
}

/** A handle on the process's reducer. */
export interface IdleMemoryReducer {
  /** Full collections the process's reducer ran so far. */
  readonly collections: number;
  /** Releases this start (idempotent); the reducer stops with the last one. */
  stop(): void;
}

type CollectGarbage = () => void;

let exposedGc: CollectGarbage | undefined;

/** V8's `gc` function, exposing it once per process when Node was started without `--expose-gc`. */
function collectGarbageFunction(): CollectGarbage {
  if (exposedGc) return exposedGc;
  const own = (globalThis as { gc?: CollectGarbage }).gc;
  if (typeof own === 'function') return (exposedGc = own);
  setFlagsFromString('--expose-gc');
  exposedGc = runInNewContext('gc') as CollectGarbage;
  return exposedGc;
}

/** Bytes used and committed in every V8 heap space but the young generation's (`new_space`, `new_large_object_space`). */
function oldGeneration(): { used: number; committed: number } {
  let used = 0;
  let committed = 0;
  for (const space of getHeapSpaceStatistics()) {
    if (space.space_name.startsWith('new_')) continue;
    used += space.space_used_size;
    committed += space.space_size;
  }
  return { used, committed };
}

/** One full collection that compacts every page it can (see the module comment). */
function compactingCollection(): void {
  const collect = collectGarbageFunction();
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    collect();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
}

/** The process's reducer while any start holds it. */
let running: { timer: NodeJS.Timeout; holders: number; collections: number } | undefined;

/**
 * Starts the process's reducer (see the module comment) on an unref'd timer, so it never keeps
 * the process alive, or joins the one running. Never throws; a collection that fails is left to
 * V8's own schedule.
 */
export function startIdleMemoryReducer(options: IdleMemoryReducerOptions = {}): IdleMemoryReducer {
  const reducer = running ?? (running = createReducer(options));
  reducer.holders++;
  let stopped = false;
  return {
    get collections() {
      return reducer.collections;
    },
    stop() {
      if (stopped) return;
      stopped = true;
      if (--reducer.holders > 0) return;
      clearInterval(reducer.timer);
      if (running === reducer) running = undefined;
    },
  };
}

function createReducer(options: IdleMemoryReducerOptions): NonNullable<typeof running> {
  const { checkIntervalMs = 2_000, quietChecks = 5, growthBytes = 32 * 1024 * 1024, idleUtilization = 0.02 } = options;
  // Counted from zero: a start-up that left `growthBytes` in the old generation is collected after the first quiet period.
  let baseline = 0;
  let previous: EventLoopUtilization = performance.eventLoopUtilization();
  let quiet = 0;
  let collectedWhileQuiet = false;
  const state = { timer: undefined as unknown as NodeJS.Timeout, holders: 0, collections: 0 };
  state.timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const utilization = performance.eventLoopUtilization(now, previous).utilization;
    previous = now;
    const { used, committed } = oldGeneration();
    if (used < baseline) baseline = used; // V8 collected on its own
    quiet = utilization < idleUtilization ? quiet + 1 : 0;
    if (quiet === 0) collectedWhileQuiet = false;
    if (quiet < quietChecks) return;
    // Grown since the last collection, or (once per quiet period) pages committed well beyond use.
    const grown = used - baseline >= growthBytes;
    const sparse = !collectedWhileQuiet && committed - used >= growthBytes / 2;
    if (!grown && !sparse) return;
    collectedWhileQuiet = true;
    try {
      compactingCollection();
      state.collections++;
    } catch {
      // The flags could not be set in this runtime: V8's own schedule remains.
    }
    baseline = oldGeneration().used;
    previous = performance.eventLoopUtilization(); // the collection's own time is not the next period's load
  }, checkIntervalMs);
  state.timer.unref();
  return state;
}
