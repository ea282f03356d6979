/**
 * Turns the load benchmark's measurements into report rows (added latency against each case's
 * direct baseline, CPU per request as a ratio to the floor proxy's for the same request shape and
 * connection count), the verdict on each performance target, plain-text tables, and the JSON
 * document written to `test-artifacts/bench/latest.json`. Pure functions only.
 */
import type { BenchShapeId, BenchTarget } from './bench-cases.ts';
import type { PipelineReport } from './format-pipeline-report.ts';
import type { LiveStreamFootprint } from './measure-server-footprint.ts';
import type { BenchSettings, CaseMeasurement } from './run-bench-case.ts';

/** One row of the report: one case at one connection count. Latencies in ms, CPU in µs per request, memory in MB. */
export interface BenchRow {
  readonly id: string;
  readonly label: string;
  readonly target: BenchTarget;
  readonly shape: BenchShapeId;
  /** Connections autocannon kept open. */
  readonly connections: number;
  readonly stream: boolean;
  readonly gatewayPath?: 'pass-through' | 'translated';
  readonly requests: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Id of the direct case subtracted (non-direct rows). */
  readonly baseline?: string;
  /** p50 minus the direct case's p50 at the same connection count, ms. */
  readonly addedP50Ms?: number;
  /** p99 minus the direct case's p99 at the same connection count, ms. */
  readonly addedP99Ms?: number;
  /** Tollgate rows: the floor proxy's added p50 for the same shape and connections, ms. */
  readonly floorAddedP50Ms?: number;
  /** Tollgate rows: addedP50Ms − floorAddedP50Ms, ms. */
  readonly addedP50OverFloorMs?: number;
  /** CPU time of the target's process (the mock's for direct rows) per measured request, µs. */
  readonly serverCpuUsPerRequest: number;
  /** Tollgate rows: serverCpuUsPerRequest / the floor's for the same shape and connections. */
  readonly cpuRatioToFloor?: number;
  /** The mock's CPU per measured request, µs. */
  readonly mockCpuUsPerRequest: number;
  /** The target's RSS after the case, MB. */
  readonly serverRssMb: number;
}

/** Idle and live-stream memory and CPU of one server (floor, gateway alone, embedded). */
export interface ServerFootprint {
  readonly target: Exclude<BenchTarget, 'mock'>;
  /** RSS after the idle settle time, MB. */
  readonly idleRssMb: number;
  /** CPU over the idle window, percent of one core. */
  readonly idleCpuPercent: number;
  readonly liveStreams: LiveStreamFootprint;
}

/** A performance target's verdict; `figure` is the measured value in words. */
export interface BenchVerdict {
  readonly target: string;
  readonly met: boolean;
  readonly figure: string;
}

/** The run's settings as written to the report. */
export interface BenchReportSettings extends BenchSettings {
  /** The connection counts measured, loaded first. */
  readonly connectionLevels: ReadonlyArray<number>;
  /** Live streams asked for per server. */
  readonly liveStreams: number;
  /** The slow upstream's delay before each chunk of a live stream, ms. */
  readonly liveStreamChunkMs: number;
  /** Idle wait before the idle RSS reading, s. */
  readonly idleSettleS: number;
  /** Idle CPU window, s. */
  readonly idleCpuWindowS: number;
  /** How processes were placed on cores, e.g. `servers on CPU 1, load generator and mock on CPU 0` or `not pinned`. */
  readonly pinning: string;
}

/** The JSON report. */
export interface BenchReport {
  readonly generatedAt: string;
  readonly machine: { readonly cpus: number; readonly cpuModel: string; readonly loadAverage1mAtStart: number; readonly loadAverage1mAtEnd: number; readonly node: string };
  readonly settings: BenchReportSettings;
  readonly rows: ReadonlyArray<BenchRow>;
  readonly footprints: ReadonlyArray<ServerFootprint>;
  readonly verdicts: ReadonlyArray<BenchVerdict>;
  /** The pipeline case (absent with BENCH_PIPELINE=0). */
  readonly pipeline?: PipelineReport;
}

/** Target names in tables. */
export const SERVER_NAMES: Readonly<Record<BenchTarget, string>> = { mock: 'direct', floor: 'floor', gateway: 'gateway alone', embedded: 'embedded' };

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/**
 * Builds rows: a non-direct row's added latency uses the direct case of the same shape at the
 * same connection count; a Tollgate row's ratios use the floor case of the same shape and count
 * (absent when that case was not measured or its CPU was 0).
 */
export function buildBenchRows(measurements: ReadonlyArray<CaseMeasurement>): BenchRow[] {
  const find = (target: BenchTarget, shape: BenchShapeId, connections: number): CaseMeasurement | undefined =>
    measurements.find((m) => m.benchCase.target === target && m.benchCase.shape === shape && m.connections === connections);
  return measurements.map(({ benchCase, connections, load, serverCpuUsPerRequest, mockCpuUsPerRequest, serverRssBytes }) => {
    const base = benchCase.target === 'mock' ? undefined : find('mock', benchCase.shape, connections);
    const floor = benchCase.target === 'gateway' || benchCase.target === 'embedded' ? find('floor', benchCase.shape, connections) : undefined;
    const added = base ? load.p50Ms - base.load.p50Ms : undefined;
    const floorAdded = floor && base ? floor.load.p50Ms - base.load.p50Ms : undefined;
    return {
      id: benchCase.id,
      label: benchCase.label,
      target: benchCase.target,
      shape: benchCase.shape,
      connections,
      stream: benchCase.stream,
      ...(benchCase.gatewayPath ? { gatewayPath: benchCase.gatewayPath } : {}),
      requests: load.requests,
      requestsPerSecond: round(load.requestsPerSecond, 0),
      p50Ms: round(load.p50Ms, 3),
      p99Ms: round(load.p99Ms, 3),
      ...(base && added !== undefined ? { baseline: base.benchCase.id, addedP50Ms: round(added, 3), addedP99Ms: round(load.p99Ms - base.load.p99Ms, 3) } : {}),
      ...(added !== undefined && floorAdded !== undefined ? { floorAddedP50Ms: round(floorAdded, 3), addedP50OverFloorMs: round(added - floorAdded, 3) } : {}),
      serverCpuUsPerRequest: round(serverCpuUsPerRequest, 1),
      ...(floor && floor.serverCpuUsPerRequest > 0 ? { cpuRatioToFloor: round(serverCpuUsPerRequest / floor.serverCpuUsPerRequest, 2) } : {}),
      mockCpuUsPerRequest: round(mockCpuUsPerRequest, 1),
      serverRssMb: round(serverRssBytes / 1024 / 1024, 1),
    };
  });
}

/** Performance targets (ratios to the floor, ms, percent of a core, MB, KB). */
export const PERFORMANCE_TARGETS = {
  gatewayCpuRatio: 2,
  passThroughCpuRatio: 1.5,
  addedP50OverFloorMs: 0.15,
  embeddedCpuRatio: 3,
  idleCpuPercent: 1,
  embeddedIdleRssMb: 250,
  kbPerLiveStream: 40,
} as const;

/** The row with the largest `value` among `rows` (undefined when none has one). */
function worst(rows: ReadonlyArray<BenchRow>, value: (row: BenchRow) => number | undefined): { row: BenchRow; value: number } | undefined {
  let found: { row: BenchRow; value: number } | undefined;
  for (const row of rows) {
    const v = value(row);
    if (v !== undefined && (!found || v > found.value)) found = { row, value: v };
  }
  return found;
}

const shapeList = (rows: ReadonlyArray<BenchRow>): string => rows.map((r) => r.label).join('; ');

function ratioVerdict(target: string, rows: ReadonlyArray<BenchRow>, limit: number): BenchVerdict {
  const found = worst(rows, (r) => r.cpuRatioToFloor);
  if (!found) return { target, met: false, figure: 'not measured' };
  return { target, met: found.value <= limit, figure: `worst ${found.value.toFixed(2)}× (${found.row.label}, ${found.row.serverCpuUsPerRequest.toFixed(0)} µs/req)` };
}

function liveStreamVerdict(target: string, footprint: ServerFootprint | undefined): BenchVerdict {
  const live = footprint?.liveStreams;
  if (!live || live.kbPerStream === null) return { target, met: false, figure: 'no stream opened' };
  const all = live.reached === live.requested;
  const held = live.kbPerHeldRequest === null ? '' : `; ${live.kbPerHeldRequest.toFixed(1)} KB per request held, open or waiting`;
  const figure = `${live.kbPerStream.toFixed(1)} KB/stream over ${live.reached} open streams${all ? '' : ` (only ${live.reached} of ${live.requested} opened${held})`}`;
  return { target, met: all && live.kbPerStream <= PERFORMANCE_TARGETS.kbPerLiveStream, figure };
}

/**
 * The verdict on every target. CPU ratios are judged at `loadedConnections` (worst shape of each
 * group), added p50 at 1 connection; a target whose figures are missing is NOT MET ("not measured");
 * live-stream targets are NOT MET when fewer streams opened than asked for.
 */
export function judgeBenchTargets(rows: ReadonlyArray<BenchRow>, footprints: ReadonlyArray<ServerFootprint>, loadedConnections: number): BenchVerdict[] {
  const L = PERFORMANCE_TARGETS;
  const at = (target: BenchTarget, connections: number) => rows.filter((r) => r.target === target && r.connections === connections);
  const gatewayLoaded = at('gateway', loadedConnections);
  const c = `c=${loadedConnections}`;
  const verdicts: BenchVerdict[] = [
    ratioVerdict(`gateway alone CPU/req ≤ ${L.gatewayCpuRatio}× floor, non-streamed (${c})`, gatewayLoaded.filter((r) => !r.stream), L.gatewayCpuRatio),
    ratioVerdict(`gateway alone CPU/req ≤ ${L.gatewayCpuRatio}× floor, streamed (${c})`, gatewayLoaded.filter((r) => r.stream), L.gatewayCpuRatio),
    ratioVerdict(`gateway alone pass-through CPU/req ≤ ${L.passThroughCpuRatio}× floor (${c})`, gatewayLoaded.filter((r) => r.gatewayPath === 'pass-through'), L.passThroughCpuRatio),
  ];
  const overFloor = worst(at('gateway', 1), (r) => r.addedP50OverFloorMs);
  verdicts.push(
    overFloor
      ? { target: `gateway alone added p50 at c=1 ≤ floor's + ${L.addedP50OverFloorMs} ms`, met: overFloor.value <= L.addedP50OverFloorMs, figure: `worst +${overFloor.value.toFixed(3)} ms over the floor's (${overFloor.row.label}: added ${overFloor.row.addedP50Ms?.toFixed(3)} ms, floor ${overFloor.row.floorAddedP50Ms?.toFixed(3)} ms)` }
      : { target: `gateway alone added p50 at c=1 ≤ floor's + ${L.addedP50OverFloorMs} ms`, met: false, figure: 'not measured' },
  );
  verdicts.push(ratioVerdict(`embedded CPU/req ≤ ${L.embeddedCpuRatio}× floor (${c})`, at('embedded', loadedConnections), L.embeddedCpuRatio));
  const footprintOf = (target: ServerFootprint['target']) => footprints.find((f) => f.target === target);
  for (const target of ['gateway', 'embedded'] as const) {
    const f = footprintOf(target);
    const name = `${SERVER_NAMES[target]} idle CPU < ${L.idleCpuPercent}% of a core`;
    verdicts.push(f ? { target: name, met: f.idleCpuPercent < L.idleCpuPercent, figure: `${f.idleCpuPercent.toFixed(2)}%` } : { target: name, met: false, figure: 'not measured' });
  }
  const embedded = footprintOf('embedded');
  const rssName = `embedded idle RSS ≤ ${L.embeddedIdleRssMb} MB`;
  verdicts.push(embedded ? { target: rssName, met: embedded.idleRssMb <= L.embeddedIdleRssMb, figure: `${embedded.idleRssMb.toFixed(0)} MB` } : { target: rssName, met: false, figure: 'not measured' });
  for (const target of ['gateway', 'embedded'] as const) verdicts.push(liveStreamVerdict(`${SERVER_NAMES[target]} ≤ ${L.kbPerLiveStream} KB per live stream`, footprintOf(target)));
  return verdicts;
}

/** Lines `MET     <target>: <figure>` / `NOT MET …`. */
export function formatVerdicts(verdicts: ReadonlyArray<BenchVerdict>): string {
  return verdicts.map((v) => `${v.met ? 'MET    ' : 'NOT MET'}  ${v.target}: ${v.figure}`).join('\n');
}

/** `values` as an aligned plain-text table: the first `leftColumns` columns left-aligned, the rest right-aligned. */
export function alignTable(headers: ReadonlyArray<string>, body: ReadonlyArray<ReadonlyArray<string>>, leftColumns = 1): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (values: ReadonlyArray<string>): string =>
    values.map((v, i) => (i < leftColumns ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0))).join('  ').trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(headers), rule, ...body.map(line)].join('\n');
}

const signed = (value: number | undefined, digits = 2): string => (value === undefined ? '' : `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`);

const RATE_HEADERS = ['server', 'case', 'req/s', 'p50 ms', 'p99 ms', '+p50 ms', 'floor +p50', '+p50 vs floor', 'CPU µs/req', '× floor CPU'] as const;

function rateCells(row: BenchRow): string[] {
  return [
    SERVER_NAMES[row.target],
    row.label,
    row.requestsPerSecond.toFixed(0),
    row.p50Ms.toFixed(3),
    row.p99Ms.toFixed(3),
    signed(row.addedP50Ms, 3),
    signed(row.floorAddedP50Ms, 3),
    signed(row.addedP50OverFloorMs, 3),
    row.serverCpuUsPerRequest.toFixed(0),
    row.cpuRatioToFloor === undefined ? '' : `${row.cpuRatioToFloor.toFixed(2)}×`,
  ];
}

/** One table per connection count (in the rows' order), rows grouped by shape then server. */
export function formatBenchTables(rows: ReadonlyArray<BenchRow>): string {
  const levels = [...new Set(rows.map((r) => r.connections))];
  return levels
    .map((connections) => {
      const at = rows.filter((r) => r.connections === connections);
      return `${connections} connection${connections === 1 ? '' : 's'}:\n${alignTable(RATE_HEADERS, at.map(rateCells), 2)}`;
    })
    .join('\n\n');
}

/** The idle / live-stream table: one row per server. */
export function formatFootprintTable(footprints: ReadonlyArray<ServerFootprint>): string {
  const headers = ['server', 'idle RSS MB', 'idle CPU % core', 'live streams open', 'RSS open MB', 'KB per stream', 'KB per held request'];
  const body = footprints.map((f) => [
    SERVER_NAMES[f.target],
    f.idleRssMb.toFixed(1),
    f.idleCpuPercent.toFixed(2),
    `${f.liveStreams.reached}/${f.liveStreams.requested}`,
    (f.liveStreams.rssOpenBytes / 1024 / 1024).toFixed(1),
    f.liveStreams.kbPerStream === null ? '' : f.liveStreams.kbPerStream.toFixed(1),
    f.liveStreams.kbPerHeldRequest === null ? '' : f.liveStreams.kbPerHeldRequest.toFixed(1),
  ]);
  return alignTable(headers, body);
}
