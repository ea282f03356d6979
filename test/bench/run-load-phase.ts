/**
 * One autocannon run against one case, with latency kept at full precision: autocannon's own
 * histogram holds whole milliseconds, too coarse for a gateway that adds a fraction of one, so
 * every 2xx response time (ms, float, from request write to the end of the answer — the whole
 * stream for streamed cases) is collected from the `response` event and ranked here.
 */
import autocannon from 'autocannon';

/** What to load and how hard. `durationS` in seconds. */
export interface LoadPhaseOptions {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly connections: number;
  readonly durationS: number;
}

/** A finished run. Latencies in ms. */
export interface LoadPhaseResult {
  /** 2xx answers completed in the run. */
  readonly requests: number;
  /** Wall time of the run, s. */
  readonly elapsedS: number;
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** Every 2xx response time of the run, ascending, ms. */
  readonly latenciesMs: Float64Array;
}

/** The p-th percentile (nearest rank) of ascending `sorted`; 0 when empty. */
export function percentile(sorted: Float64Array, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] ?? 0;
}

/** The median of `values` (the mean of the two middle ones for an even count); NaN when empty. */
export function median(values: ReadonlyArray<number>): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** Human summary of every failure autocannon counted; empty when the run was clean. */
function describeFailures(result: autocannon.AutocannonResult, firstError: Error | undefined): string {
  const problems: string[] = [];
  if (result.non2xx > 0) {
    const codes = Object.entries(result.statusCodeStats).filter(([code]) => !code.startsWith('2'));
    problems.push(`${result.non2xx} non-2xx answers (${codes.map(([code, s]) => `${code}×${s.count}`).join(', ')})`);
  }
  if (result.errors > 0)
    problems.push(`${result.errors} request errors${firstError ? ` (first: ${firstError.message})` : ''}`);
  if (result.timeouts > 0) problems.push(`${result.timeouts} timeouts`);
  if (result['2xx'] === 0) problems.push('no 2xx answer at all');
  return problems.join('; ');
}

/**
 * Runs autocannon for `durationS` seconds with `connections` keep-alive connections (pipelining 1).
 * @throws Error naming the counts when any answer is not 2xx, any request errors or times out,
 *   or no answer arrives — a benchmark of failures measures nothing.
 */
export function runLoadPhase(options: LoadPhaseOptions): Promise<LoadPhaseResult> {
  const latencies: number[] = [];
  let firstError: Error | undefined;
  const startedAt = process.hrtime.bigint();
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: options.url,
        method: 'POST',
        headers: { ...options.headers },
        body: options.body,
        connections: options.connections,
        pipelining: 1,
        duration: options.durationS,
        timeout: 10,
      },
      (error, result) => {
        if (error) return reject(error);
        const failures = describeFailures(result, firstError);
        if (failures) return reject(new Error(`${options.url}: ${failures}`));
        const elapsedS = Number(process.hrtime.bigint() - startedAt) / 1e9;
        const sorted = Float64Array.from(latencies).sort();
        resolve({
          requests: sorted.length,
          elapsedS,
          requestsPerSecond: sorted.length / elapsedS,
          p50Ms: percentile(sorted, 50),
          p99Ms: percentile(sorted, 99),
          latenciesMs: sorted,
        });
      },
    );
    instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTimeMs: number) => {
      if (statusCode >= 200 && statusCode < 300) latencies.push(responseTimeMs);
    });
    instance.on('reqError', (error: Error) => {
      firstError ??= error;
    });
  });
}
