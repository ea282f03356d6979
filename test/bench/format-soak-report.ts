/**
 * The soak's figures: memory samples of the gateway process over time, the growth after warm-up
 * and the pass/fail verdict against the target, and the per-minute table printed by run-soak.ts.
 */
import type { SoakMemorySample } from './spawn-soak-gateway.ts';
import { median } from './run-load-phase.ts';

/** Request counts at a sample (cumulative since the load started). */
export interface SoakCounts {
  readonly sent: number;
  readonly status2xx: number;
  readonly status4xx: number;
  readonly status5xx: number;
  readonly clientAborts: number;
  readonly transportErrors: number;
}

/** One reading: time since the load started (ms), the gateway's memory (bytes), counts so far. */
export interface SoakSample {
  readonly elapsedMs: number;
  readonly memory: SoakMemorySample;
  readonly counts: SoakCounts;
}

/** Growth of one figure from the end of warm-up to the end of the load. Bytes; percent of the baseline. */
export interface SoakGrowth {
  readonly baselineBytes: number;
  readonly finalBytes: number;
  readonly growthPercent: number;
}

/** The verdict: RSS growth after warm-up against `targetPercent`, with heap growth beside it. */
export interface SoakSummary {
  /** Elapsed time of the first baseline sample (the first at or after the warm-up), ms. */
  readonly baselineAtMs: number;
  /** Elapsed time of the last sample, ms. */
  readonly finalAtMs: number;
  readonly rss: SoakGrowth;
  readonly heapUsed: SoakGrowth;
  /**
   * RSS minus the V8 heap's committed size: native memory (engines, allocator, buffers, threads).
   * Told beside the verdict, because the heap's share of RSS swings with when V8 collects.
   */
  readonly outsideHeap: SoakGrowth;
  readonly targetPercent: number;
  readonly pass: boolean;
}

/** Length of the baseline and final windows whose samples' median is compared, ms. */
export const SOAK_WINDOW_MS = 60_000;

function growth(
  baseline: ReadonlyArray<SoakSample>,
  final: ReadonlyArray<SoakSample>,
  figure: (sample: SoakSample) => number,
): SoakGrowth {
  const baselineBytes = median(baseline.map(figure));
  const finalBytes = median(final.map(figure));
  return {
    baselineBytes,
    finalBytes,
    growthPercent: baselineBytes > 0 ? ((finalBytes - baselineBytes) / baselineBytes) * 100 : 0,
  };
}

/**
 * Growth from the minute after the warm-up to the last minute of the load: the median of the
 * samples in [warmupMs, warmupMs + 60 s) against the median of those in the last 60 s (medians, so
 * that one garbage-collection swing does not decide the verdict; the windows may overlap in a run
 * shorter than warm-up + 2 min). Passes when RSS grew less than `targetPercent`.
 * @throws Error when no sample lies after the warm-up (the run was shorter than the warm-up).
 */
export function summarizeSoak(
  samples: ReadonlyArray<SoakSample>,
  warmupMs: number,
  targetPercent: number,
): SoakSummary {
  const baseline = samples.filter(
    (sample) => sample.elapsedMs >= warmupMs && sample.elapsedMs < warmupMs + SOAK_WINDOW_MS,
  );
  const last = samples[samples.length - 1];
  if (baseline.length === 0 || !last || last === baseline[0])
    throw new Error(`soak: no samples after the ${warmupMs} ms warm-up to compare`);
  const final = samples.filter(
    (sample) => sample.elapsedMs > last.elapsedMs - SOAK_WINDOW_MS && sample.elapsedMs >= warmupMs,
  );
  const rss = growth(baseline, final, (sample) => sample.memory.rssBytes);
  return {
    baselineAtMs: (baseline[0] as SoakSample).elapsedMs,
    finalAtMs: last.elapsedMs,
    rss,
    heapUsed: growth(baseline, final, (sample) => sample.memory.heapUsedBytes),
    outsideHeap: growth(baseline, final, (sample) => sample.memory.rssBytes - sample.memory.heapTotalBytes),
    targetPercent,
    pass: rss.growthPercent < targetPercent,
  };
}

/** The samples at whole minutes (the first at or after each minute mark, and the start). */
export function minuteSamples(samples: ReadonlyArray<SoakSample>): SoakSample[] {
  const chosen: SoakSample[] = [];
  let nextMark = 0;
  for (const sample of samples) {
    if (sample.elapsedMs < nextMark) continue;
    chosen.push(sample);
    nextMark = (Math.floor(sample.elapsedMs / 60_000) + 1) * 60_000;
  }
  return chosen;
}

const mb = (bytes: number): string => (bytes / (1024 * 1024)).toFixed(1);

/**
 * One table row per sample: minute; RSS, heap used, heap total, RSS minus heap total (memory
 * outside the V8 heap: native code, chdb, buffers), external, array buffers (MiB); tokenizer
 * merge-cache entries; requests per second and their outcomes since the previous row.
 */
export function formatSoakTable(rows: ReadonlyArray<SoakSample>): string {
  const header = [
    'min',
    'RSS MiB',
    'heap used',
    'heap total',
    'RSS-heap',
    'external',
    'arraybuf',
    'merge cache',
    'req/s',
    '2xx',
    '4xx',
    '5xx',
    'aborts',
    'errors',
  ];
  const lines = [header];
  let previous: SoakSample | undefined;
  for (const row of rows) {
    const seconds = previous ? (row.elapsedMs - previous.elapsedMs) / 1000 : 0;
    const delta = (key: keyof SoakCounts): number => row.counts[key] - (previous?.counts[key] ?? 0);
    lines.push([
      (row.elapsedMs / 60_000).toFixed(1),
      mb(row.memory.rssBytes),
      mb(row.memory.heapUsedBytes),
      mb(row.memory.heapTotalBytes),
      mb(row.memory.rssBytes - row.memory.heapTotalBytes),
      mb(row.memory.externalBytes),
      mb(row.memory.arrayBuffersBytes),
      row.memory.tokenizerMergeCacheEntries === undefined ? '-' : String(row.memory.tokenizerMergeCacheEntries),
      seconds > 0 ? (delta('sent') / seconds).toFixed(0) : '-',
      String(delta('status2xx')),
      String(delta('status4xx')),
      String(delta('status5xx')),
      String(delta('clientAborts')),
      String(delta('transportErrors')),
    ]);
    previous = row;
  }
  const widths = header.map((_, column) => Math.max(...lines.map((line) => (line[column] as string).length)));
  return lines.map((line) => line.map((cell, column) => cell.padStart(widths[column] as number)).join('  ')).join('\n');
}

/** The verdict line: `RSS growth after warm-up (1.0 → 30.0 min): +4.2% (512.0 → 533.5 MiB), heap used +1.0% (…); target < 10%: PASS` (medians of each window). */
export function formatSoakVerdict(summary: SoakSummary): string {
  const sign = (n: number): string => `${n >= 0 ? '+' : ''}${n.toFixed(1)}%`;
  return (
    `RSS growth after warm-up (median of the minute from ${(summary.baselineAtMs / 60_000).toFixed(1)} min → of the minute to ${(summary.finalAtMs / 60_000).toFixed(1)} min): ${sign(summary.rss.growthPercent)} ` +
    `(${mb(summary.rss.baselineBytes)} → ${mb(summary.rss.finalBytes)} MiB), heap used ${sign(summary.heapUsed.growthPercent)} ` +
    `(${mb(summary.heapUsed.baselineBytes)} → ${mb(summary.heapUsed.finalBytes)} MiB), RSS outside the heap ${sign(summary.outsideHeap.growthPercent)} ` +
    `(${mb(summary.outsideHeap.baselineBytes)} → ${mb(summary.outsideHeap.finalBytes)} MiB); target < ${summary.targetPercent}%: ${summary.pass ? 'PASS' : 'FAIL'}`
  );
}
