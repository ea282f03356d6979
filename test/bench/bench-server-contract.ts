/**
 * What the bench parent (run-bench.ts) and its server children (bench-servers.ts) agree on: the
 * client key and model, the ready line a child prints, and the stats its control server answers.
 */

/** The bench client key accepted by the gateway child (the floor proxy and the mock accept any). */
export const BENCH_KEY = 'sk-bench-key-0001';

/** The model name the bench sends; served by the gateway's `bench-mock` channel. */
export const BENCH_MODEL = 'mock-1';

/**
 * The price of the bench model for the pipeline case's consumers (USD per million tokens), so the
 * ledger and billing consumers do their full work (costing) rather than the unpriced shortcut.
 */
export const BENCH_PRICES = [
  { model: BENCH_MODEL, inputPerMTok: 0.5, outputPerMTok: 1.5, effectiveFrom: '2020-01-01T00:00:00Z' },
] as const;

/** Which server a child runs: the mock upstream, the featureless floor proxy, or the gateway. */
export type BenchServerRole = 'mock' | 'floor' | 'gateway';

/** Tallies of gateway outcomes by status, and of completed ones by path (all zero in the mock child). */
export interface OutcomeTally {
  completed: number;
  failed: number;
  cancelled: number;
  passThrough: number;
  translated: number;
}

/** What a control server answers: CPU time of its whole process (µs), RSS (bytes), outcomes. */
export interface BenchServerStats {
  readonly cpu: { readonly user: number; readonly system: number };
  readonly rssBytes: number;
  /** V8's heap now: used and committed, and memory outside it held by JS objects (ArrayBuffers, Buffers), bytes. */
  readonly heap?: { readonly usedBytes: number; readonly totalBytes: number; readonly externalBytes: number };
  readonly outcomes: OutcomeTally;
  /** The latest failed outcome, as `<httpStatus> <errorKind>: <message>`. */
  readonly lastFailure?: string;
  /** Events handed to the event log (gateway child started with BENCH_GATEWAY_EVENTS=1 only). */
  readonly eventsPublished?: number;
}

/** Control-server path of the gateway child (BENCH_GATEWAY_EVENTS=1) that flushes its event log and answers BenchEventsFlushed. */
export const FLUSH_EVENTS_PATH = '/events/flush';

/** The gateway child's publisher status once its event log's flush() resolved (records counted, not bytes). */
export interface BenchEventsFlushed {
  /** Records accepted but not yet acknowledged by the log or spooled. */
  readonly pending: number;
  /** Records waiting in the on-disk spool for the log to come back (0: every record is in the log). */
  readonly spooled: number;
  readonly connected: boolean;
}

/** The one JSON line a child prints on stdout once it listens. */
export interface BenchServerReady {
  readonly role: BenchServerRole;
  /** Port of the served API (mock upstream or gateway) on 127.0.0.1. */
  readonly port: number;
  /** Port of the stats server on 127.0.0.1. */
  readonly controlPort: number;
}

/**
 * Control-server paths of every child: start V8's sampling profiler on the request thread
 * (answers 200 `{}`), and stop it (answers 200 with the V8 CPU profile as JSON). profile-server-cpu.ts.
 */
export const PROFILE_START_PATH = '/profile/start';
export const PROFILE_STOP_PATH = '/profile/stop';

/**
 * Control-server paths of every child: start V8's sampling heap profiler, garbage included
 * (answers 200 `{}`), and stop it (answers 200 with the sampling heap profile as JSON).
 */
export const HEAP_SAMPLING_START_PATH = '/heap-sampling/start';
export const HEAP_SAMPLING_STOP_PATH = '/heap-sampling/stop';
