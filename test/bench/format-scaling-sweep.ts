/**
 * The scaling sweep's figures and their table: per dimension (request body size, stream length,
 * concurrent streams) and size point, the CPU per request (µs) of the floor proxy and of the
 * gateway, their ratio gateway ÷ floor, and the dimension's spread = max ratio ÷ min ratio, judged
 * MET when ≤ SCALING_SPREAD_TARGET (the cost of Tollgate over the floor stays flat as the work
 * grows). Pure: no I/O.
 */
import { alignTable, type BenchVerdict } from './format-bench-report.ts';

/** Highest spread (max ratio ÷ min ratio within one dimension) that is MET. */
export const SCALING_SPREAD_TARGET = 1.5;

/** The swept dimensions. */
export type ScalingDimension = 'body-size' | 'stream-events' | 'concurrent-streams';

/** Table names of the dimensions. */
export const SCALING_DIMENSION_NAMES: Readonly<Record<ScalingDimension, string>> = {
  'body-size': 'request body (non-streamed chat pass-through)',
  'stream-events': 'stream length (streamed chat pass-through)',
  'concurrent-streams': 'concurrent streams (streamed, 20 events)',
};

/** One measured size point. CPU in µs of process-tree CPU time (user + system) per request. */
export interface ScalingPoint {
  readonly dimension: ScalingDimension;
  /** The point's size: bytes of request body, content events per stream, or streams in flight. */
  readonly size: number;
  /** Human label, e.g. `100 KB`, `2000 events`, `1000 streams`. */
  readonly label: string;
  /** Requests measured per server. */
  readonly requests: number;
  readonly floorCpuUsPerRequest: number;
  readonly gatewayCpuUsPerRequest: number;
  /** gateway ÷ floor CPU per request; null when the floor's figure is 0 (too few clock ticks). */
  readonly ratio: number | null;
  /** Why the point differs from what was asked (fewer streams than asked, or failed: then ratio null); absent when as asked. */
  readonly note?: string;
}

/** One dimension's verdict. */
export interface ScalingSpread {
  readonly dimension: ScalingDimension;
  /** max ratio ÷ min ratio over the dimension's points; null with fewer than 2 ratios. */
  readonly spread: number | null;
  readonly met: boolean;
}

/** The sweep as written to latest.json under `scalingSweep`. */
export interface ScalingSweepReport {
  /** Requests per point before the measured ones (warm-up), and measured per point at least. */
  readonly warmupRequests: number;
  readonly requests: number;
  /** Connections of the body-size and stream-length points. */
  readonly connections: number;
  readonly points: ReadonlyArray<ScalingPoint>;
  readonly spreads: ReadonlyArray<ScalingSpread>;
}

/** gateway ÷ floor, or null when the floor's CPU is not positive. */
export function scalingRatio(gatewayCpuUs: number, floorCpuUs: number): number | null {
  return floorCpuUs > 0 ? gatewayCpuUs / floorCpuUs : null;
}

/**
 * The spread of each dimension present in `points` (in first-seen order): max ratio ÷ min ratio
 * over its points with a ratio; MET when ≤ SCALING_SPREAD_TARGET; null and not met with fewer
 * than 2 ratios (nothing to compare).
 */
export function scalingSpreads(points: ReadonlyArray<ScalingPoint>): ScalingSpread[] {
  const dimensions = [...new Set(points.map((p) => p.dimension))];
  return dimensions.map((dimension) => {
    const ratios = points
      .filter((p) => p.dimension === dimension && p.ratio !== null && p.ratio > 0)
      .map((p) => p.ratio as number);
    if (ratios.length < 2) return { dimension, spread: null, met: false };
    const spread = Math.max(...ratios) / Math.min(...ratios);
    return { dimension, spread, met: spread <= SCALING_SPREAD_TARGET };
  });
}

/** `bytes` as `1 KB`, `10 KB`, `1 MB` (1 KB = 1024 bytes). */
export function formatBodySize(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / 1024 / 1024} MB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KB`;
  return `${bytes} B`;
}

const ratioText = (ratio: number | null): string => (ratio === null ? 'n/a' : `${ratio.toFixed(2)}×`);

/** The sweep table: one row per point, then under each dimension its spread and verdict; notes of points below. */
export function formatScalingSweepTable(report: ScalingSweepReport): string {
  const rows: string[][] = [];
  for (const spread of report.spreads) {
    for (const point of report.points.filter((p) => p.dimension === spread.dimension)) {
      rows.push([
        SCALING_DIMENSION_NAMES[point.dimension],
        point.label,
        String(point.requests),
        point.floorCpuUsPerRequest.toFixed(0),
        point.gatewayCpuUsPerRequest.toFixed(0),
        ratioText(point.ratio),
      ]);
    }
    rows.push([
      '',
      'spread',
      '',
      '',
      '',
      spread.spread === null ? 'n/a' : `${spread.spread.toFixed(2)}× ${spread.met ? 'MET' : 'NOT MET'}`,
    ]);
  }
  const table = alignTable(
    ['dimension', 'point', 'requests', 'floor µs/req', 'gateway µs/req', '× floor CPU'],
    rows,
    2,
  );
  const notes = report.points.filter((p) => p.note).map((p) => `  ${p.label}: ${p.note ?? ''}`);
  return notes.length > 0 ? `${table}\n${notes.join('\n')}` : table;
}

/** One verdict per dimension for the Targets list: spread ≤ 1.5× (NOT MEASURED with fewer than 2 ratios). */
export function judgeScalingSweep(report: ScalingSweepReport): BenchVerdict[] {
  return report.spreads.map((s) => ({
    target: `Tollgate CPU per request ÷ floor's flat within ${SCALING_SPREAD_TARGET}× across ${SCALING_DIMENSION_NAMES[s.dimension]}`,
    met: s.met,
    measured: s.spread !== null,
    figure:
      s.spread === null ? 'fewer than 2 points measured' : `spread ${s.spread.toFixed(2)}× (max ratio ÷ min ratio)`,
  }));
}
