/**
 * The README's performance table, rendered from a load-benchmark report (the JSON of
 * `test-artifacts/bench/latest.json`) as Markdown, and the splice of that Markdown between the
 * README's `<!-- bench:begin -->` and `<!-- bench:end -->` markers. Pure functions only.
 */
import {
  SERVER_NAMES,
  verdictWord,
  type BenchReport,
  type BenchRow,
  type ShapeCpuProfile,
} from './format-bench-report.ts';
import type { ScalingSweepReport } from './format-scaling-sweep.ts';
import { renderReadmeStartUpTable } from './format-start-up-table.ts';

/** The line that opens the generated part of the README. */
export const README_BENCH_BEGIN = '<!-- bench:begin -->';
/** The line that closes it. */
export const README_BENCH_END = '<!-- bench:end -->';

/** `1234.5` → `1 235` (thin groups of three, as the README writes figures). */
function grouped(value: number): string {
  return Math.round(value)
    .toString()
    .replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}

const signedMs = (value: number | undefined): string =>
  value === undefined ? '–' : `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(2)} ms`;

/**
 * Markdown for the README: a line naming the run, a table with one row per server and request
 * shape (req/s and CPU µs per request at the loaded level with the ratio to the floor's; added p50
 * and p99 at 1 connection and the floor's), a table of idle RSS, idle CPU and RSS per live stream (`not
 * measured` with the reason when it could not be), and the verdict on each target (MET, NOT MET or
 * NOT MEASURED), then, when the report has them, the start-up figures (tsx against compiled,
 * format-start-up-table.ts), the scaling sweep's points and the CPU breakdown per shape (the
 * largest differences from the floor first). Without a 1-connection level the added-p50 cells read `–`. Tollgate's own servers
 * only: the `peers` section of a `npm run bench:peers` report is left out.
 */
export function renderReadmeBenchSection(report: BenchReport): string {
  const loaded = report.settings.connections;
  const at = (row: BenchRow, connections: number): BenchRow | undefined =>
    report.rows.find((r) => r.id === row.id && r.connections === connections);
  const loadedRows = report.rows.filter((r) => r.connections === loaded && r.target !== 'mock');
  const m = report.machine;
  const lines = [
    `Run of ${report.generatedAt.slice(0, 10)}: ${m.cpus} × ${m.cpuModel}, Node ${m.node}; ${report.settings.pinning}; ` +
      `${report.settings.serverWarmupS ? `each server first warmed with each of its cases for ${report.settings.serverWarmupS} s; ` : ''}${report.settings.warmupS} s warm-up + ${report.settings.durationS} s per case; 1-min load average ${m.loadAverage1mAtStart}–${m.loadAverage1mAtEnd}.`,
    '',
    `| server | case | req/s (${loaded} conn.) | CPU per request (${loaded} conn.) | × floor CPU | added p50, 1 conn. | floor's added p50 | added p99, 1 conn. | floor's added p99 |`,
    '|---|---|---|---|---|---|---|---|---|',
    ...loadedRows.map((row) => {
      const single = at(row, 1);
      return `| ${SERVER_NAMES[row.target]} | ${row.label} | ${grouped(row.requestsPerSecond)} | ${grouped(row.serverCpuUsPerRequest)} µs | ${row.cpuRatioToFloor === undefined ? '–' : `${row.cpuRatioToFloor.toFixed(2)}×`} | ${signedMs(single?.addedP50Ms)} | ${signedMs(single?.floorAddedP50Ms)} | ${signedMs(single?.addedP99Ms)} | ${signedMs(single?.floorAddedP99Ms)} |`;
    }),
    '',
    `| server | idle RSS | idle CPU | RSS per live stream |`,
    '|---|---|---|---|',
    ...report.footprints.map((f) => {
      const live = f.liveStreams;
      const held = live.kbPerHeldRequest === null ? '' : `; ${live.kbPerHeldRequest.toFixed(1)} KB per request held`;
      const cap = live.openFileCap
        ? `, the open-file limit of ${grouped(live.openFileCap.limit)} allows ${grouped(live.openFileCap.streams)}`
        : '';
      const reached =
        live.reached === live.requested
          ? `${grouped(live.reached)} streams`
          : `${grouped(live.reached)} of ${grouped(live.requested)} streams opened${cap}${held}`;
      const perStream =
        live.kbPerStream === null
          ? `not measured (${live.notMeasuredReason ?? 'no stream opened'})`
          : `${live.kbPerStream.toFixed(1)} KB (${reached})`;
      return `| ${SERVER_NAMES[f.target]} | ${f.idleRssMb.toFixed(0)} MB | ${f.idleCpuPercent.toFixed(2)} % of a core | ${perStream} |`;
    }),
    '',
    ...report.verdicts.map(
      (v) => `- ${verdictWord(v) === 'MET' ? 'MET' : `**${verdictWord(v)}**`} — ${v.target}: ${v.figure}`,
    ),
    ...(report.startUp ? ['', renderReadmeStartUpTable(report.startUp)] : []),
    ...(report.scalingSweep ? ['', ...renderSweepTable(report.scalingSweep)] : []),
    ...(report.cpuProfile ? ['', ...renderCpuProfileTable(report.cpuProfile)] : []),
  ];
  return lines.join('\n');
}

/** The scaling sweep: each point's CPU per request on the floor and the gateway alone, and their ratio. */
function renderSweepTable(sweep: ScalingSweepReport): string[] {
  return [
    `Scaling sweep (${grouped(sweep.requests)} requests a point after ${grouped(sweep.warmupRequests)} of warm-up; CPU per request of each process tree):`,
    '',
    '| point | floor | gateway alone | ratio |',
    '|---|---|---|---|',
    ...sweep.points.map(
      (p) =>
        `| ${p.label}${p.note ? ` (${p.note})` : ''} | ${grouped(p.floorCpuUsPerRequest)} µs | ${grouped(p.gatewayCpuUsPerRequest)} µs | ${p.ratio === null ? '–' : `${p.ratio.toFixed(2)}×`} |`,
    ),
  ];
}

/** Categories shown per shape in the CPU breakdown (the largest differences); the rest are summed. */
const CPU_CATEGORIES_SHOWN = 8;

/** Where the CPU per request goes, per shape: the categories with the largest gateway − floor difference. */
function renderCpuProfileTable(profiles: ReadonlyArray<ShapeCpuProfile>): string[] {
  const rows = profiles.flatMap((profile) => {
    const floorOf = new Map(profile.floor.shares.map((s) => [s.category, s.usPerRequest]));
    const gatewayOf = new Map(profile.gateway.shares.map((s) => [s.category, s.usPerRequest]));
    const categories = [...new Set([...floorOf.keys(), ...gatewayOf.keys()])]
      .map((category) => ({ category, floor: floorOf.get(category) ?? 0, gateway: gatewayOf.get(category) ?? 0 }))
      .sort((a, b) => b.gateway - b.floor - (a.gateway - a.floor));
    const shown = categories.slice(0, CPU_CATEGORIES_SHOWN);
    const rest = categories.slice(CPU_CATEGORIES_SHOWN);
    const sum = (pick: (c: { floor: number; gateway: number }) => number) => rest.reduce((t, c) => t + pick(c), 0);
    return [
      `| **${profile.label}** | **all** | **${grouped(profile.floor.totalUsPerRequest)}** | **${grouped(profile.gateway.totalUsPerRequest)}** | **+${grouped(profile.gateway.totalUsPerRequest - profile.floor.totalUsPerRequest)}** |`,
      ...[
        ...shown,
        { category: `${rest.length} more`, floor: sum((c) => c.floor), gateway: sum((c) => c.gateway) },
      ].map(
        (c) =>
          `| | ${c.category} | ${c.floor.toFixed(1)} | ${c.gateway.toFixed(1)} | ${c.gateway - c.floor >= 0 ? '+' : '−'}${Math.abs(c.gateway - c.floor).toFixed(1)} |`,
      ),
    ];
  });
  return [
    "Where the CPU per request goes, µs (profiled under load at 32 connections, V8's sampler on the request thread, other threads from /proc; test/bench/profile-server-cpu.ts):",
    '',
    '| case | category | floor | gateway alone | difference |',
    '|---|---|---|---|---|',
    ...rows,
  ];
}

/**
 * `readme` with everything between the begin and end marker lines replaced by `section`.
 * @throws Error when either marker is missing, repeated, or the end comes before the begin
 */
export function replaceReadmeBenchSection(readme: string, section: string): string {
  const begin = readme.indexOf(README_BENCH_BEGIN);
  const end = readme.indexOf(README_BENCH_END);
  if (begin < 0 || end < 0)
    throw new Error(`README lacks the ${begin < 0 ? README_BENCH_BEGIN : README_BENCH_END} marker`);
  if (readme.indexOf(README_BENCH_BEGIN, begin + 1) >= 0 || readme.indexOf(README_BENCH_END, end + 1) >= 0)
    throw new Error('README holds a bench marker twice');
  if (end < begin) throw new Error(`README's ${README_BENCH_END} comes before ${README_BENCH_BEGIN}`);
  return `${readme.slice(0, begin + README_BENCH_BEGIN.length)}\n${section}\n${readme.slice(end)}`;
}
