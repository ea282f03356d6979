/**
 * Runs one benchmark case end to end: a checked sample request, a warm-up, then the measured
 * load, with the CPU time of the target server and of the mock read from /proc just before and
 * after the measured load (for the embedded server, after its consumers caught up with it).
 */
import { request } from 'undici';
import type { BenchCase, BenchTarget } from './bench-cases.ts';
import type { BenchServerStats, OutcomeTally } from './bench-server-contract.ts';
import type { PeerBenchCase, PeerTarget } from './peers/peer-cases.ts';
import { readProcessUsage } from './read-process-usage.ts';
import { percentile, runLoadPhase, type LoadPhaseResult } from './run-load-phase.ts';

/** A server a case can load: its PID (for /proc), its origin, and — bench children — its stats. */
export interface BenchServer {
  readonly pid: number;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** Outcome tallies (the gateway child's control server); absent for servers without one. @throws on a non-200 answer */
  stats?(): Promise<BenchServerStats>;
  /**
   * Resolves once the work the load left behind is done (the embedded server's consumers caught
   * up), so its CPU is read with the case that caused it. @throws when it does not settle in time
   */
  settled?(): Promise<void>;
}

/** The four servers of a run, by target, and the peer gateways started (`npm run bench:peers`). */
export type BenchServers = Readonly<Record<BenchTarget, BenchServer>> &
  Readonly<Partial<Record<PeerTarget, BenchServer>>>;

/** A case a run can load: one of bench-cases.ts, or the same shape sent to a peer gateway. */
export type MeasuredCase = BenchCase | PeerBenchCase;

/** Durations in seconds; `connections` kept open by autocannon at the loaded level. */
export interface BenchSettings {
  readonly durationS: number;
  readonly warmupS: number;
  readonly connections: number;
  /**
   * Load per case in the servers' warm-up pass (warmServers) before any case is measured, s; 0
   * skips it. Absent in reports written before the pass existed.
   */
  readonly serverWarmupS?: number;
}

/** One measured case. Latencies in ms, CPU in µs of process CPU time (user + system) per request. */
export interface CaseMeasurement {
  readonly benchCase: MeasuredCase;
  /** Connections autocannon kept open. */
  readonly connections: number;
  readonly load: LoadPhaseResult;
  /** The target server's CPU (its process and descendants) per measured request (the mock's own for direct cases), µs. */
  readonly serverCpuUsPerRequest: number;
  /** The mock's CPU per measured request, µs. */
  readonly mockCpuUsPerRequest: number;
  /** The target server's resident set size after the case, bytes. */
  readonly serverRssBytes: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Sends the case's request once and checks status 200 and every expected substring. @throws Error naming what is wrong */
async function checkSampleAnswer(benchCase: MeasuredCase, url: string): Promise<void> {
  const answer = await request(url, { method: 'POST', headers: { ...benchCase.headers }, body: benchCase.body });
  const text = await answer.body.text();
  if (answer.statusCode !== 200)
    throw new Error(`${benchCase.id}: sample request answered ${answer.statusCode}: ${text.slice(0, 500)}`);
  const missing = benchCase.expectInBody.filter((fragment) => !text.includes(fragment));
  if (missing.length > 0)
    throw new Error(
      `${benchCase.id}: sample answer lacks ${missing.map((m) => JSON.stringify(m)).join(', ')}: ${text.slice(0, 500)}`,
    );
}

/**
 * Checks the gateway's outcomes over the whole case: none failed, and every one took the path the
 * case is labelled with (pass-through or translated). Cancelled ones (connections autocannon
 * closes at the end of a run) are allowed. @throws Error naming the counts
 */
function checkOutcomes(benchCase: MeasuredCase, before: OutcomeTally, stats: BenchServerStats): void {
  const after = stats.outcomes;
  const delta = (key: keyof OutcomeTally): number => after[key] - before[key];
  if (delta('failed') > 0)
    throw new Error(
      `${benchCase.id}: ${delta('failed')} gateway outcomes failed (latest: ${stats.lastFailure ?? 'unknown'})`,
    );
  if (delta('completed') === 0) throw new Error(`${benchCase.id}: the gateway recorded no completed request`);
  const wrongPath = benchCase.gatewayPath === 'pass-through' ? delta('translated') : delta('passThrough');
  if (wrongPath > 0)
    throw new Error(`${benchCase.id}: ${wrongPath} requests did not take the ${benchCase.gatewayPath} path`);
}

/** What to load for one case, on which server; `outcomesBefore` when the case checks outcomes. */
interface PreparedCase {
  readonly server: BenchServer;
  readonly load: { url: string; headers: Readonly<Record<string, string>>; body: string; connections: number };
  readonly outcomesBefore: OutcomeTally | undefined;
}

/**
 * Readies `benchCase` at `connections`: reads the outcomes so far (gateway child), checks a sample
 * answer, runs the warm-up, and waits for the server to settle.
 * @throws Error when the target is not among `servers` or the sample answer is wrong
 */
async function prepareCase(
  benchCase: MeasuredCase,
  servers: BenchServers,
  settings: BenchSettings,
  connections: number,
  warm = true,
): Promise<PreparedCase> {
  const server = servers[benchCase.target];
  if (!server) throw new Error(`${benchCase.id}: no ${benchCase.target} server is running`);
  const url = `${server.origin}${benchCase.path}`;
  const load = { url, headers: benchCase.headers, body: benchCase.body, connections };
  const checksOutcomes = benchCase.gatewayPath !== undefined && server.stats !== undefined;
  const outcomesBefore = checksOutcomes ? (await server.stats?.())?.outcomes : undefined;
  await checkSampleAnswer(benchCase, url);
  if (warm && settings.warmupS > 0) await runLoadPhase({ ...load, durationS: settings.warmupS });
  await server.settled?.();
  return { server, load, outcomesBefore };
}

/**
 * Runs `benchCase` against its target with `connections` connections. Outcomes are checked on
 * targets whose server has stats (the gateway child); every target's answers must be 2xx.
 * @throws Error when the target is not among `servers`, the sample answer is wrong, any answer
 *   under load is not 2xx, a server's /proc entry cannot be read, or (gateway child) any outcome
 *   failed or took the wrong path.
 */
export async function runBenchCase(
  benchCase: MeasuredCase,
  servers: BenchServers,
  settings: BenchSettings,
  connections: number,
): Promise<CaseMeasurement> {
  const { server, load, outcomesBefore } = await prepareCase(benchCase, servers, settings, connections);
  const serverBefore = readProcessUsage(server.pid);
  const mockBefore = readProcessUsage(servers.mock.pid);
  const measured = await runLoadPhase({ ...load, durationS: settings.durationS });
  const mockAfter = readProcessUsage(servers.mock.pid);
  await server.settled?.(); // its consumers' share of this load, however long they take, counts
  const serverAfter = readProcessUsage(server.pid);
  if (outcomesBefore && server.stats) {
    await sleep(200); // let cancelled streams settle before reading final outcomes
    checkOutcomes(benchCase, outcomesBefore, await server.stats());
  }
  const requests = Math.max(1, measured.requests);
  return {
    benchCase,
    connections,
    load: measured,
    serverCpuUsPerRequest: (serverAfter.cpuMicros - serverBefore.cpuMicros) / requests,
    mockCpuUsPerRequest: (mockAfter.cpuMicros - mockBefore.cpuMicros) / requests,
    serverRssBytes: serverAfter.rssBytes,
  };
}

/**
 * The servers' warm-up pass: every case of `cases` (one per server and shape) loaded for
 * `settings.serverWarmupS` s at `connections`, each server's cases in a row, then that server
 * settled. So each server's measured cases find it in its steady state, every code path compiled
 * by V8's optimizing tiers and, for the embedded server, its consumers and analytics engine past
 * their first batches. Measured from start, the first case of a server ran cold: the embedded
 * server's first 8 s cost up to 41 % more CPU per request than the same case later on
 * (README, "Tests and benchmarks"). Start-up itself is measured apart (measure-start-up.ts).
 * A case that fails here is left for its measured run to report.
 */
export async function warmServers(
  cases: ReadonlyArray<MeasuredCase>,
  servers: BenchServers,
  settings: BenchSettings,
  connections: number,
): Promise<void> {
  const warmupS = settings.serverWarmupS ?? 0;
  if (warmupS <= 0) return;
  const targets = [...new Set(cases.map((c) => c.target))];
  for (const target of targets) {
    const server = servers[target];
    if (!server) continue;
    for (const benchCase of cases.filter((c) => c.target === target)) {
      const load = { url: `${server.origin}${benchCase.path}`, headers: benchCase.headers, body: benchCase.body };
      await runLoadPhase({ ...load, connections, durationS: warmupS }).catch(() => undefined);
    }
    await server.settled?.();
  }
}

/** 0 … count − 1 in a random order (Fisher–Yates). */
export function shuffledIndexes(count: number): number[] {
  const order = Array.from({ length: count }, (_, i) => i);
  for (let i = count - 1; i > 0; i -= 1) {
    const j = Math.floor(Math.random() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  return order;
}

/** One case's running totals over its slices. */
interface SliceTotals {
  readonly benchCase: MeasuredCase;
  readonly server: BenchServer;
  readonly load: PreparedCase['load'];
  readonly outcomesBefore: OutcomeTally | undefined;
  latencies: Float64Array[];
  elapsedS: number;
  serverCpuMicros: number;
  mockCpuMicros: number;
  serverRssBytes: number;
}

/**
 * Runs `cases` (different targets) at `connections` interleaved rather than one after another:
 * each case's sample check, then `slices` rounds in each of which every case runs for
 * `settings.durationS / slices` s, the cases in a random order. Latencies are
 * pooled per case and CPU summed over its slices (read as runBenchCase reads it, the embedded
 * server's consumers settled). A tail percentile of cases run one after another also measures
 * whatever the machine did meanwhile: timed in turn, the same server's p99 at one connection moved
 * by 2× from one 8 s run to the next; interleaved, every case sees the same machine.
 *
 * The warm-up (`settings.warmupS` per case) runs as rounds the same way, not case after case, so
 * that no server idles through the others' warm-ups. A Node process idle for several seconds can get
 * a full collection (V8's memory reducer starts after 8 s of low allocation, Tollgate's own after 10 s
 * of quiet), which frees the hidden classes only the dead requests' objects had and with them the
 * optimized code specialised to those classes
 * (https://benediktmeurer.de/2016/10/11/the-case-of-temporary-objects-in-chrome/, "The fundamental
 * problem"): the next seconds of traffic run partly unoptimized while V8 optimizes again. Measured
 * with warm-ups case after case (`BENCH_CONNECTIONS=1`, gateway alone, translated Anthropic): the
 * first measured slices read a p99 of 4.9 and 2.5 ms against mostly 1.0–1.3 ms later, after one
 * full collection of V8's own 14 s after the gateway's last slice of the shape before; with the
 * warm-up in rounds, 0.8–1.7 ms from the first slice on.
 *
 * `discardedRounds` rounds run after the warm-up, the same way, and are not counted. On the 2-CPU machine of
 * the README's table, the first two or three 1 s slices of a series after 32-connection load had
 * a p99 up to four times the later ones' for the floor proxy and the gateway alike (1.8–5.7 ms
 * against mostly 0.8–1.8 ms), even after 10 s of warm-up per case one after another and with the
 * servers idle in between; the direct case, on the load generator's CPU, had none (0.3–0.5 ms).
 * Which case drew those slices decided the ratio of the added p99s: the first shape at one
 * connection missed its target in three runs out of three, the later shapes met it in eight of nine.
 * @throws Error as runBenchCase does
 */
export async function runInterleavedCases(
  cases: ReadonlyArray<MeasuredCase>,
  servers: BenchServers,
  settings: BenchSettings,
  connections: number,
  slices: number,
  discardedRounds = 0,
): Promise<CaseMeasurement[]> {
  const totals: SliceTotals[] = [];
  for (const benchCase of cases) {
    const { server, load, outcomesBefore } = await prepareCase(benchCase, servers, settings, connections, false);
    totals.push({
      benchCase,
      server,
      load,
      outcomesBefore,
      latencies: [],
      elapsedS: 0,
      serverCpuMicros: 0,
      mockCpuMicros: 0,
      serverRssBytes: 0,
    });
  }
  const sliceS = settings.durationS / slices;
  const warmRounds = settings.warmupS > 0 ? Math.ceil(settings.warmupS / sliceS) : 0;
  for (let round = 0; round < warmRounds + discardedRounds; round += 1) {
    for (const index of shuffledIndexes(totals.length)) {
      const entry = totals[index] as SliceTotals;
      await runLoadPhase({ ...entry.load, durationS: sliceS });
      await entry.server.settled?.();
    }
  }
  for (let round = 0; round < slices; round += 1) {
    for (const index of shuffledIndexes(totals.length)) {
      const entry = totals[index] as SliceTotals;
      const serverBefore = readProcessUsage(entry.server.pid);
      const mockBefore = readProcessUsage(servers.mock.pid);
      const measured = await runLoadPhase({ ...entry.load, durationS: sliceS });
      const mockAfter = readProcessUsage(servers.mock.pid);
      await entry.server.settled?.();
      const serverAfter = readProcessUsage(entry.server.pid);
      entry.latencies.push(measured.latenciesMs);
      entry.elapsedS += measured.elapsedS;
      entry.serverCpuMicros += serverAfter.cpuMicros - serverBefore.cpuMicros;
      entry.mockCpuMicros += mockAfter.cpuMicros - mockBefore.cpuMicros;
      entry.serverRssBytes = serverAfter.rssBytes;
    }
  }
  const measurements: CaseMeasurement[] = [];
  for (const entry of totals) {
    if (entry.outcomesBefore && entry.server.stats) {
      await sleep(200); // let cancelled streams settle before reading final outcomes
      checkOutcomes(entry.benchCase, entry.outcomesBefore, await entry.server.stats());
    }
    const pooled = new Float64Array(entry.latencies.reduce((sum, part) => sum + part.length, 0));
    let offset = 0;
    for (const part of entry.latencies) {
      pooled.set(part, offset);
      offset += part.length;
    }
    pooled.sort();
    const requests = Math.max(1, pooled.length);
    measurements.push({
      benchCase: entry.benchCase,
      connections,
      load: {
        requests: pooled.length,
        elapsedS: entry.elapsedS,
        requestsPerSecond: pooled.length / entry.elapsedS,
        p50Ms: percentile(pooled, 50),
        p99Ms: percentile(pooled, 99),
        latenciesMs: pooled,
      },
      serverCpuUsPerRequest: entry.serverCpuMicros / requests,
      mockCpuUsPerRequest: entry.mockCpuMicros / requests,
      serverRssBytes: entry.serverRssBytes,
    });
  }
  return measurements;
}
