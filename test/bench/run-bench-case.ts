/**
 * Runs one benchmark case end to end: a checked sample request, a warm-up, then the measured
 * load, with the servers' CPU time read just before and after the measured load.
 */
import { request } from 'undici';
import type { BenchCase } from './bench-cases.ts';
import type { BenchServerStats, OutcomeTally } from './bench-server-contract.ts';
import { runLoadPhase, type LoadPhaseResult } from './run-load-phase.ts';
import type { BenchServerHandle } from './spawn-bench-server.ts';

/** The two children a case talks to. */
export interface BenchServers {
  readonly mock: BenchServerHandle;
  readonly gateway: BenchServerHandle;
}

/** Durations in seconds; `connections` kept open by autocannon. */
export interface BenchSettings {
  readonly durationS: number;
  readonly warmupS: number;
  readonly connections: number;
}

/** One measured case. Latencies in ms, CPU in µs of process CPU time (user + system) per request. */
export interface CaseMeasurement {
  readonly benchCase: BenchCase;
  readonly load: LoadPhaseResult;
  /** Gateway child's CPU per measured request (gateway cases only). */
  readonly gatewayCpuUsPerRequest?: number;
  /** Mock child's CPU per measured request. */
  readonly mockCpuUsPerRequest: number;
  /** Gateway child's resident set size after the case, MB. */
  readonly gatewayRssMb: number;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const cpuMicros = (stats: BenchServerStats): number => stats.cpu.user + stats.cpu.system;

/** Sends the case's request once and checks status 200 and every expected substring. @throws Error naming what is wrong */
async function checkSampleAnswer(benchCase: BenchCase, url: string): Promise<void> {
  const answer = await request(url, { method: 'POST', headers: { ...benchCase.headers }, body: benchCase.body });
  const text = await answer.body.text();
  if (answer.statusCode !== 200) throw new Error(`${benchCase.id}: sample request answered ${answer.statusCode}: ${text.slice(0, 500)}`);
  const missing = benchCase.expectInBody.filter((fragment) => !text.includes(fragment));
  if (missing.length > 0) throw new Error(`${benchCase.id}: sample answer lacks ${missing.map((m) => JSON.stringify(m)).join(', ')}: ${text.slice(0, 500)}`);
}

/**
 * Checks the gateway's outcomes over the whole case: none failed, and every one took the path the
 * case is labelled with (pass-through or translated). Cancelled ones (connections autocannon
 * closes at the end of a run) are allowed. @throws Error naming the counts
 */
function checkOutcomes(benchCase: BenchCase, before: OutcomeTally, stats: BenchServerStats): void {
  const after = stats.outcomes;
  const delta = (key: keyof OutcomeTally): number => after[key] - before[key];
  if (delta('failed') > 0) throw new Error(`${benchCase.id}: ${delta('failed')} gateway outcomes failed (latest: ${stats.lastFailure ?? 'unknown'})`);
  if (delta('completed') === 0) throw new Error(`${benchCase.id}: the gateway recorded no completed request`);
  const wrongPath = benchCase.gatewayPath === 'pass-through' ? delta('translated') : delta('passThrough');
  if (wrongPath > 0) throw new Error(`${benchCase.id}: ${wrongPath} requests did not take the ${benchCase.gatewayPath} path`);
}

/**
 * Runs `benchCase` against its target. @throws Error when the sample answer is wrong, any answer
 * under load is not 2xx, or (gateway cases) any outcome failed or took the wrong path.
 */
export async function runBenchCase(benchCase: BenchCase, servers: BenchServers, settings: BenchSettings): Promise<CaseMeasurement> {
  const url = `${benchCase.target === 'mock' ? servers.mock.origin : servers.gateway.origin}${benchCase.path}`;
  const load = { url, headers: benchCase.headers, body: benchCase.body, connections: settings.connections };
  const outcomesBefore = (await servers.gateway.stats()).outcomes;
  await checkSampleAnswer(benchCase, url);
  if (settings.warmupS > 0) await runLoadPhase({ ...load, durationS: settings.warmupS });
  const [gatewayBefore, mockBefore] = await Promise.all([servers.gateway.stats(), servers.mock.stats()]);
  const measured = await runLoadPhase({ ...load, durationS: settings.durationS });
  const [gatewayAfter, mockAfter] = await Promise.all([servers.gateway.stats(), servers.mock.stats()]);
  await sleep(200); // let cancelled streams settle before reading final outcomes
  if (benchCase.target === 'gateway') checkOutcomes(benchCase, outcomesBefore, await servers.gateway.stats());
  const perRequest = (before: BenchServerStats, after: BenchServerStats): number => (cpuMicros(after) - cpuMicros(before)) / Math.max(1, measured.requests);
  return {
    benchCase,
    load: measured,
    ...(benchCase.target === 'gateway' ? { gatewayCpuUsPerRequest: perRequest(gatewayBefore, gatewayAfter) } : {}),
    mockCpuUsPerRequest: perRequest(mockBefore, mockAfter),
    gatewayRssMb: gatewayAfter.rssBytes / 1024 / 1024,
  };
}
