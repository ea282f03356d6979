/**
 * `npm run bench`: Tollgate's load benchmark. Starts the mock upstream and the gateway in two
 * child processes (bench-servers.ts), then, from this process, loads each case of bench-cases.ts
 * with autocannon: a sample answer checked, a warm-up (default 2 s), a measured run (default 8 s,
 * 32 connections). Prints a table (req/s, p50/p99 latency, latency the gateway adds over the
 * direct case, CPU µs per request of the gateway and mock processes) and writes it as JSON to
 * `test-artifacts/bench/latest.json`. Then the pipeline case (run-pipeline-bench.ts): events per
 * second through gateway → event log → consumers → ClickHouse, and the lag from request end to
 * its row (p50, p99), and with REDIS_URL the Redis bytes and keys per 1,000 requests, on the engines
 * the environment names, and — consumers as their own process — the consumers' own events/s draining
 * a backlog; added to the JSON as `pipeline`.
 *
 * Environment: BENCH_DURATION_S (s, > 0), BENCH_WARMUP_S (s, ≥ 0), BENCH_CONNECTIONS (integer ≥ 1);
 * BENCH_PIPELINE (`0` skips the pipeline case), BENCH_PIPELINE_REQUESTS (integer ≥ 1, default 2000),
 * BENCH_PIPELINE_TIMEOUT_S (s, > 0, default 120), BENCH_PIPELINE_BACKLOG (integer ≥ 0, default 5000;
 * 0 skips the backlog); KAFKA_BROKERS, REDIS_URL, CLICKHOUSE_URL.
 * Exit codes: 0 done; 1 a case failed (any non-2xx answer, request error, wrong answer, failed
 * or mis-routed gateway outcome, rows missing) or a server did not start; 2 invalid settings;
 * 130 interrupted.
 * Children are stopped by PID on every exit path.
 *
 * `npm run bench -- --soak [--soak-minutes N …]` (or `npm run bench:soak`) runs the memory soak
 * instead (run-soak.ts): exit code 0 when RSS growth after warm-up stays under its target, 1 otherwise.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { BENCH_CASES } from './bench-cases.ts';
import { buildBenchRows, formatBenchTable, type BenchReport } from './format-bench-report.ts';
import { formatPipelineTable, roundPipelineReport } from './format-pipeline-report.ts';
import { runBenchCase, type BenchServers, type BenchSettings, type CaseMeasurement } from './run-bench-case.ts';
import { runPipelineBench, type PipelineBenchSettings } from './run-pipeline-bench.ts';
import { readSoakSettings, runSoak, SoakOptionsError } from './run-soak.ts';
import { killBenchServers, spawnBenchServer } from './spawn-bench-server.ts';

const REPORT_DIR = fileURLToPath(new URL('../../test-artifacts/bench/', import.meta.url));

/** Raised for invalid BENCH_* variables (exit code 2). */
class BenchSettingsError extends Error {}

function readNumber(env: NodeJS.ProcessEnv, name: string, fallback: number, valid: (n: number) => boolean, rule: string): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || !valid(value)) throw new BenchSettingsError(`${name}: expected ${rule}, got ${JSON.stringify(raw)}`);
  return value;
}

/** Reads the settings from BENCH_* variables. @throws BenchSettingsError naming the variable */
function readBenchSettings(env: NodeJS.ProcessEnv): BenchSettings {
  return {
    durationS: readNumber(env, 'BENCH_DURATION_S', 8, (n) => n > 0, 'a number of seconds > 0'),
    warmupS: readNumber(env, 'BENCH_WARMUP_S', 2, (n) => n >= 0, 'a number of seconds >= 0'),
    connections: readNumber(env, 'BENCH_CONNECTIONS', 32, (n) => Number.isInteger(n) && n >= 1, 'an integer >= 1'),
  };
}

/** The pipeline case's settings, or null with BENCH_PIPELINE=0. @throws BenchSettingsError naming the variable */
function readPipelineSettings(env: NodeJS.ProcessEnv, settings: BenchSettings): PipelineBenchSettings | null {
  const enabled = env.BENCH_PIPELINE?.trim() ?? '1';
  if (enabled !== '0' && enabled !== '1' && enabled !== '') throw new BenchSettingsError(`BENCH_PIPELINE: expected 0 or 1, got ${JSON.stringify(env.BENCH_PIPELINE)}`);
  if (enabled === '0') return null;
  return {
    requests: readNumber(env, 'BENCH_PIPELINE_REQUESTS', 2000, (n) => Number.isInteger(n) && n >= 1, 'an integer >= 1'),
    concurrency: settings.connections,
    timeoutS: readNumber(env, 'BENCH_PIPELINE_TIMEOUT_S', 120, (n) => n > 0, 'a number of seconds > 0'),
    backlogRequests: readNumber(env, 'BENCH_PIPELINE_BACKLOG', 5000, (n) => Number.isInteger(n) && n >= 0, 'an integer >= 0'),
  };
}

function writeReport(report: BenchReport): void {
  mkdirSync(REPORT_DIR, { recursive: true });
  writeFileSync(`${REPORT_DIR}latest.json`, `${JSON.stringify(report, null, 2)}\n`);
}

/** Runs the pipeline case, prints its table and notes, and returns the report with it added. */
async function addPipeline(report: BenchReport, servers: BenchServers, settings: PipelineBenchSettings): Promise<BenchReport> {
  process.stdout.write(`\nPipeline: ${settings.requests} requests through a gateway publishing events, consumers into ClickHouse …\n`);
  const pipeline = roundPipelineReport(await runPipelineBench(servers.mock.origin, settings));
  process.stdout.write(
    `\n${formatPipelineTable(pipeline)}\n\n` +
      'events/s, rows/s: published events (RequestCompleted + UsageRecorded + FailoverOccurred) and consumption_log rows of the measured\n' +
      `requests / wall time from the first measured request to the poll (every ${pipeline.pollIntervalMs} ms) that saw the last row. When the last row\n` +
      'follows the last answer closely, the pipeline kept up and these rates are bounded by the gateway\'s request rate, not by the consumers.\n' +
      'consumer events/s (backlog): consumers process stopped, the backlog\'s events flushed into Kafka, process started again; backlog events / time\n' +
      'from its "consumers running" to the poll that saw every backlog row in consumption_log and billing_lines and the key\'s spend counter final.\n' +
      'lag: ingested_at_ms − occurred_at_ms per row: request end in the gateway → the ledger consumer building its batch insert.\n' +
      'Consumers run as their own process with KAFKA_BROKERS and CLICKHOUSE_URL set (ClickHouse read over HTTP); otherwise inside the\n' +
      'gateway child, as npm start does in embedded mode (chdb allows one process per data dir, so that child answers the queries).\n' +
      'Redis bytes/keys per 1,000 requests: growth of the run\'s keys (SCAN of its key prefix, sum of MEMORY USAGE … SAMPLES 0) from after the\n' +
      'warm-up to after the measured phase, each taken once billing_lines held every line and the keys stopped changing for 1 s; per kind\n' +
      'of key below it. MEMORY USAGE leaves out the expires-dictionary entry of keys with a TTL and allocator overhead. health:ok/fail hold\n' +
      'the ids of the last 60 s of observations, so they grow with the requests of a short run but not past the window.\n' +
      'The HTTP cases above run on a gateway without an event log.\n',
  );
  return { ...report, pipeline };
}

async function startServers(): Promise<BenchServers> {
  const mock = await spawnBenchServer('mock');
  const gateway = await spawnBenchServer('gateway', [mock.origin]);
  return { mock, gateway };
}

const loadAverage1m = (): number => Number((loadavg()[0] ?? 0).toFixed(2));

function describeMachine(): BenchReport['machine'] {
  return { cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown', loadAverage1mAtStart: loadAverage1m(), loadAverage1mAtEnd: loadAverage1m(), node: process.version };
}

async function measureAll(servers: BenchServers, settings: BenchSettings): Promise<CaseMeasurement[]> {
  const measurements: CaseMeasurement[] = [];
  for (const benchCase of BENCH_CASES) {
    process.stdout.write(`  ${benchCase.label} … `);
    const measurement = await runBenchCase(benchCase, servers, settings);
    process.stdout.write(`${measurement.load.requestsPerSecond.toFixed(0)} req/s\n`);
    measurements.push(measurement);
  }
  return measurements;
}

function printNotes(report: BenchReport): void {
  process.stdout.write(
    '\nLatency: from request write to the last byte of the answer (whole stream when streamed), ms.\n' +
      '+p50/+p99: gateway case minus its direct baseline (chat rows vs direct chat; anthropic rows vs direct anthropic).\n' +
      'CPU: process CPU time (user + system) of the gateway / mock child during the measured run, per request.\n' +
      `Load generator, mock and gateway share ${report.machine.cpus} cores (1-min load average ${report.machine.loadAverage1mAtStart} at start, ` +
      `${report.machine.loadAverage1mAtEnd} at end; other work on the machine skews every figure); ` +
      'under saturation the added latency includes queueing; BENCH_CONNECTIONS=1 shows the unloaded cost.\n',
  );
}

async function main(): Promise<void> {
  const settings = readBenchSettings(process.env);
  const pipelineSettings = readPipelineSettings(process.env, settings);
  const machine = describeMachine();
  process.stdout.write(`Tollgate load benchmark: ${settings.connections} connections, ${settings.warmupS} s warm-up + ${settings.durationS} s per case; ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}\n`);
  const servers = await startServers();
  const measurements = await measureAll(servers, settings);
  const report: BenchReport = { generatedAt: new Date().toISOString(), machine: { ...machine, loadAverage1mAtEnd: loadAverage1m() }, settings, rows: buildBenchRows(measurements) };
  process.stdout.write(`\n${formatBenchTable(report.rows)}\n`);
  printNotes(report);
  writeReport(report);
  if (pipelineSettings) writeReport(await addPipeline(report, servers, pipelineSettings));
  process.stdout.write(`Written to test-artifacts/bench/latest.json\n`);
  servers.gateway.stop();
  servers.mock.stop();
}

process.on('exit', killBenchServers);
process.once('SIGINT', () => {
  killBenchServers();
  process.exit(130);
});
process.once('SIGTERM', () => {
  killBenchServers();
  process.exit(143);
});

const soak = process.argv.includes('--soak');
(soak ? Promise.resolve().then(() => runSoak(readSoakSettings(process.argv))).then((pass) => process.exit(pass ? 0 : 1)) : main()).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`\nbench failed: ${error instanceof Error ? error.message : String(error)}\n`);
    killBenchServers();
    process.exit(error instanceof BenchSettingsError || error instanceof SoakOptionsError ? 2 : 1);
  },
);
