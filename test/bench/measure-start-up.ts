/**
 * Start-up time and RSS after start of a Tollgate server on each runtime (bench-runtime.ts): Node
 * on the compiled JavaScript, as production runs it, against Node with tsx's loader on the
 * TypeScript sources. Start-up: from spawning the process to its ready line (the embedded server's
 * "Tollgate listening" log line, the gateway alone's ready JSON line), ms. RSS after start: of the
 * whole process tree (read-process-usage.ts: the server and every descendant, e.g. the esbuild
 * service processes tsx starts when a file is missing from its transform cache, kept in the OS
 * temporary directory by content hash: https://www.npmjs.com/package/tsx/v/3.12.3, README section
 * "Cache"), `settleS` seconds after the ready line with no traffic, MB
 * (1 MB = 1 048 576 bytes). Each figure is the median of `runs` starts; the runtimes alternate
 * run by run, so a drift of the machine's load touches both.
 */
import { readProcessUsage } from './read-process-usage.ts';
import type { BenchBuild, BenchRuntime } from './bench-runtime.ts';

/** The servers measured: `npm start`'s embedded server and the gateway alone. */
export type StartUpServer = 'embedded' | 'gateway';

/** A started server, as a starter returns it. */
export interface StartedServer {
  readonly pid: number;
  /** Stops it and resolves once it exited (and its data directory is removed). */
  stop(): Promise<void>;
}

/** Starts a fresh server (new data directory) on `runtime`; resolves once its ready line came. */
export type ServerStarter = (runtime: BenchRuntime) => Promise<StartedServer>;

/** One server on one runtime. */
export interface StartUpRow {
  readonly server: StartUpServer;
  readonly runtime: BenchRuntime;
  /** Median spawn → ready line, ms. */
  readonly startMs: number;
  readonly startMsRuns: ReadonlyArray<number>;
  /** Median RSS of the process tree `settleS` after ready, MB. */
  readonly rssMb: number;
  readonly rssMbRuns: ReadonlyArray<number>;
  /** Processes in the tree at the last reading (1: Node alone). */
  readonly processes: number;
}

/** The report's `startUp` section. */
export interface StartUpReport {
  /** Starts per server and runtime. */
  readonly runs: number;
  /** Seconds between the ready line and the RSS reading. */
  readonly settleS: number;
  /** The bench build at bench start: whether it compiled, its stamp check and compile times, ms. */
  readonly benchBuild?: BenchBuild;
  /**
   * What `npm start` adds on a built tree before the server's own start: ensure-dist.mjs comparing
   * the source stamp of dist/ with the tree's, ms (median of `runs` checks, in the bench's process).
   */
  readonly launcherCheckMs: number;
  readonly rows: ReadonlyArray<StartUpRow>;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Median of a non-empty list (mean of the middle two for an even count). */
export function median(values: ReadonlyArray<number>): number {
  if (values.length === 0) throw new Error('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

const round1 = (value: number): number => Number(value.toFixed(1));

/**
 * Starts each server `runs` times on each runtime (tsx, then compiled, in every round), one at a
 * time, and reads its start-up time and its tree's RSS `settleS` seconds after ready.
 * `launcherCheck` measures one stamp check of `npm start`'s launcher, ms.
 * @throws Error when a server does not start (the starter's error) or its /proc entry cannot be read
 */
export async function measureStartUp(options: {
  readonly runs: number;
  readonly settleS: number;
  readonly starters: Readonly<Record<StartUpServer, ServerStarter>>;
  readonly launcherCheck: () => Promise<number>;
  readonly benchBuild?: BenchBuild;
  readonly log: (text: string) => void;
}): Promise<StartUpReport> {
  const runtimes: BenchRuntime[] = ['tsx', 'compiled'];
  const samples = new Map<string, { start: number[]; rss: number[]; processes: number }>();
  for (const server of ['embedded', 'gateway'] as const) {
    options.log(`  ${server === 'embedded' ? 'embedded' : 'gateway alone'}:`);
    for (let run = 0; run < options.runs; run++) {
      for (const runtime of runtimes) {
        const startedAt = performance.now();
        const started = await options.starters[server](runtime);
        const startMs = performance.now() - startedAt;
        try {
          await sleep(options.settleS * 1000);
          const usage = readProcessUsage(started.pid);
          const key = `${server}/${runtime}`;
          const entry = samples.get(key) ?? { start: [], rss: [], processes: 1 };
          entry.start.push(Math.round(startMs));
          entry.rss.push(round1(usage.rssBytes / 1024 / 1024));
          entry.processes = usage.processes;
          samples.set(key, entry);
          options.log(` ${runtime} ${Math.round(startMs)} ms`);
        } finally {
          await started.stop();
        }
      }
    }
    options.log('\n');
  }
  const checks: number[] = [];
  for (let run = 0; run < Math.max(1, options.runs); run++) checks.push(await options.launcherCheck());
  const rows: StartUpRow[] = [];
  for (const server of ['embedded', 'gateway'] as const) {
    for (const runtime of runtimes) {
      const entry = samples.get(`${server}/${runtime}`);
      if (!entry) continue;
      rows.push({
        server,
        runtime,
        startMs: Math.round(median(entry.start)),
        startMsRuns: entry.start,
        rssMb: round1(median(entry.rss)),
        rssMbRuns: entry.rss,
        processes: entry.processes,
      });
    }
  }
  return {
    runs: options.runs,
    settleS: options.settleS,
    ...(options.benchBuild ? { benchBuild: options.benchBuild } : {}),
    launcherCheckMs: round1(median(checks)),
    rows,
  };
}
