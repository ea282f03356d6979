/**
 * Turns case measurements into report rows (with the gateway's added latency against each
 * case's direct baseline), a plain-text table, and the JSON document written to
 * `test-artifacts/bench/latest.json`.
 */
import type { PipelineReport } from './format-pipeline-report.ts';
import type { BenchSettings, CaseMeasurement } from './run-bench-case.ts';

/** One row of the report. Latencies in ms, CPU in µs per request, memory in MB. */
export interface BenchRow {
  readonly id: string;
  readonly label: string;
  readonly target: 'mock' | 'gateway';
  readonly stream: boolean;
  readonly gatewayPath?: 'pass-through' | 'translated';
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Id of the direct case subtracted (gateway rows). */
  readonly baseline?: string;
  /** Gateway p50 minus baseline p50, ms. */
  readonly addedP50Ms?: number;
  /** Gateway p99 minus baseline p99, ms. */
  readonly addedP99Ms?: number;
  readonly gatewayCpuUsPerRequest?: number;
  readonly mockCpuUsPerRequest: number;
  readonly gatewayRssMb: number;
}

/** The JSON report. */
export interface BenchReport {
  readonly generatedAt: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly loadAverage1mAtStart: number; readonly loadAverage1mAtEnd: number; readonly node: string };
  readonly settings: BenchSettings;
  readonly rows: ReadonlyArray<BenchRow>;
  /** The pipeline case (absent with BENCH_PIPELINE=0). */
  readonly pipeline?: PipelineReport;
}

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/** Builds rows; a gateway row's added latency uses the measured row its case names as baseline. */
export function buildBenchRows(measurements: ReadonlyArray<CaseMeasurement>): BenchRow[] {
  const byId = new Map(measurements.map((m) => [m.benchCase.id, m]));
  return measurements.map(({ benchCase, load, gatewayCpuUsPerRequest, mockCpuUsPerRequest, gatewayRssMb }) => {
    const base = benchCase.baseline ? byId.get(benchCase.baseline) : undefined;
    return {
      id: benchCase.id,
      label: benchCase.label,
      target: benchCase.target,
      stream: benchCase.stream,
      ...(benchCase.gatewayPath ? { gatewayPath: benchCase.gatewayPath } : {}),
      requests: load.requests,
      requestsPerSecond: round(load.requestsPerSecond, 0),
      p50Ms: round(load.p50Ms, 3),
      p99Ms: round(load.p99Ms, 3),
      ...(base ? { baseline: base.benchCase.id, addedP50Ms: round(load.p50Ms - base.load.p50Ms, 3), addedP99Ms: round(load.p99Ms - base.load.p99Ms, 3) } : {}),
      ...(gatewayCpuUsPerRequest !== undefined ? { gatewayCpuUsPerRequest: round(gatewayCpuUsPerRequest, 1) } : {}),
      mockCpuUsPerRequest: round(mockCpuUsPerRequest, 1),
      gatewayRssMb: round(gatewayRssMb, 1),
    };
  });
}

const HEADERS = ['case', 'req/s', 'p50 ms', 'p99 ms', '+p50 ms', '+p99 ms', 'gw CPU µs/req', 'mock CPU µs/req'] as const;

const signed = (value: number | undefined): string => (value === undefined ? '' : `${value >= 0 ? '+' : ''}${value.toFixed(2)}`);

function cells(row: BenchRow): string[] {
  return [
    row.label,
    row.requestsPerSecond.toFixed(0),
    row.p50Ms.toFixed(2),
    row.p99Ms.toFixed(2),
    signed(row.addedP50Ms),
    signed(row.addedP99Ms),
    row.gatewayCpuUsPerRequest === undefined ? '' : row.gatewayCpuUsPerRequest.toFixed(0),
    row.mockCpuUsPerRequest.toFixed(0),
  ];
}

/** The rows as an aligned plain-text table (label left-aligned, numbers right-aligned). */
export function formatBenchTable(rows: ReadonlyArray<BenchRow>): string {
  const body = rows.map(cells);
  const widths = HEADERS.map((header, i) => Math.max(header.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (values: ReadonlyArray<string>): string =>
    values.map((v, i) => (i === 0 ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(HEADERS), rule, ...body.map(line)].join('\n');
}
