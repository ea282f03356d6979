/**
 * `npm run bench`: Tollgate's load benchmark. Starts the mock upstream and the gateway in two
 * child processes (bench-servers.ts), then, from this process, loads each case of bench-cases.ts
 * with autocannon: a sample answer checked, a warm-up (default 2 s), a measured run (default 8 s,
 * 32 connections). Prints a table (req/s, p50/p99 latency, latency the gateway adds over the
 * direct case, CPU µs per request of the gateway and mock processes) and writes it as JSON to
 * `test-artifacts/bench/latest.json`.
 *
 * Environment: BENCH_DURATION_S (s, > 0), BENCH_WARMUP_S (s, ≥ 0), BENCH_CONNECTIONS (integer ≥ 1).
 * Exit codes: 0 done; 1 a case failed (any non-2xx answer, request error, wrong answer, failed
 * or mis-routed gateway outcome) or a server did not start; 2 invalid settings; 130 interrupted.
 * Children are stopped by PID on every exit path.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { BENCH_CASES } from './bench-cases.ts';
import { buildBenchRows, formatBenchTable, type BenchReport } from './format-bench-report.ts';
import { runBenchCase, type BenchServers, type BenchSettings, type CaseMeasurement } from './run-bench-case.ts';
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
  const machine = describeMachine();
  process.stdout.write(`Tollgate load benchmark: ${settings.connections} connections, ${settings.warmupS} s warm-up + ${settings.durationS} s per case; ${machine.cpus} × ${machine.cpuModel}, Node ${machine.node}\n`);
  const servers = await startServers();
  const measurements = await measureAll(servers, settings);
  const report: BenchReport = { generatedAt: new Date().toISOString(), machine: { ...machine, loadAverage1mAtEnd: loadAverage1m() }, settings, rows: buildBenchRows(measurements) };
  process.stdout.write(`\n${formatBenchTable(report.rows)}\n`);
  printNotes(report);
  mkdirSync(REPORT_DIR, { recursive: true });
  writeFileSync(`${REPORT_DIR}latest.json`, `${JSON.stringify(report, null, 2)}\n`);
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

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`\nbench failed: ${error instanceof Error ? error.message : String(error)}\n`);
    killBenchServers();
    process.exit(error instanceof BenchSettingsError ? 2 : 1);
  },
);
