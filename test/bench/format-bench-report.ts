/**
 * Turns the load benchmark's measurements into report rows (added latency against each case's
 * direct baseline, CPU per request as a ratio to the floor proxy's for the same request shape and
 * connection count), the verdict on each performance target, plain-text tables, and the JSON
 * document written to `test-artifacts/bench/latest.json`. Pure functions only.
 */
import type { CpuBreakdown } from './profile-server-cpu.ts';
import type { AdmissionCostRow } from './measure-admission-cost.ts';
import type { CacheAffinityReport } from './measure-cache-affinity.ts';
import type { RoutingCostRow } from './measure-routing-cost.ts';
import { BENCH_SHAPES, BENCH_TARGETS, type BenchShapeId, type BenchTarget } from './bench-cases.ts';
import type { PipelineReport } from './format-pipeline-report.ts';
import type { ScalingSweepReport } from './format-scaling-sweep.ts';
import type { LiveStreamFootprint } from './measure-server-footprint.ts';
import { PEER_TARGETS, type PeerTarget } from './peers/peer-cases.ts';
import type { BenchSettings, CaseMeasurement } from './run-bench-case.ts';
import type { TimeToFirstTokenRow } from './measure-time-to-first-token.ts';
import type { StartUpReport } from './measure-start-up.ts';

/** Any server a row can describe: the bench's own four, or a peer gateway (`npm run bench:peers`). */
export type ReportTarget = BenchTarget | PeerTarget;

/** One row of the report: one case at one connection count. Latencies in ms, CPU in µs per request, memory in MB. */
export interface BenchRow {
  readonly id: string;
  readonly label: string;
  readonly target: ReportTarget;
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
  /** Tollgate and peer rows: the floor proxy's added p50 for the same shape and connections, ms. */
  readonly floorAddedP50Ms?: number;
  /** Tollgate and peer rows: addedP50Ms − floorAddedP50Ms, ms. */
  readonly addedP50OverFloorMs?: number;
  /** Tollgate and peer rows: the floor proxy's added p99 for the same shape and connections, ms. */
  readonly floorAddedP99Ms?: number;
  /** CPU time of the target's process and its descendants (the mock's for direct rows) per measured request, µs. */
  readonly serverCpuUsPerRequest: number;
  /** Tollgate and peer rows: serverCpuUsPerRequest / the floor's for the same shape and connections. */
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

/** A performance target's verdict; `figure` is the measured value in words (or why there is none). */
export interface BenchVerdict {
  readonly target: string;
  /** Whether the target is met (false when not measured). */
  readonly met: boolean;
  /** False when the figure could not be measured: the verdict is then NOT MEASURED, neither MET nor NOT MET. */
  readonly measured: boolean;
  readonly figure: string;
}

/** A peer case without figures: one the peer cannot serve (`n/a`), one that failed, or a peer that could not be installed or started. */
export interface UnmeasuredRow {
  readonly id: string;
  readonly label: string;
  readonly target: PeerTarget;
  readonly shape: BenchShapeId;
  readonly connections: number;
  readonly status: 'n/a' | 'failed' | 'not run';
  /** Why, in words (the peer's answer or error for failures). */
  readonly reason: string;
}

/** Idle memory and CPU of a peer gateway; live streams are not measured for peers. */
export interface PeerFootprint {
  readonly target: PeerTarget;
  /** RSS of its process tree after the idle settle time, MB. */
  readonly idleRssMb: number;
  /** CPU of its process tree over the idle window, percent of one core. */
  readonly idleCpuPercent: number;
}

/** One peer gateway of `npm run bench:peers`: what was asked for and what became of it. */
export interface PeerGatewayReport {
  readonly target: PeerTarget;
  readonly name: string;
  readonly version: string;
  /** Package specs installed, e.g. `litellm[proxy]==1.100.5`. */
  readonly spec: string;
  /** `measured`, or why not: install or start-up failed. */
  readonly status: 'measured' | 'install failed' | 'start failed';
  readonly error?: string;
  /** Its install directory (a cache under the OS temporary directory). */
  readonly installDir?: string;
  /** Whether the install was reused from that cache. */
  readonly cached?: boolean;
  /** Facts bearing on its figures. */
  readonly notes: ReadonlyArray<string>;
}

/** The `peers` section of the report (`npm run bench:peers` only). */
export interface PeerReport {
  readonly gateways: ReadonlyArray<PeerGatewayReport>;
  /** Measured peer cases, with ratios to the floor like Tollgate's rows. */
  readonly rows: ReadonlyArray<BenchRow>;
  readonly unmeasured: ReadonlyArray<UnmeasuredRow>;
  readonly footprints: ReadonlyArray<PeerFootprint>;
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
  /** How the servers ran: `compiled` (Node on the bench build, as production) or `tsx` (BENCH_TSX=1); bench-runtime.ts. */
  readonly runtime?: 'compiled' | 'tsx';
}

/** The JSON report. */
export interface BenchReport {
  readonly generatedAt: string;
  readonly machine: {
    readonly cpus: number;
    readonly cpuModel: string;
    readonly loadAverage1mAtStart: number;
    readonly loadAverage1mAtEnd: number;
    readonly node: string;
  };
  readonly settings: BenchReportSettings;
  readonly rows: ReadonlyArray<BenchRow>;
  readonly footprints: ReadonlyArray<ServerFootprint>;
  readonly verdicts: ReadonlyArray<BenchVerdict>;
  /** The pipeline case (absent with BENCH_PIPELINE=0). */
  readonly pipeline?: PipelineReport;
  /** The peer gateways (`npm run bench:peers` only). */
  readonly peers?: PeerReport;
  /** Time to first token of the streamed shapes (measure-time-to-first-token.ts). */
  readonly timeToFirstToken?: ReadonlyArray<TimeToFirstTokenRow>;
  /** Admission CPU per request before and with attribution and budgets (measure-admission-cost.ts). */
  readonly admission?: ReadonlyArray<AdmissionCostRow>;
  /** Routing CPU per request: today's weighted order, with affinity, and each strategy (measure-routing-cost.ts). */
  readonly routing?: ReadonlyArray<RoutingCostRow>;
  /** Prompt-cache hit rate of agent sessions by routing (measure-cache-affinity.ts). */
  readonly cacheAffinity?: CacheAffinityReport;
  /** CPU per request ÷ the floor's as request body, stream length and concurrent streams grow (measure-scaling-sweep.ts; absent with BENCH_SWEEP=0). */
  readonly scalingSweep?: ScalingSweepReport;
  /** Where the floor's and the gateway alone's CPU per request goes, per shape (profile-server-cpu.ts); absent with BENCH_PROFILE_S=0. */
  readonly cpuProfile?: ReadonlyArray<ShapeCpuProfile>;
  /** Start-up time and RSS after start, tsx against compiled (measure-start-up.ts; absent with BENCH_STARTUP_RUNS=0). */
  readonly startUp?: StartUpReport;
}

/** The CPU breakdown of one request shape on the floor and on the gateway alone. */
export interface ShapeCpuProfile {
  readonly shape: BenchShapeId;
  readonly label: string;
  readonly floor: CpuBreakdown;
  readonly gateway: CpuBreakdown;
}

/** Target names in tables. */
export const SERVER_NAMES: Readonly<Record<ReportTarget, string>> = {
  mock: 'direct',
  floor: 'floor',
  gateway: 'gateway alone',
  embedded: 'embedded',
  ...(Object.fromEntries(PEER_TARGETS.map((p) => [p.target, p.name])) as Record<PeerTarget, string>),
};

const round = (value: number, digits: number): number => Number(value.toFixed(digits));

/**
 * Builds rows: a non-direct row's added latency uses the direct case of the same shape at the
 * same connection count; a Tollgate or peer row's ratios use the floor case of the same shape and
 * count (absent when that case was not measured or its CPU was 0).
 */
export function buildBenchRows(measurements: ReadonlyArray<CaseMeasurement>): BenchRow[] {
  const find = (target: ReportTarget, shape: BenchShapeId, connections: number): CaseMeasurement | undefined =>
    measurements.find(
      (m) => m.benchCase.target === target && m.benchCase.shape === shape && m.connections === connections,
    );
  return measurements.map(
    ({ benchCase, connections, load, serverCpuUsPerRequest, mockCpuUsPerRequest, serverRssBytes }) => {
      const base = benchCase.target === 'mock' ? undefined : find('mock', benchCase.shape, connections);
      const floor =
        benchCase.target !== 'mock' && benchCase.target !== 'floor'
          ? find('floor', benchCase.shape, connections)
          : undefined;
      const added = base ? load.p50Ms - base.load.p50Ms : undefined;
      const floorAdded = floor && base ? floor.load.p50Ms - base.load.p50Ms : undefined;
      const floorAddedP99 = floor && base ? floor.load.p99Ms - base.load.p99Ms : undefined;
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
        ...(base && added !== undefined
          ? {
              baseline: base.benchCase.id,
              addedP50Ms: round(added, 3),
              addedP99Ms: round(load.p99Ms - base.load.p99Ms, 3),
            }
          : {}),
        ...(added !== undefined && floorAdded !== undefined && floorAddedP99 !== undefined
          ? {
              floorAddedP50Ms: round(floorAdded, 3),
              addedP50OverFloorMs: round(added - floorAdded, 3),
              floorAddedP99Ms: round(floorAddedP99, 3),
            }
          : {}),
        serverCpuUsPerRequest: round(serverCpuUsPerRequest, 1),
        ...(floor && floor.serverCpuUsPerRequest > 0
          ? { cpuRatioToFloor: round(serverCpuUsPerRequest / floor.serverCpuUsPerRequest, 2) }
          : {}),
        mockCpuUsPerRequest: round(mockCpuUsPerRequest, 1),
        serverRssMb: round(serverRssBytes / 1024 / 1024, 1),
      };
    },
  );
}

/** Performance targets (ratios to the floor, ms, percent of a core, MB, KB). */
export const PERFORMANCE_TARGETS = {
  gatewayCpuRatio: 2,
  passThroughCpuRatio: 1.5,
  addedP50OverFloorMs: 0.15,
  /** The gateway's added p99 at one connection ÷ the floor's added p99. */
  addedP99FloorRatio: 2,
  embeddedCpuRatio: 3,
  idleCpuPercent: 1,
  /** Whole process tree. */
  embeddedIdleRssMb: 350,
  gatewayIdleRssMb: 150,
  kbPerLiveStream: 30,
} as const;

/** The row with the largest `value` among `rows` (undefined when none has one). */
function worst(
  rows: ReadonlyArray<BenchRow>,
  value: (row: BenchRow) => number | undefined,
): { row: BenchRow; value: number } | undefined {
  let found: { row: BenchRow; value: number } | undefined;
  for (const row of rows) {
    const v = value(row);
    if (v !== undefined && (!found || v > found.value)) found = { row, value: v };
  }
  return found;
}

/** The verdict of a target whose figure is missing. */
const notMeasured = (target: string, why = 'not measured'): BenchVerdict => ({
  target,
  met: false,
  measured: false,
  figure: why,
});

function ratioVerdict(target: string, rows: ReadonlyArray<BenchRow>, limit: number): BenchVerdict {
  const found = worst(rows, (r) => r.cpuRatioToFloor);
  if (!found) return notMeasured(target);
  return {
    target,
    met: found.value <= limit,
    measured: true,
    figure: `worst ${found.value.toFixed(2)}× (${found.row.label}, ${found.row.serverCpuUsPerRequest.toFixed(0)} µs/req)`,
  };
}

function liveStreamVerdict(target: string, footprint: ServerFootprint | undefined): BenchVerdict {
  const live = footprint?.liveStreams;
  if (!live) return notMeasured(target);
  if (live.kbPerStream === null)
    return notMeasured(target, `not measured: ${live.notMeasuredReason ?? 'no stream opened'}`);
  // A machine whose hard open-file limit cannot hold `requested` streams is judged at what it allows.
  const allowed = live.openFileCap?.streams ?? live.requested;
  const all = live.reached === allowed;
  const held =
    live.kbPerHeldRequest === null ? '' : `; ${live.kbPerHeldRequest.toFixed(1)} KB per request held, open or waiting`;
  const cap = live.openFileCap
    ? ` (${live.requested} asked; the open-file limit of ${live.openFileCap.limit} allows ${allowed})`
    : '';
  const figure = `${live.kbPerStream.toFixed(1)} KB/stream over ${live.reached} open streams${cap}${all ? '' : ` (only ${live.reached} of ${allowed} opened${held})`}`;
  return { target, met: all && live.kbPerStream <= PERFORMANCE_TARGETS.kbPerLiveStream, measured: true, figure };
}

/**
 * The added-p99 target at one connection: for each shape, the gateway's p99 over the direct call
 * ÷ the floor's; the worst shape is judged against PERFORMANCE_TARGETS.addedP99FloorRatio. A floor
 * whose added p99 is not positive gives no ratio (NOT MEASURED when no shape has one).
 */
function addedP99Verdict(rows: ReadonlyArray<BenchRow>): BenchVerdict {
  const limit = PERFORMANCE_TARGETS.addedP99FloorRatio;
  const target = `gateway alone added p99 at c=1 ≤ ${limit}× the floor's added p99`;
  const found = worst(rows, (r) =>
    r.addedP99Ms !== undefined && r.floorAddedP99Ms !== undefined && r.floorAddedP99Ms > 0
      ? r.addedP99Ms / r.floorAddedP99Ms
      : undefined,
  );
  if (!found) return notMeasured(target);
  return {
    target,
    met: found.value <= limit,
    measured: true,
    figure: `worst ${found.value.toFixed(2)}× (${found.row.label}: added p99 ${found.row.addedP99Ms?.toFixed(3)} ms, floor ${found.row.floorAddedP99Ms?.toFixed(3)} ms)`,
  };
}

/**
 * The verdict on every target. CPU ratios are judged at `loadedConnections` (worst shape of each
 * group), added p50 at 1 connection; a target whose figures are missing is NOT MEASURED (`met`
 * false, `measured` false); live-stream targets are NOT MET when fewer streams opened than asked
 * for (or than the server's hard open-file limit allows, when it allows fewer: `openFileCap`), and
 * NOT MEASURED when too few opened or the RSS did not grow (liveStreamFigures).
 */
export function judgeBenchTargets(
  rows: ReadonlyArray<BenchRow>,
  footprints: ReadonlyArray<ServerFootprint>,
  loadedConnections: number,
): BenchVerdict[] {
  const L = PERFORMANCE_TARGETS;
  const at = (target: BenchTarget, connections: number) =>
    rows.filter((r) => r.target === target && r.connections === connections);
  const gatewayLoaded = at('gateway', loadedConnections);
  const c = `c=${loadedConnections}`;
  const verdicts: BenchVerdict[] = [
    ratioVerdict(
      `gateway alone CPU/req ≤ ${L.gatewayCpuRatio}× floor, non-streamed (${c})`,
      gatewayLoaded.filter((r) => !r.stream),
      L.gatewayCpuRatio,
    ),
    ratioVerdict(
      `gateway alone CPU/req ≤ ${L.gatewayCpuRatio}× floor, streamed (${c})`,
      gatewayLoaded.filter((r) => r.stream),
      L.gatewayCpuRatio,
    ),
    ratioVerdict(
      `gateway alone pass-through CPU/req ≤ ${L.passThroughCpuRatio}× floor (${c})`,
      gatewayLoaded.filter((r) => r.gatewayPath === 'pass-through'),
      L.passThroughCpuRatio,
    ),
  ];
  const overFloor = worst(at('gateway', 1), (r) => r.addedP50OverFloorMs);
  verdicts.push(
    overFloor
      ? {
          target: `gateway alone added p50 at c=1 ≤ floor's + ${L.addedP50OverFloorMs} ms`,
          met: overFloor.value <= L.addedP50OverFloorMs,
          measured: true,
          figure: `worst +${overFloor.value.toFixed(3)} ms over the floor's (${overFloor.row.label}: added ${overFloor.row.addedP50Ms?.toFixed(3)} ms, floor ${overFloor.row.floorAddedP50Ms?.toFixed(3)} ms)`,
        }
      : notMeasured(`gateway alone added p50 at c=1 ≤ floor's + ${L.addedP50OverFloorMs} ms`),
  );
  verdicts.push(addedP99Verdict(at('gateway', 1)));
  verdicts.push(
    ratioVerdict(
      `embedded CPU/req ≤ ${L.embeddedCpuRatio}× floor (${c})`,
      at('embedded', loadedConnections),
      L.embeddedCpuRatio,
    ),
  );
  const footprintOf = (target: ServerFootprint['target']) => footprints.find((f) => f.target === target);
  for (const target of ['gateway', 'embedded'] as const) {
    const f = footprintOf(target);
    const name = `${SERVER_NAMES[target]} idle CPU < ${L.idleCpuPercent}% of a core`;
    verdicts.push(
      f
        ? {
            target: name,
            met: f.idleCpuPercent < L.idleCpuPercent,
            measured: true,
            figure: `${f.idleCpuPercent.toFixed(2)}%`,
          }
        : notMeasured(name),
    );
  }
  for (const [target, limit] of [
    ['gateway', L.gatewayIdleRssMb],
    ['embedded', L.embeddedIdleRssMb],
  ] as const) {
    const f = footprintOf(target);
    const rssName = `${SERVER_NAMES[target]} idle RSS ≤ ${limit} MB`;
    verdicts.push(
      f
        ? { target: rssName, met: f.idleRssMb <= limit, measured: true, figure: `${f.idleRssMb.toFixed(0)} MB` }
        : notMeasured(rssName),
    );
  }
  for (const target of ['gateway', 'embedded'] as const)
    verdicts.push(
      liveStreamVerdict(`${SERVER_NAMES[target]} ≤ ${L.kbPerLiveStream} KB per live stream`, footprintOf(target)),
    );
  return verdicts;
}

/**
 * The time-to-first-token verdicts: for the gateway alone and the embedded server, the worst shape's
 * added p50 minus the floor's must stay within PERFORMANCE_TARGETS.addedP50OverFloorMs (the
 * tolerance of the c=1 latency target; "no added time to first token beyond the floor's").
 */
export function judgeTimeToFirstToken(rows: ReadonlyArray<TimeToFirstTokenRow>): BenchVerdict[] {
  const tolerance = PERFORMANCE_TARGETS.addedP50OverFloorMs;
  return (['gateway', 'embedded'] as const).map((target) => {
    const name = `${SERVER_NAMES[target]} added time to first token ≤ floor's + ${tolerance} ms`;
    let worstRow: { over: number; row: TimeToFirstTokenRow; floor: TimeToFirstTokenRow } | undefined;
    for (const row of rows.filter((r) => r.target === target)) {
      const floor = rows.find((r) => r.target === 'floor' && r.shape === row.shape);
      if (!floor) continue;
      const over = round(row.addedP50Ms - floor.addedP50Ms, 3);
      if (!worstRow || over > worstRow.over) worstRow = { over, row, floor };
    }
    if (!worstRow) return notMeasured(name);
    const { over, row, floor } = worstRow;
    return {
      target: name,
      met: over <= tolerance,
      measured: true,
      figure: `worst ${over >= 0 ? '+' : ''}${over.toFixed(3)} ms over the floor's (${row.label}: added ${row.addedP50Ms.toFixed(3)} ms, floor ${floor.addedP50Ms.toFixed(3)} ms)`,
    };
  });
}

/** The time-to-first-token table: p50 and added p50 per server and streamed shape. */
export function formatTimeToFirstTokenTable(rows: ReadonlyArray<TimeToFirstTokenRow>): string {
  return alignTable(
    ['server', 'case', 'requests', 'p50 ms', '+p50 ms'],
    rows.map((row) => [
      SERVER_NAMES[row.target],
      row.target === 'mock' ? row.label.replace(/→chat (pass-through|translated)/, '') : row.label,
      String(row.requests),
      row.p50Ms.toFixed(3),
      row.target === 'mock' ? '' : signed(row.addedP50Ms, 3),
    ]),
    2,
  );
}

/** A verdict's word: `MET`, `NOT MET` or `NOT MEASURED` (a verdict without `measured`, from an older report, counts as measured). */
export function verdictWord(verdict: BenchVerdict): 'MET' | 'NOT MET' | 'NOT MEASURED' {
  if (verdict.measured === false) return 'NOT MEASURED';
  return verdict.met ? 'MET' : 'NOT MET';
}

/** Lines `MET      <target>: <figure>` / `NOT MET  …` / `NOT MEASURED  …`. */
export function formatVerdicts(verdicts: ReadonlyArray<BenchVerdict>): string {
  return verdicts.map((v) => `${verdictWord(v).padEnd(7)}  ${v.target}: ${v.figure}`).join('\n');
}

/** `values` as an aligned plain-text table: the first `leftColumns` columns left-aligned, the rest right-aligned. */
export function alignTable(
  headers: ReadonlyArray<string>,
  body: ReadonlyArray<ReadonlyArray<string>>,
  leftColumns = 1,
): string {
  const widths = headers.map((header, i) => Math.max(header.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (values: ReadonlyArray<string>): string =>
    values
      .map((v, i) => (i < leftColumns ? v.padEnd(widths[i] ?? 0) : v.padStart(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(headers), rule, ...body.map(line)].join('\n');
}

const signed = (value: number | undefined, digits = 2): string =>
  value === undefined ? '' : `${value >= 0 ? '+' : ''}${value.toFixed(digits)}`;

const RATE_HEADERS = [
  'server',
  'case',
  'req/s',
  'p50 ms',
  'p99 ms',
  '+p50 ms',
  'floor +p50',
  '+p50 vs floor',
  'CPU µs/req',
  '× floor CPU',
] as const;

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

/** Cells of a peer case without figures: its status in the req/s column, the rest blank. */
function unmeasuredCells(row: UnmeasuredRow): string[] {
  return [SERVER_NAMES[row.target], row.label, row.status, ...RATE_HEADERS.slice(3).map(() => '')];
}

const TARGET_ORDER: ReadonlyArray<ReportTarget> = [
  ...BENCH_TARGETS.map((t) => t.target),
  ...PEER_TARGETS.map((p) => p.target),
];
const SHAPE_ORDER: ReadonlyArray<BenchShapeId> = BENCH_SHAPES.map((s) => s.id);

/** Table order: by shape (BENCH_SHAPES order), then server (direct, floor, gateway alone, embedded, peers). */
function byShapeThenServer(
  a: { shape: BenchShapeId; target: ReportTarget },
  b: { shape: BenchShapeId; target: ReportTarget },
): number {
  return (
    SHAPE_ORDER.indexOf(a.shape) - SHAPE_ORDER.indexOf(b.shape) ||
    TARGET_ORDER.indexOf(a.target) - TARGET_ORDER.indexOf(b.target)
  );
}

/**
 * One table per connection count (in the rows' order), rows grouped by shape then server; peer
 * cases without figures (`unmeasured`) sit in their place with their status in the req/s column.
 */
export function formatBenchTables(
  rows: ReadonlyArray<BenchRow>,
  unmeasured: ReadonlyArray<UnmeasuredRow> = [],
): string {
  const levels = [...new Set([...rows, ...unmeasured].map((r) => r.connections))];
  return levels
    .map((connections) => {
      const entries = [
        ...rows.filter((r) => r.connections === connections),
        ...unmeasured.filter((r) => r.connections === connections),
      ].sort(byShapeThenServer);
      const body = entries.map((entry) => ('status' in entry ? unmeasuredCells(entry) : rateCells(entry)));
      return `${connections} connection${connections === 1 ? '' : 's'}:\n${alignTable(RATE_HEADERS, body, 2)}`;
    })
    .join('\n\n');
}

/**
 * One line per peer, status and reason, its cases and connection counts merged:
 * `  <server>: <case>; <case> (<levels> connections): <status> — <reason>`. Empty when there are none.
 */
export function formatUnmeasuredNotes(unmeasured: ReadonlyArray<UnmeasuredRow>): string {
  const merged = new Map<string, { row: UnmeasuredRow; labels: string[]; levels: number[] }>();
  for (const row of unmeasured) {
    const key = `${row.target}|${row.status}|${row.reason}`;
    const found = merged.get(key) ?? { row, labels: [], levels: [] };
    merged.set(key, found);
    if (!found.labels.includes(row.label)) found.labels.push(row.label);
    if (!found.levels.includes(row.connections)) found.levels.push(row.connections);
  }
  return [...merged.values()]
    .map(
      ({ row, labels, levels }) =>
        `  ${SERVER_NAMES[row.target]}: ${labels.join('; ')} (${levels.join(' and ')} connection${levels.length === 1 && levels[0] === 1 ? '' : 's'}): ${row.status} — ${row.reason}`,
    )
    .join('\n');
}

/**
 * The idle / live-stream table: one row per server, then one per peer (live streams not measured
 * for peers: `skipped`). Under it, a line per server whose RSS per stream was not measured, with the reason.
 */
export function formatFootprintTable(
  footprints: ReadonlyArray<ServerFootprint>,
  peers: ReadonlyArray<PeerFootprint> = [],
): string {
  const headers = [
    'server',
    'idle RSS MB',
    'idle CPU % core',
    'live streams open',
    'RSS open MB',
    'KB per stream',
    'KB per held request',
  ];
  const body = footprints.map((f) => [
    SERVER_NAMES[f.target],
    f.idleRssMb.toFixed(1),
    f.idleCpuPercent.toFixed(2),
    `${f.liveStreams.reached}/${f.liveStreams.requested}`,
    (f.liveStreams.rssOpenBytes / 1024 / 1024).toFixed(1),
    f.liveStreams.kbPerStream === null ? 'not measured' : f.liveStreams.kbPerStream.toFixed(1),
    f.liveStreams.kbPerHeldRequest === null ? '' : f.liveStreams.kbPerHeldRequest.toFixed(1),
  ]);
  const peerBody = peers.map((p) => [
    SERVER_NAMES[p.target],
    p.idleRssMb.toFixed(1),
    p.idleCpuPercent.toFixed(2),
    'skipped',
    '',
    '',
    '',
  ]);
  const reasons = footprints
    .filter((f) => f.liveStreams.kbPerStream === null)
    .map(
      (f) =>
        `${SERVER_NAMES[f.target]}: RSS per live stream not measured: ${f.liveStreams.notMeasuredReason ?? 'no stream opened'}`,
    );
  if (peers.length > 0)
    reasons.push("peers: live streams not measured (skipped); idle RSS and CPU are of the peer's whole process tree.");
  return [alignTable(headers, [...body, ...peerBody]), ...reasons].join('\n');
}
