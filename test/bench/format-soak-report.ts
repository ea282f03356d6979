/**
 * The soak's figures: memory samples of the gateway process over time, the growth after warm-up
 * and the pass/fail verdict against the target, and the per-minute table printed by run-soak.ts.
 */
import type { SoakMemorySample } from './spawn-soak-gateway.ts';

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
  /** Elapsed time of the baseline sample (the first at or after the warm-up), ms. */
  readonly baselineAtMs: number;
  readonly finalAtMs: number;
  readonly rss: SoakGrowth;
  readonly heapUsed: SoakGrowth;
  readonly targetPercent: number;
  readonly pass: boolean;
}

function growth(baseline: number, final: number): SoakGrowth {
  return { baselineBytes: baseline, finalBytes: final, growthPercent: baseline > 0 ? ((final - baseline) / baseline) * 100 : 0 };
}

/**
 * Growth from the first sample at or after `warmupMs` to the last sample.
 * @throws Error when no sample lies after the warm-up (the run was shorter than the warm-up).
 */
export function summarizeSoak(samples: ReadonlyArray<SoakSample>, warmupMs: number, targetPercent: number): SoakSummary {
  const baseline = samples.find((sample) => sample.elapsedMs >= warmupMs);
  const final = samples[samples.length - 1];
  if (!baseline || !final || final === baseline) throw new Error(`soak: no samples after the ${warmupMs} ms warm-up to compare`);
  const rss = growth(baseline.memory.rssBytes, final.memory.rssBytes);
  return { baselineAtMs: baseline.elapsedMs, finalAtMs: final.elapsedMs, rss, heapUsed: growth(baseline.memory.heapUsedBytes, final.memory.heapUsedBytes), targetPercent, pass: rss.growthPercent < targetPercent };
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

/** One table row per sample: minute, RSS, heap used, external, array buffers (MiB), requests and their outcomes since the previous row. */
export function formatSoakTable(rows: ReadonlyArray<SoakSample>): string {
  const header = ['min', 'RSS MiB', 'heap used', 'heap total', 'external', 'arraybuf', 'req/s', '2xx', '4xx', '5xx', 'aborts', 'errors'];
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
      mb(row.memory.externalBytes),
      mb(row.memory.arrayBuffersBytes),
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

/** The verdict line: `RSS growth after warm-up: +4.2% (512.0 → 533.5 MiB), heap used +1.0%; target < 10%: PASS`. */
export function formatSoakVerdict(summary: SoakSummary): string {
  const sign = (n: number): string => `${n >= 0 ? '+' : ''}${n.toFixed(1)}%`;
  return (
    `RSS growth after warm-up (${(summary.baselineAtMs / 60_000).toFixed(1)} → ${(summary.finalAtMs / 60_000).toFixed(1)} min): ${sign(summary.rss.growthPercent)} ` +
    `(${mb(summary.rss.baselineBytes)} → ${mb(summary.rss.finalBytes)} MiB), heap used ${sign(summary.heapUsed.growthPercent)} ` +
    `(${mb(summary.heapUsed.baselineBytes)} → ${mb(summary.heapUsed.finalBytes)} MiB); target < ${summary.targetPercent}%: ${summary.pass ? 'PASS' : 'FAIL'}`
  );
}
