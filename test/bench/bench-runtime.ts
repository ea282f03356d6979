/**
 * How the bench runs the servers it measures: by default as production runs Tollgate, Node on
 * compiled JavaScript — a bench build (infra/build/ensure-dist.mjs with `includeBench`: the four
 * source folders plus the bench servers, test/bench/bench-servers.ts, and the test modules they
 * import) in `.tollgate/bench-dist/`, built at bench start when missing or older than the sources,
 * so every server (mock, floor, gateway alone, embedded, consumers) runs on the same runtime.
 * With BENCH_TSX=1, the old way: `node --import tsx` on the TypeScript sources (tsx's loader hooks
 * and its esbuild service child processes in every server).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDist } from '../../infra/build/ensure-dist.mjs';
import { ALLOCATOR_ENVIRONMENT } from '../../infra/processes/allocator-environment.ts';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Where the bench build goes (inside the repository, so the compiled modules resolve node_modules; gitignored). */
export const BENCH_DIST_DIR = join(REPO_ROOT, '.tollgate', 'bench-dist');

/** `compiled`: Node on the bench build; `tsx`: Node with tsx's loader on the TypeScript sources. */
export type BenchRuntime = 'compiled' | 'tsx';

/** The programs a bench spawns. */
export type BenchEntry = 'bench-servers' | 'tollgate-server' | 'tollgate-consumers';

/** Each entry's source, relative to the repository; its compiled twin is the same path with `.js` under BENCH_DIST_DIR. */
const ENTRY_SOURCES: Readonly<Record<BenchEntry, string>> = {
  'bench-servers': 'test/bench/bench-servers.ts',
  'tollgate-server': 'infra/processes/tollgate-server.ts',
  'tollgate-consumers': 'infra/processes/tollgate-consumers.ts',
};

/** Raised for an invalid BENCH_TSX value. */
export class BenchRuntimeError extends Error {}

/**
 * The runtime BENCH_TSX asks for: `1` → tsx, unset, empty or `0` → compiled.
 * @throws BenchRuntimeError for any other value
 */
export function benchRuntimeFromEnv(env: NodeJS.ProcessEnv): BenchRuntime {
  const raw = env.BENCH_TSX?.trim() ?? '';
  if (raw === '1') return 'tsx';
  if (raw === '' || raw === '0') return 'compiled';
  throw new BenchRuntimeError(`BENCH_TSX: expected 0 or 1, got ${JSON.stringify(env.BENCH_TSX)}`);
}

/** The runtime spawns use when not told otherwise; set by prepareBenchRuntime. */
let activeRuntime: BenchRuntime = 'tsx';
/** Whether the bench build is known to match the sources in this process. */
let benchBuildReady = false;

/** The bench build's outcome: whether it had to compile, and how long the check and the build took. */
export interface BenchBuild {
  readonly built: boolean;
  /** Comparing the source stamps, ms. */
  readonly checkMs: number;
  /** The compile, ms (when built). */
  readonly buildMs?: number;
}

/**
 * Makes `runtime` the default of every later spawn; with `build` (default: for `compiled`), first
 * builds BENCH_DIST_DIR when it is missing or its sources changed (`log` gets the progress lines),
 * so compiled entries can be spawned whatever the default (the start-up comparison runs both).
 * @returns the build's outcome, or undefined when nothing was built nor checked
 * @throws Error when the build lock stays held or the build cannot be moved into place (ensure-dist.mjs)
 */
export async function prepareBenchRuntime(
  runtime: BenchRuntime,
  log: (line: string) => void,
  build = runtime === 'compiled',
): Promise<BenchBuild | undefined> {
  activeRuntime = runtime;
  if (!build) return undefined;
  const result = await ensureDist({ outDir: BENCH_DIST_DIR, includeBench: true, log });
  benchBuildReady = true;
  return {
    built: result.built,
    checkMs: result.checkMs,
    ...(result.buildMs === undefined ? {} : { buildMs: result.buildMs }),
  };
}

/** The runtime spawns use by default: the prepared one, else tsx (callers outside `npm run bench`). */
export function activeBenchRuntime(): BenchRuntime {
  return activeRuntime;
}

/**
 * The environment of a server child: `env` over the C allocator setting production processes start
 * with (infra/processes/allocator-environment.ts), so the bench measures the servers as `npm start`
 * and the container image run them; a variable `env` sets itself wins.
 */
export function serverChildEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return { ...ALLOCATOR_ENVIRONMENT, ...env };
}

/**
 * Node's arguments that run `entry` on `runtime` (before the entry's own arguments); paths are
 * absolute for the compiled twin, relative to the repository for the source.
 * `extraImports`: modules preloaded with `--import` (e.g. a probe), after tsx's.
 * @throws Error for `compiled` when prepareBenchRuntime('compiled') has not run in this process
 */
export function nodeArgsFor(entry: BenchEntry, runtime: BenchRuntime, extraImports: readonly string[] = []): string[] {
  const preloads = extraImports.flatMap((module) => ['--import', module]);
  const source = ENTRY_SOURCES[entry];
  if (runtime === 'tsx') return ['--import', 'tsx', ...preloads, source];
  if (!benchBuildReady)
    throw new Error(`the bench build is not prepared: call prepareBenchRuntime('compiled') before spawning ${entry}`);
  return [...preloads, join(BENCH_DIST_DIR, source.replace(/\.ts$/, '.js'))];
}
