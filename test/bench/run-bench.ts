/**
 * `npm run bench`: Tollgate's load benchmark. In one run, against one mock upstream (a child
 * process, bench-servers.ts), it loads four servers, each its own child process:
 * - direct: the mock itself (the baseline every added latency is measured against);
 * - floor: a featureless Fastify + undici pass-through proxy (floor-proxy.ts), the cost floor of
 *   any Node gateway;
 * - gateway alone: buildApp with the bench channel, the bench key limited in RPM and TPM (never
 *   refusing, so admission counts tokens) and the embedded file event log on, consumers elsewhere;
 * - embedded: `npm start` as shipped (infra/processes/tollgate-server.ts: gateway, consumers,
 *   file event log, chdb in one process), same channel, key and limits.
 * Every server (mock and floor included, so all share one runtime) runs as production runs Tollgate:
 * Node on compiled JavaScript, a bench build in .tollgate/bench-dist (bench-runtime.ts).
 * First every server is warmed (run-bench-case.ts warmServers): each of its cases for
 * BENCH_SERVER_WARMUP_S (default 20 s), so no case is measured on a cold server.
 * Each case of bench-cases.ts (Chat pass-through and Anthropic translated, non-streamed and
 * streamed) runs at BENCH_CONNECTIONS (default 32) and at 1 connection with autocannon: a sample
 * answer checked, a warm-up (default 2 s), a measured run (default 8 s). CPU time of each server
 * process (all its threads) is read from /proc around the measured run (for the embedded server,
 * until its consumers caught up). Then the time to first token of the streamed shapes
 * (measure-time-to-first-token.ts: sequential streams, upstream waiting before each chunk, timed
 * to the first event carrying text). Then, with no traffic:
 * once the embedded server's analytics engine stopped (DEFAULT_CHDB_IDLE_EXIT_MS after its last
 * query; it runs on between the cases, as between a server's requests), each server's RSS after
 * 10 s and its CPU over 10 s; then, per server, the RSS cost of N live
 * streams held open by a slow upstream. Prints the tables (Tollgate figures as ratios to the
 * floor's for the same request shape) and a verdict per performance target, and writes it all to
 * `test-artifacts/bench/latest.json`. With taskset and ≥ 2 CPUs, the servers run on CPU 1 and the
 * load generator and mock on CPU 0 (BENCH_PIN=0 turns that off). Then the pipeline case
 * (run-pipeline-bench.ts): events per second through gateway → event log → consumers →
 * ClickHouse, and the lag from request end to its row (p50, p99), and with REDIS_URL the Redis
 * bytes and keys per 1,000 requests, on the engines the environment names, and — consumers as
 * their own process — the consumers' own events/s draining a backlog; added to the JSON as `pipeline`.
 * In this process, beside admission's CPU per request: routing's (measure-routing-cost.ts, JSON
 * `routing`) and the prompt-cache hit rate of agent sessions by routing (measure-cache-affinity.ts,
 * JSON `cacheAffinity`; with REDIS_URL also two nodes over Redis).
 * After the HTTP cases, the start-up table (measure-start-up.ts, JSON `startUp`): the embedded server
 * and the gateway alone started BENCH_STARTUP_RUNS times on tsx and compiled each, spawn → ready
 * line in ms and the RSS of the whole process tree after start, medians.
 * Then the scaling sweep (measure-scaling-sweep.ts, JSON `scalingSweep`): CPU per
 * request of a floor and a gateway alone as the request body, the stream length and the streams in
 * flight grow, as a ratio gateway ÷ floor per point and its spread per dimension.
 *
 * After the cases, where the CPU goes (profile-server-cpu.ts, JSON `cpuProfile`): the floor and
 * the gateway alone, each shape at 32 connections for BENCH_PROFILE_S seconds (default 4; 0 skips)
 * under V8's sampling profiler, their CPU per request split by category.
 *
 * Environment: BENCH_DURATION_S (s, > 0), BENCH_WARMUP_S (s, ≥ 0, before each case),
 * BENCH_SERVER_WARMUP_S (s ≥ 0, default 20: each case in the servers' warm-up pass before any is
 * measured, run-bench-case.ts warmServers; 0 skips it), BENCH_CONNECTIONS (integer ≥ 1,
 * the loaded level; 1 connection is always measured too); BENCH_LIVE_STREAMS (integer ≥ 1, default
 * 10000), BENCH_LIVE_STREAM_CHUNK_MS (ms ≥ 1000, default 10000: the slow upstream's delay before each
 * chunk), BENCH_IDLE_SETTLE_S (s ≥ 0, default 10), BENCH_IDLE_CPU_S (s > 0, default 10), BENCH_PIN
 * (`0` never pins, `1` requires taskset; default pins when possible);
 * BENCH_PIPELINE (`0` skips the pipeline case), BENCH_PIPELINE_REQUESTS (integer ≥ 1, default 2000),
 * BENCH_PIPELINE_TIMEOUT_S (s, > 0, default 120), BENCH_PIPELINE_BACKLOG (integer ≥ 0, default 5000;
 * 0 skips the backlog); BENCH_SWEEP (`0` skips the scaling sweep), BENCH_SWEEP_REQUESTS (integer ≥ 1,
 * default 3000: measured requests per point and server), BENCH_SWEEP_WARMUP_REQUESTS (integer ≥ 0,
 * default 1000), BENCH_SWEEP_CONNECTIONS (integer ≥ 1, default 8: in flight for the body and stream
 * length points), BENCH_SWEEP_MAX_STREAMS (integer ≥ 1, default 10000); BENCH_TSX (`1`: every server
 * on `node --import tsx` over the sources, the old way; default: Node on the bench build,
 * bench-runtime.ts, compiled at bench start when the sources changed); BENCH_STARTUP_RUNS (integer ≥ 0,
 * default 3; 0 skips the start-up table), BENCH_STARTUP_SETTLE_S (s ≥ 0, default 5); KAFKA_BROKERS, REDIS_URL, CLICKHOUSE_URL (pipeline case only: the three
 * servers above always run on the embedded engines).
 * Exit codes: 0 done (whether or not the targets are met); 1 a case failed (any non-2xx answer,
 * request error, wrong answer, failed or mis-routed gateway outcome, rows missing), a server did
 * not start, or the prompt-cache hit rate with affinity was below 95 % of one channel's (a FAIL row
 * of the cache-affinity table; the report is written first); 2 invalid settings; 130 interrupted.
 * Children are stopped by PID on every exit path.
 *
 * `npm run bench -- --soak [--soak-minutes N …]` (or `npm run bench:soak`) runs the memory soak
 * instead (run-soak.ts): exit code 0 when RSS growth after warm-up stays under its target, 1 otherwise.
 *
 * `npm run bench:peers` (`--peers`) runs the same bench plus two peer gateways (peers/): Portkey's
 * OSS gateway (BENCH_PORTKEY_VERSION, default 1.15.2; BENCH_PORTKEY_PINS) and the LiteLLM proxy
 * (BENCH_LITELLM_VERSION, default 1.100.5; BENCH_PYTHON), installed before anything is pinned into a
 * cache under the OS temporary directory, started on the servers' CPU, loaded with every case they
 * can serve against the mock (the others print `n/a` with the reason). Their rows sit in the same
 * tables with ratios to the floor and go to the report's `peers` section; idle RSS and CPU are read
 * over their whole process tree; live streams are not measured for them. A peer that cannot be
 * installed or started, or whose case fails, is reported and the bench goes on (exit code unchanged).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CHDB_IDLE_EXIT_MS } from '../../infra/analytics/chdb/chdb-store.ts';
import { BENCH_CASES, BENCH_SHAPES, chatBody, chatHeaders } from './bench-cases.ts';
import { applyBenchKeyLimits, BENCH_ADMIN_TOKEN, buildBenchGatewayConfig } from './bench-gateway-config.ts';
import { formatAdmissionCostTable, measureAdmissionCost } from './measure-admission-cost.ts';
import {
  DEFAULT_CACHE_AFFINITY_SETTINGS,
  formatCacheAffinityTable,
  measureCacheAffinity,
} from './measure-cache-affinity.ts';
import { formatRoutingCostTable, measureRoutingCost } from './measure-routing-cost.ts';
import { measureTimeToFirstToken, TTFT_CHUNK_DELAY_MS } from './measure-time-to-first-token.ts';
import {
  buildBenchRows,
  formatBenchTables,
  formatTimeToFirstTokenTable,
  judgeTimeToFirstToken,
  formatFootprintTable,
  formatUnmeasuredNotes,
  formatVerdicts,
  judgeBenchTargets,
  type BenchReport,
  type BenchReportSettings,
  type BenchRow,
  type PeerFootprint,
  type PeerReport,
  type ServerFootprint,
  type ShapeCpuProfile,
  type UnmeasuredRow,
} from './format-bench-report.ts';
import { formatCpuBreakdown, profileServerCpu } from './profile-server-cpu.ts';
import { ticksPerSecond } from './read-process-usage.ts';
import { formatPipelineTable, roundPipelineReport } from './format-pipeline-report.ts';
import { measureIdle, measureLiveStreams } from './measure-server-footprint.ts';
import { measureScalingSweep, type ScalingSweepSettings, type SweepServers } from './measure-scaling-sweep.ts';
import { formatScalingSweepTable, judgeScalingSweep } from './format-scaling-sweep.ts';
import { isPeerTarget } from './peers/peer-cases.ts';
import { peerGateways } from './peers/peer-gateways.ts';
import {
  installPeers,
  peerCaseEntries,
  peerFailureReason,
  peerGatewayReports,
  runningPeerServers,
  startPeers,
  stopPeers,
  type PeerRun,
} from './peers/run-peers.ts';
import {
  runBenchCase,
  runInterleavedCases,
  warmServers,
  type BenchServers,
  type BenchSettings,
  type CaseMeasurement,
} from './run-bench-case.ts';
import { runPipelineBench, type PipelineBenchSettings } from './run-pipeline-bench.ts';
import { readSoakSettings, runSoak, SoakOptionsError } from './run-soak.ts';
import { killBenchServers, spawnBenchServer, type BenchServerHandle } from './spawn-bench-server.ts';
import {
  BENCH_DIST_DIR,
  benchRuntimeFromEnv,
  BenchRuntimeError,
  prepareBenchRuntime,
  type BenchBuild,
  type BenchRuntime,
} from './bench-runtime.ts';
import { measureStartUp, type StartUpReport } from './measure-start-up.ts';
import { formatStartUpTable } from './format-start-up-table.ts';
import { isDistFresh } from '../../infra/build/ensure-dist.mjs';
import { spawnEmbeddedGateway, type EmbeddedGateway } from './spawn-embedded-gateway.ts';
import { withoutEngineVariables } from '../support/spawn-gateway.ts';

const REPORT_DIR = fileURLToPath(new URL('../../test-artifacts/bench/', import.meta.url));

/** Slices of the measured duration per case at one connection, the servers taking turns (run-bench-case.ts, runInterleavedCases). */
const ONE_CONNECTION_SLICES = 8;

/** Rounds of such slices run before them and not counted (runInterleavedCases, `discardedRounds`). */
const ONE_CONNECTION_DISCARDED_ROUNDS = 3;

/**
 * Slices of the measured duration per case under load (BENCH_CONNECTIONS), the servers of a shape
 * taking turns as at one connection. A CPU ratio of two servers measured one after the other
 * also measures how the machine drifted between them: on the 2-CPU machine of the README's table,
 * sixteen 8 s runs of the floor on non-streamed Chat over one hour read 160–209 µs a request.
 */
const LOADED_SLICES = 4;

/** Sequential streams timed per server and streamed shape for time to first token. */
const TIME_TO_FIRST_TOKEN_REQUESTS = 600;

/** Raised for invalid BENCH_* variables (exit code 2). */
class BenchSettingsError extends Error {}

function readNumber(
  env: NodeJS.ProcessEnv,
  name: string,
  fallback: number,
  valid: (n: number) => boolean,
  rule: string,
): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || !valid(value))
    throw new BenchSettingsError(`${name}: expected ${rule}, got ${JSON.stringify(raw)}`);
  return value;
}

/** Where the servers and the load generator run: CPU lists for taskset, or none. */
interface CpuPlacement {
  /** CPU list of the measured servers (floor, gateway alone, embedded). */
  readonly servers?: string;
  /** CPU list of the mock and of this process (the load generator). */
  readonly loadGenerator?: string;
  readonly description: string;
}

/** Everything read from BENCH_* variables for the HTTP part. */
interface RunSettings extends BenchSettings {
  readonly liveStreams: number;
  readonly liveStreamChunkMs: number;
  readonly idleSettleS: number;
  readonly idleCpuWindowS: number;
  /** BENCH_PROFILE_S: seconds profiled per server and shape (0: no profiles). */
  readonly profileS: number;
  /** BENCH_PIN: `0` never, `1` always (taskset required), `auto`. */
  readonly pin: '0' | '1' | 'auto';
}

/** Reads the settings from BENCH_* variables. @throws BenchSettingsError naming the variable */
function readBenchSettings(env: NodeJS.ProcessEnv): RunSettings {
  const pin = env.BENCH_PIN?.trim() || 'auto';
  if (pin !== '0' && pin !== '1' && pin !== 'auto')
    throw new BenchSettingsError(`BENCH_PIN: expected 0 or 1, got ${JSON.stringify(env.BENCH_PIN)}`);
  return {
    durationS: readNumber(env, 'BENCH_DURATION_S', 8, (n) => n > 0, 'a number of seconds > 0'),
    warmupS: readNumber(env, 'BENCH_WARMUP_S', 2, (n) => n >= 0, 'a number of seconds >= 0'),
    serverWarmupS: readNumber(env, 'BENCH_SERVER_WARMUP_S', 20, (n) => n >= 0, 'a number of seconds >= 0'),
    connections: readNumber(env, 'BENCH_CONNECTIONS', 32, (n) => Number.isInteger(n) && n >= 1, 'an integer >= 1'),
    liveStreams: readNumber(env, 'BENCH_LIVE_STREAMS', 10_000, (n) => Number.isInteger(n) && n >= 1, 'an integer >= 1'),
    liveStreamChunkMs: readNumber(
      env,
      'BENCH_LIVE_STREAM_CHUNK_MS',
      10_000,
      (n) => Number.isInteger(n) && n >= 1000,
      'an integer number of ms >= 1000',
    ),
    idleSettleS: readNumber(env, 'BENCH_IDLE_SETTLE_S', 10, (n) => n >= 0, 'a number of seconds >= 0'),
    idleCpuWindowS: readNumber(env, 'BENCH_IDLE_CPU_S', 10, (n) => n > 0, 'a number of seconds > 0'),
    profileS: readNumber(env, 'BENCH_PROFILE_S', 4, (n) => n >= 0, 'a number of seconds >= 0 (0 skips the profiles)'),
    pin,
  };
}

/** The pipeline case's settings, or null with BENCH_PIPELINE=0. @throws BenchSettingsError naming the variable */
function readPipelineSettings(env: NodeJS.ProcessEnv, settings: BenchSettings): PipelineBenchSettings | null {
  const enabled = env.BENCH_PIPELINE?.trim() ?? '1';
  if (enabled !== '0' && enabled !== '1' && enabled !== '')
    throw new BenchSettingsError(`BENCH_PIPELINE: expected 0 or 1, got ${JSON.stringify(env.BENCH_PIPELINE)}`);
  if (enabled === '0') return null;
  return {
    requests: readNumber(env, 'BENCH_PIPELINE_REQUESTS', 2000, (n) => Number.isInteger(n) && n >= 1, 'an integer >= 1'),
    concurrency: settings.connections,
    timeoutS: readNumber(env, 'BENCH_PIPELINE_TIMEOUT_S', 120, (n) => n > 0, 'a number of seconds > 0'),
    backlogRequests: readNumber(
      env,
      'BENCH_PIPELINE_BACKLOG',
      5000,
      (n) => Number.isInteger(n) && n >= 0,
      'an integer >= 0',
    ),
  };
}

/** The scaling sweep's settings, or null with BENCH_SWEEP=0. @throws BenchSettingsError naming the variable */
function readSweepSettings(env: NodeJS.ProcessEnv): ScalingSweepSettings | null {
  const enabled = env.BENCH_SWEEP?.trim() ?? '1';
  if (enabled !== '0' && enabled !== '1' && enabled !== '')
    throw new BenchSettingsError(`BENCH_SWEEP: expected 0 or 1, got ${JSON.stringify(env.BENCH_SWEEP)}`);
  if (enabled === '0') return null;
  const integer = (name: string, fallback: number, min: number): number =>
    readNumber(env, name, fallback, (n) => Number.isInteger(n) && n >= min, `an integer >= ${min}`);
  return {
    requests: integer('BENCH_SWEEP_REQUESTS', 3000, 1),
    warmupRequests: integer('BENCH_SWEEP_WARMUP_REQUESTS', 1000, 0),
    connections: integer('BENCH_SWEEP_CONNECTIONS', 8, 1),
    maxStreams: integer('BENCH_SWEEP_MAX_STREAMS', 10_000, 1),
  };
}

/** The start-up table's settings, or null with BENCH_STARTUP_RUNS=0. @throws BenchSettingsError naming the variable */
function readStartUpSettings(env: NodeJS.ProcessEnv): { runs: number; settleS: number } | null {
  const runs = readNumber(env, 'BENCH_STARTUP_RUNS', 3, (n) => Number.isInteger(n) && n >= 0, 'an integer >= 0');
  if (runs === 0) return null;
  return { runs, settleS: readNumber(env, 'BENCH_STARTUP_SETTLE_S', 5, (n) => n >= 0, 'a number of seconds >= 0') };
}

/**
 * Decides the CPU placement and pins this process (all its threads) to the load generator's CPU.
 * @throws BenchSettingsError with BENCH_PIN=1 when taskset is missing or there is one CPU
 */
function placeOnCpus(pin: RunSettings['pin']): CpuPlacement {
  const notPinned: CpuPlacement = { description: 'not pinned: load generator, mock and servers share every CPU' };
  if (pin === '0') return notPinned;
  const hasTaskset = spawnSync('taskset', ['-V'], { stdio: 'ignore' }).status === 0;
  if (!hasTaskset || cpus().length < 2) {
    if (pin === '1')
      throw new BenchSettingsError(`BENCH_PIN=1: ${hasTaskset ? 'needs at least 2 CPUs' : 'taskset is not installed'}`);
    return notPinned;
  }
  execFileSync('taskset', ['-a', '-p', '-c', '0', String(process.pid)], { stdio: 'ignore' });
  return {
    servers: '1',
    loadGenerator: '0',
    description: 'pinned with taskset: each measured server on CPU 1, load generator and mock on CPU 0',
  };
}

/** Lets this process (all its threads) run on every CPU again, so later children (the pipeline case's) are not confined to CPU 0. */
function releaseCpus(placement: CpuPlacement): void {
  if (placement.loadGenerator === undefined) return;
  execFileSync('taskset', ['-a', '-p', '-c', `0-${cpus().length - 1}`, String(process.pid)], { stdio: 'ignore' });
}

function writeReport(report: BenchReport): void {
  mkdirSync(REPORT_DIR, { recursive: true });
  writeFileSync(`${REPORT_DIR}latest.json`, `${JSON.stringify(report, null, 2)}\n`);
}

/** Runs the pipeline case, prints its table and notes, and returns the report with it added. */
async function addPipeline(
  report: BenchReport,
  mock: BenchServerHandle,
  settings: PipelineBenchSettings,
): Promise<BenchReport> {
  process.stdout.write(
    `\nPipeline: ${settings.requests} requests through a gateway publishing events, consumers into ClickHouse …\n`,
  );
  const pipeline = roundPipelineReport(await runPipelineBench(mock.origin, settings));
  process.stdout.write(
    `\n${formatPipelineTable(pipeline)}\n\n` +
      'events/s, rows/s: published events (RequestCompleted + UsageRecorded + FailoverOccurred) and consumption_log rows of the measured\n' +
      `requests / wall time from the first measured request to the poll (every ${pipeline.pollIntervalMs} ms) that saw the last row. When the last row\n` +
      "follows the last answer closely, the pipeline kept up and these rates are bounded by the gateway's request rate, not by the consumers.\n" +
      "consumer events/s (backlog): consumers process stopped, the backlog's events flushed into Kafka, process started again; backlog events / time\n" +
      'from its "consumers running" to the poll that saw every backlog row in consumption_log and billing_lines and the key\'s spend counter final.\n' +
      'lag: ingested_at_ms − occurred_at_ms per row: request end in the gateway → the ledger consumer building its batch insert.\n' +
      'Consumers run as their own process with KAFKA_BROKERS and CLICKHOUSE_URL set (ClickHouse read over HTTP); otherwise inside the\n' +
      'gateway child, as npm start does in embedded mode (chdb allows one process per data dir, so that child answers the queries).\n' +
      "Redis bytes/keys per 1,000 requests: growth of the run's keys (SCAN of its key prefix, sum of MEMORY USAGE … SAMPLES 0) from after the\n" +
      'warm-up to after the measured phase, each taken once billing_lines held every line and the keys stopped changing for 1 s; per kind\n' +
      'of key below it. MEMORY USAGE leaves out the expires-dictionary entry of keys with a TTL and allocator overhead. health:ok/fail hold\n' +
      'the ids of the last 60 s of observations, so they grow with the requests of a short run but not past the window.\n' +
      'The pipeline case runs its own gateway; the HTTP cases above are not part of it.\n',
  );
  return { ...report, pipeline };
}

/** The children of a run, and the gateway child's data directory. */
interface StartedServers {
  readonly mock: BenchServerHandle;
  readonly floor: BenchServerHandle;
  readonly gateway: BenchServerHandle;
  readonly embedded: EmbeddedGateway;
  readonly gatewayDataDir: string;
}

/** The environment of the gateway-alone child: embedded engines only, events on, consumers elsewhere. */
function gatewayAloneEnv(dataDir: string, configFile: string): NodeJS.ProcessEnv {
  return {
    ...withoutEngineVariables(process.env, ['BENCH_GATEWAY_CONSUMERS']),
    BENCH_GATEWAY_EVENTS: '1',
    BENCH_GATEWAY_CONFIG_FILE: configFile,
    TOLLGATE_DATA_DIR: join(dataDir, 'data'),
    TOLLGATE_ADMIN_TOKEN: BENCH_ADMIN_TOKEN,
  };
}

/** Data directories to remove when this process exits. */
const dataDirs = new Set<string>();

async function startServers(placement: CpuPlacement): Promise<StartedServers> {
  const mock = await spawnBenchServer('mock', [], 30_000, process.env, placement.loadGenerator);
  const floor = await spawnBenchServer('floor', [mock.origin], 30_000, process.env, placement.servers);
  const config = buildBenchGatewayConfig(mock.origin);
  const gatewayDataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-gateway-'));
  dataDirs.add(gatewayDataDir);
  const configFile = join(gatewayDataDir, 'tollgate-config.json');
  writeFileSync(configFile, JSON.stringify(config));
  const gateway = await spawnBenchServer(
    'gateway',
    [mock.origin],
    120_000,
    gatewayAloneEnv(gatewayDataDir, configFile),
    placement.servers,
  );
  const embedded = await spawnEmbeddedGateway(config, placement.servers);
  dataDirs.add(embedded.dataDir);
  await applyBenchKeyLimits(gateway.origin);
  await applyBenchKeyLimits(embedded.origin);
  return { mock, floor, gateway, embedded, gatewayDataDir };
}

/** A floor and a gateway alone (same setups as startServers) against the scaling sweep's upstream. */
async function startSweepServers(placement: CpuPlacement, upstreamOrigin: string): Promise<SweepServers> {
  const floor = await spawnBenchServer('floor', [upstreamOrigin], 30_000, process.env, placement.servers);
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-sweep-'));
  dataDirs.add(dataDir);
  const configFile = join(dataDir, 'tollgate-config.json');
  writeFileSync(configFile, JSON.stringify(buildBenchGatewayConfig(upstreamOrigin)));
  const gateway = await spawnBenchServer(
    'gateway',
    [upstreamOrigin],
    120_000,
    gatewayAloneEnv(dataDir, configFile),
    placement.servers,
  );
  await applyBenchKeyLimits(gateway.origin);
  return {
    floor,
    gateway,
    stop: async () => {
      floor.stop();
      gateway.stop();
      await Promise.all([floor.exited, gateway.exited]);
      rmSync(dataDir, { recursive: true, force: true });
      dataDirs.delete(dataDir);
    },
  };
}

/**
 * The start-up table: the embedded server and a gateway alone (the setups of startServers, each
 * start in a fresh data directory, on the servers' CPU) against the running mock, tsx and compiled.
 */
async function measureStartUpTable(
  placement: CpuPlacement,
  mock: BenchServerHandle,
  settings: { runs: number; settleS: number },
  benchBuild: BenchBuild | undefined,
): Promise<StartUpReport> {
  const config = buildBenchGatewayConfig(mock.origin);
  return measureStartUp({
    runs: settings.runs,
    settleS: settings.settleS,
    ...(benchBuild ? { benchBuild } : {}),
    log: (text) => process.stdout.write(text),
    launcherCheck: async () => isDistFresh().checkMs,
    starters: {
      embedded: async (runtime: BenchRuntime) => {
        const embedded = await spawnEmbeddedGateway(config, placement.servers, 120_000, runtime);
        dataDirs.add(embedded.dataDir);
        return {
          pid: embedded.pid,
          stop: async () => {
            await embedded.stop();
            dataDirs.delete(embedded.dataDir);
          },
        };
      },
      gateway: async (runtime: BenchRuntime) => {
        const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-start-up-'));
        dataDirs.add(dataDir);
        const configFile = join(dataDir, 'tollgate-config.json');
        writeFileSync(configFile, JSON.stringify(config));
        const gateway = await spawnBenchServer(
          'gateway',
          [mock.origin],
          120_000,
          gatewayAloneEnv(dataDir, configFile),
          placement.servers,
          runtime,
        );
        return {
          pid: gateway.pid,
          stop: async () => {
            gateway.stop();
            await gateway.exited;
            rmSync(dataDir, { recursive: true, force: true });
            dataDirs.delete(dataDir);
          },
        };
      },
    },
  });
}

async function stopServers(started: StartedServers): Promise<void> {
  started.floor.stop();
  started.gateway.stop();
  await started.embedded.stop();
  dataDirs.delete(started.embedded.dataDir);
  await Promise.all([started.floor.exited, started.gateway.exited]);
  rmSync(started.gatewayDataDir, { recursive: true, force: true });
  dataDirs.delete(started.gatewayDataDir);
}

const loadAverage1m = (): number => Number((loadavg()[0] ?? 0).toFixed(2));

function describeMachine(): BenchReport['machine'] {
  return {
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    loadAverage1mAtStart: loadAverage1m(),
    loadAverage1mAtEnd: loadAverage1m(),
    node: process.version,
  };
}

/**
 * Profiles the floor and the gateway alone under each shape at the loaded level (profile-server-cpu.ts):
 * 1 s of warm-up, then `settings.profileS` s profiled.
 */
async function profileShapes(started: StartedServers, settings: RunSettings): Promise<ShapeCpuProfile[]> {
  process.stdout.write(`\nWhere the CPU goes: ${settings.profileS} s profiled per server and shape …\n`);
  const profiles: ShapeCpuProfile[] = [];
  for (const shape of BENCH_SHAPES) {
    const breakdown = (server: BenchServerHandle) =>
      profileServerCpu({
        pid: server.pid,
        controlOrigin: server.controlOrigin,
        url: `${server.origin}${shape.path}`,
        headers: shape.headers,
        body: shape.body,
        seconds: settings.profileS,
        warmupS: 1,
        clockTicksPerSecond: ticksPerSecond(),
      });
    profiles.push({
      shape: shape.id,
      label: shape.label,
      floor: await breakdown(started.floor),
      gateway: await breakdown(started.gateway),
    });
  }
  return profiles;
}

/** The measured cases, and the peer cases without figures (n/a, failed, not run). */
interface Measured {
  readonly measurements: CaseMeasurement[];
  readonly unmeasured: UnmeasuredRow[];
}

/**
 * Every case at every connection level, loaded level first; per shape, the bench's four targets
 * then each peer's case (`peers`: empty without --peers). A peer case that fails is recorded, not thrown.
 */
async function measureAll(
  servers: BenchServers,
  settings: BenchSettings,
  levels: ReadonlyArray<number>,
  peers: ReadonlyArray<PeerRun>,
): Promise<Measured> {
  const measurements: CaseMeasurement[] = [];
  const unmeasured: UnmeasuredRow[] = [];
  const warmed = [
    ...BENCH_CASES.filter((c) => c.target !== 'mock'),
    ...BENCH_SHAPES.flatMap((shape) =>
      peerCaseEntries(shape, peers, servers.mock.origin).flatMap((entry) =>
        'unmeasured' in entry ? [] : [entry.benchCase],
      ),
    ),
  ];
  if ((settings.serverWarmupS ?? 0) > 0) {
    process.stdout.write(
      `Warming every server: each of its cases for ${settings.serverWarmupS} s at ${levels[0]} connections …\n`,
    );
    await warmServers(warmed, servers, settings, levels[0] ?? settings.connections);
  }
  for (const connections of levels) {
    process.stdout.write(`${connections} connection${connections === 1 ? '' : 's'}:\n`);
    for (const shape of BENCH_SHAPES) {
      const shapeCases = BENCH_CASES.filter((c) => c.shape === shape.id);
      // The servers of a shape take turns: the tail at one connection and the CPU per request under
      // load are compared across them. At one connection the embedded server takes its turns apart,
      // after the others': its consumers and analytics engine go on working after a slice, on the
      // same CPU (ClickHouse merges inserted parts in the background, later than settling can
      // wait for), and that work landed in the others' slices and their p99.
      const slices = connections === 1 ? ONE_CONNECTION_SLICES : LOADED_SLICES;
      const discarded = connections === 1 ? ONE_CONNECTION_DISCARDED_ROUNDS : 0;
      const groups =
        connections === 1
          ? [shapeCases.filter((c) => c.target !== 'embedded'), shapeCases.filter((c) => c.target === 'embedded')]
          : [shapeCases];
      for (const group of groups.filter((g) => g.length > 0)) {
        process.stdout.write(
          `  ${group.map((c) => c.target).join(', ')}: ${shape.label}, ${discarded > 0 ? `${discarded} + ` : ''}${slices} ${group.length > 1 ? 'interleaved ' : ''}slices${discarded > 0 ? ` (the first ${discarded} not counted)` : ''} … `,
        );
        const interleaved = await runInterleavedCases(group, servers, settings, connections, slices, discarded);
        process.stdout.write(`${interleaved.map((m) => m.load.requestsPerSecond.toFixed(0)).join(', ')} req/s\n`);
        measurements.push(...interleaved);
      }
      for (const entry of peerCaseEntries(shape, peers, servers.mock.origin)) {
        if ('unmeasured' in entry) {
          process.stdout.write(
            `  ${entry.unmeasured.target.padEnd(8)} ${entry.unmeasured.label} … ${entry.unmeasured.status}\n`,
          );
          unmeasured.push({ ...entry.unmeasured, connections });
          continue;
        }
        const peerCase = entry.benchCase;
        process.stdout.write(`  ${peerCase.target.padEnd(8)} ${peerCase.label} … `);
        try {
          const measurement = await runBenchCase(peerCase, servers, settings, connections);
          process.stdout.write(`${measurement.load.requestsPerSecond.toFixed(0)} req/s\n`);
          measurements.push(measurement);
        } catch (error) {
          const reason = peerFailureReason(
            peers.find((p) => p.gateway.target === peerCase.target),
            error,
          );
          process.stdout.write(`FAILED: ${reason}\n`);
          unmeasured.push({
            id: peerCase.id,
            label: peerCase.label,
            target: peerCase.target,
            shape: peerCase.shape,
            connections,
            status: 'failed',
            reason,
          });
        }
      }
    }
  }
  return { measurements, unmeasured };
}

const roundOrNull = (value: number | null): number | null => (value === null ? null : Number(value.toFixed(1)));

/** The footprints of the bench's servers and of the running peers (idle only). */
interface Footprints {
  readonly servers: ServerFootprint[];
  readonly peers: PeerFootprint[];
}

/** Open file descriptors of a process (its sockets included), from /proc. */
function openFileCount(pid: number): number {
  return readdirSync(`/proc/${pid}/fd`).length;
}

/**
 * Waits (at most `timeoutMs`) until `pid` holds at most `limit` open files: the mock closes a
 * stream's socket only at its next chunk write after the proxy went away (up to a chunk delay
 * later), and the streams of the previous server must not eat the next one's descriptors.
 */
async function waitForOpenFiles(pid: number, limit: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (openFileCount(pid) > limit && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
}

/**
 * Idle RSS and CPU of the three servers and the running peers at once — once the embedded
 * server's analytics engine stopped after its idle time, then after the idle settle time — then
 * each server's live-stream RSS in turn (not the peers').
 */
async function measureFootprints(
  started: StartedServers,
  settings: RunSettings,
  peers: ReadonlyArray<PeerRun>,
): Promise<Footprints> {
  const servers = { floor: started.floor, gateway: started.gateway, embedded: started.embedded } as const;
  const peerPids = Object.fromEntries(
    Object.entries(runningPeerServers(peers)).map(([target, server]) => [target, server.pid]),
  );
  process.stdout.write(`\nIdle: the embedded server's analytics engine stopping after its idle time …\n`);
  await servers.embedded.engineStopped();
  process.stdout.write(`Idle: RSS after ${settings.idleSettleS} s, CPU over ${settings.idleCpuWindowS} s …\n`);
  const idle = await measureIdle(
    { floor: servers.floor.pid, gateway: servers.gateway.pid, embedded: servers.embedded.pid, ...peerPids },
    settings.idleSettleS,
    settings.idleCpuWindowS,
  );
  const peerFootprints: PeerFootprint[] = Object.keys(peerPids)
    .filter(isPeerTarget)
    .map((target) => ({
      target,
      idleRssMb: Number(((idle[target]?.idleRssBytes ?? 0) / 1024 / 1024).toFixed(1)),
      idleCpuPercent: Number((idle[target]?.idleCpuPercent ?? 0).toFixed(3)),
    }));
  await stopPeers(peers); // no peer runs while the servers' live streams are measured
  const footprints: ServerFootprint[] = [];
  const mockQuietFds = openFileCount(started.mock.pid);
  for (const target of ['floor', 'gateway', 'embedded'] as const) {
    await waitForOpenFiles(started.mock.pid, mockQuietFds + 64, 60_000);
    process.stdout.write(
      `  ${target}: opening ${settings.liveStreams} live streams (upstream chunk every ${settings.liveStreamChunkMs} ms) … `,
    );
    const liveStreams = await measureLiveStreams({
      url: `${servers[target].origin}/v1/chat/completions`,
      headers: chatHeaders,
      body: chatBody(true, `Hello there [mock:slow=${settings.liveStreamChunkMs}]`),
      count: settings.liveStreams,
      chunkDelayMs: settings.liveStreamChunkMs,
      pid: servers[target].pid,
    });
    process.stdout.write(
      `${liveStreams.reached} open in ${liveStreams.openSeconds.toFixed(1)} s${liveStreams.failed > 0 ? `, ${liveStreams.failed} failed (first: ${liveStreams.firstError ?? 'unknown'})` : ''}` +
        `${liveStreams.notMeasuredReason ? `; RSS per stream not measured: ${liveStreams.notMeasuredReason}` : ''}\n`,
    );
    const figures = idle[target];
    footprints.push({
      target,
      idleRssMb: Number(((figures?.idleRssBytes ?? 0) / 1024 / 1024).toFixed(1)),
      idleCpuPercent: Number((figures?.idleCpuPercent ?? 0).toFixed(3)),
      liveStreams: {
        ...liveStreams,
        kbPerStream: roundOrNull(liveStreams.kbPerStream),
        kbPerHeldRequest: roundOrNull(liveStreams.kbPerHeldRequest),
      },
    });
  }
  return { servers: footprints, peers: peerFootprints };
}

function printNotes(report: BenchReport): void {
  process.stdout.write(
    '\nLatency: from request write to the last byte of the answer (whole stream when streamed), ms.\n' +
      "+p50: the case's p50 minus the direct case's (same shape, same connections); floor +p50: the floor proxy's; +p50 vs floor: the difference.\n" +
      "CPU: process CPU time (user + system, all threads, child processes included) of the server during the measured run, per request, from /proc; direct rows: the mock's.\n" +
      "× floor CPU: that CPU per request / the floor proxy's for the same request shape and connections.\n" +
      `Servers ran ${report.settings.runtime === 'tsx' ? 'on tsx (BENCH_TSX=1)' : 'compiled (Node on the bench build)'}. ` +
      `Idle: RSS of the server's whole process tree after ${report.settings.idleSettleS} s without traffic (the embedded server's counted from its analytics engine's stop, ${DEFAULT_CHDB_IDLE_EXIT_MS / 1000} s after its last query), CPU over the next ${report.settings.idleCpuWindowS} s. Live streams: streamed requests whose upstream waits ` +
      `${report.settings.liveStreamChunkMs} ms before each chunk, open = first byte received; KB per stream = (RSS open − RSS before) / open streams, not measured when fewer than 90 % opened or the RSS did not grow.\n` +
      `${report.settings.pinning}. ${report.machine.cpus} CPUs, 1-min load average ${report.machine.loadAverage1mAtStart} at start, ${report.machine.loadAverage1mAtEnd} at end ` +
      '(other work on the machine skews every figure); under saturation the added latency includes queueing; the 1-connection table shows the unloaded cost.\n',
  );
}

/** Lines under the tables about the peers: each one's version and status, its notes, and the reasons of rows without figures. */
function printPeerNotes(peers: PeerReport): void {
  const lines = peers.gateways.map(
    (g) =>
      `  ${g.name} ${g.version} (${g.spec}): ${g.status === 'measured' ? `installed in ${g.installDir ?? '?'}${g.cached ? ', reused' : ''}` : `${g.status}: ${g.error ?? ''}`}`,
  );
  const notes = peers.gateways.flatMap((g) => (g.status === 'measured' ? g.notes.map((n) => `  ${n}`) : []));
  const unmeasured = formatUnmeasuredNotes(peers.unmeasured);
  process.stdout.write(
    `\nPeers (same mock, same CPU as the servers; CPU and RSS of each peer's whole process tree; routed to the mock's OpenAI-compatible API):\n${[...lines, ...notes].join('\n')}\n` +
      (unmeasured ? `Peer cases without figures:\n${unmeasured}\n` : ''),
  );
}

/** Runs the bench; resolves to the exit code (1 when the cache-affinity case FAILs, else 0). */
async function main(withPeers: boolean): Promise<number> {
  const settings = readBenchSettings(process.env);
  const pipelineSettings = readPipelineSettings(process.env, settings);
  const sweepSettings = readSweepSettings(process.env);
  const startUpSettings = readStartUpSettings(process.env);
  const runtime = benchRuntimeFromEnv(process.env);
  // The bench build (and the installs) run before this process is pinned, so they use every CPU.
  const benchBuild = await prepareBenchRuntime(
    runtime,
    (line) => process.stdout.write(`${line}\n`),
    runtime === 'compiled' || startUpSettings !== null,
  );
  const installedPeers = withPeers
    ? await installPeers(peerGateways(process.env), (text) => process.stdout.write(text))
    : [];
  const placement = placeOnCpus(settings.pin);
  const machine = describeMachine();
  const levels = [...new Set([settings.connections, 1])];
  process.stdout.write(
    `Tollgate load benchmark: ${levels.join(' and ')} connections, ${settings.warmupS} s warm-up + ${settings.durationS} s per case; ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}; ${placement.description}\n` +
      `Servers run ${runtime === 'compiled' ? `compiled (Node on ${BENCH_DIST_DIR})` : 'on tsx (BENCH_TSX=1: node --import tsx over the sources)'}\n`,
  );
  const started = await startServers(placement);
  let peers: PeerRun[] = [];
  if (withPeers) {
    const runDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-peers-'));
    dataDirs.add(runDir);
    peers = await startPeers(
      installedPeers,
      {
        mockOrigin: started.mock.origin,
        ...(placement.servers === undefined ? {} : { cpuList: placement.servers }),
        runDir,
      },
      (text) => process.stdout.write(text),
    );
  }
  const servers: BenchServers = {
    mock: started.mock,
    floor: started.floor,
    gateway: started.gateway,
    embedded: started.embedded,
    ...runningPeerServers(peers),
  };
  const { measurements, unmeasured } = await measureAll(servers, settings, levels, peers);
  process.stdout.write(
    `\nTime to first token: ${TIME_TO_FIRST_TOKEN_REQUESTS} sequential streams per server and shape, the servers interleaved in random order, upstream chunk every ${TTFT_CHUNK_DELAY_MS} ms …\n`,
  );
  const timeToFirstToken = await measureTimeToFirstToken(servers, TIME_TO_FIRST_TOKEN_REQUESTS);
  const { servers: footprints, peers: peerFootprints } = await measureFootprints(started, settings, peers);
  // After the idle and live-stream figures, which the profiler's own memory and threads would skew.
  const cpuProfile = settings.profileS > 0 ? await profileShapes(started, settings) : undefined;
  process.stdout.write('\nAdmission CPU per request, in this process on the in-memory state …\n');
  const admission = await measureAdmissionCost();
  process.stdout.write('Routing CPU per request, in this process …\n');
  const routing = await measureRoutingCost();
  process.stdout.write('Prompt-cache hit rate of agent sessions by routing, gateways in this process …\n');
  const redisUrl = process.env.REDIS_URL?.trim();
  const cacheAffinity = await measureCacheAffinity({
    ...DEFAULT_CACHE_AFFINITY_SETTINGS,
    ...(redisUrl ? { redisUrl } : {}),
  });
  await stopPeers(peers);
  const allRows = buildBenchRows(measurements);
  const rows = allRows.filter((r) => !isPeerTarget(r.target));
  const peerRows: BenchRow[] = allRows.filter((r) => isPeerTarget(r.target));
  const peerReport: PeerReport | undefined = withPeers
    ? { gateways: peerGatewayReports(peers), rows: peerRows, unmeasured, footprints: peerFootprints }
    : undefined;
  const reportSettings: BenchReportSettings = {
    durationS: settings.durationS,
    warmupS: settings.warmupS,
    serverWarmupS: settings.serverWarmupS,
    connections: settings.connections,
    connectionLevels: levels,
    liveStreams: settings.liveStreams,
    liveStreamChunkMs: settings.liveStreamChunkMs,
    idleSettleS: settings.idleSettleS,
    idleCpuWindowS: settings.idleCpuWindowS,
    pinning: placement.description,
    runtime,
  };
  const httpReport: BenchReport = {
    generatedAt: new Date().toISOString(),
    machine: { ...machine, loadAverage1mAtEnd: loadAverage1m() },
    settings: reportSettings,
    rows,
    footprints,
    verdicts: [
      ...judgeBenchTargets(rows, footprints, settings.connections),
      ...judgeTimeToFirstToken(timeToFirstToken),
    ],
    timeToFirstToken,
    admission,
    routing,
    cacheAffinity,
    ...(cpuProfile ? { cpuProfile } : {}),
    ...(peerReport ? { peers: peerReport } : {}),
  };
  await stopServers(started);
  let report = httpReport;
  if (startUpSettings) {
    process.stdout.write(
      `\nStart-up: ${startUpSettings.runs} starts per server on tsx and compiled, RSS ${startUpSettings.settleS} s after ready …\n`,
    );
    report = { ...report, startUp: await measureStartUpTable(placement, started.mock, startUpSettings, benchBuild) };
  }
  if (sweepSettings) {
    process.stdout.write(
      `\nScaling sweep: ${sweepSettings.warmupRequests} + ${sweepSettings.requests} requests per point and server …\n`,
    );
    const scalingSweep = await measureScalingSweep(
      sweepSettings,
      (origin) => startSweepServers(placement, origin),
      (text) => process.stdout.write(text),
    );
    report = { ...report, scalingSweep, verdicts: [...report.verdicts, ...judgeScalingSweep(scalingSweep)] };
  }
  process.stdout.write(
    `\n${formatBenchTables([...report.rows, ...peerRows], unmeasured)}\n\nTime to first token (from sending to the first event carrying text; +p50 over the direct row):\n${formatTimeToFirstTokenTable(timeToFirstToken)}\n\n${formatFootprintTable(report.footprints, peerFootprints)}\n`,
  );
  process.stdout.write(
    `Admission CPU per request (quotas, limits, attribution, budgets; in-memory state, no network):\n${formatAdmissionCostTable(admission)}\n\n`,
  );
  process.stdout.write(
    `Routing CPU per request (4 channels in one tier; in-process, no network):\n${formatRoutingCostTable(routing)}\n\n`,
  );
  process.stdout.write(
    `Prompt-cache hit rate by routing (${cacheAffinity.pass ? 'every case with affinity ≥' : 'FAIL: a case with affinity <'} ${cacheAffinity.target * 100} % of one channel's):\n${formatCacheAffinityTable(cacheAffinity)}\n\n`,
  );
  if (report.startUp)
    process.stdout.write(
      `Start-up (spawn → ready line, median of ${report.startUp.runs}; RSS of the whole process tree ${report.startUp.settleS} s after ready, idle; × tsx = compiled ÷ tsx):\n${formatStartUpTable(report.startUp)}\n\n`,
    );
  if (report.scalingSweep)
    process.stdout.write(
      `Scaling sweep (CPU per request of each server's process tree, gateway alone ÷ floor; spread = max ratio ÷ min ratio, MET ≤ 1.5×):\n${formatScalingSweepTable(report.scalingSweep)}\n\n`,
    );
  if (report.cpuProfile)
    process.stdout.write(
      `Where the CPU per request goes (request thread by V8's sampling profiler, self time; other threads by name; columns: floor, gateway alone, difference):\n${report.cpuProfile.map((p) => formatCpuBreakdown(p.label, p.floor, p.gateway)).join('\n\n')}\n\n`,
    );
  printNotes(report);
  if (peerReport) printPeerNotes(peerReport);
  process.stdout.write(`\nTargets:\n${formatVerdicts(report.verdicts)}\n`);
  writeReport(report);
  releaseCpus(placement);
  if (pipelineSettings) writeReport(await addPipeline(report, started.mock, pipelineSettings));
  process.stdout.write(`Written to test-artifacts/bench/latest.json\n`);
  started.mock.stop();
  return cacheAffinity.pass ? 0 : 1;
}

function removeDataDirs(): void {
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true });
}

process.on('exit', () => {
  killBenchServers();
  removeDataDirs();
});
process.once('SIGINT', () => {
  killBenchServers();
  process.exit(130);
});
process.once('SIGTERM', () => {
  killBenchServers();
  process.exit(143);
});

const soak = process.argv.includes('--soak');
(soak
  ? Promise.resolve()
      .then(async () => {
        const soakSettings = readSoakSettings(process.argv);
        await prepareBenchRuntime(benchRuntimeFromEnv(process.env), (line) => process.stdout.write(`${line}\n`));
        return runSoak(soakSettings);
      })
      .then((pass) => process.exit(pass ? 0 : 1))
  : main(process.argv.includes('--peers'))
).then(
  (code) => process.exit(code ?? 0),
  (error: unknown) => {
    process.stderr.write(`\nbench failed: ${error instanceof Error ? error.message : String(error)}\n`);
    killBenchServers();
    process.exit(
      error instanceof BenchSettingsError || error instanceof SoakOptionsError || error instanceof BenchRuntimeError
        ? 2
        : 1,
    );
  },
);
