/** The start-up table's pure parts and the runtime choice: medians, ratios to tsx, the README rendering, BENCH_TSX. */
import { describe, expect, it } from 'vitest';
import { benchRuntimeFromEnv, BenchRuntimeError } from '../../bench/bench-runtime.ts';
import { formatStartUpTable, renderReadmeStartUpTable } from '../../bench/format-start-up-table.ts';
import { median, type StartUpReport } from '../../bench/measure-start-up.ts';

const report: StartUpReport = {
  runs: 3,
  settleS: 5,
  launcherCheckMs: 8.4,
  benchBuild: { built: true, checkMs: 20, buildMs: 12_500 },
  rows: [
    {
      server: 'embedded',
      runtime: 'tsx',
      startMs: 2500,
      startMsRuns: [2600, 2500, 2400],
      rssMb: 620,
      rssMbRuns: [620, 610, 630],
      processes: 3,
    },
    {
      server: 'embedded',
      runtime: 'compiled',
      startMs: 1250,
      startMsRuns: [1250, 1300, 1200],
      rssMb: 496,
      rssMbRuns: [496, 496, 496],
      processes: 1,
    },
    {
      server: 'gateway',
      runtime: 'tsx',
      startMs: 2000,
      startMsRuns: [2000],
      rssMb: 250,
      rssMbRuns: [250],
      processes: 2,
    },
    {
      server: 'gateway',
      runtime: 'compiled',
      startMs: 1000,
      startMsRuns: [1000],
      rssMb: 175,
      rssMbRuns: [175],
      processes: 1,
    },
  ],
};

describe('start-up report', () => {
  it('takes the median of odd and even counts and refuses none', () => {
    expect(median([2600, 2400, 2500])).toBe(2500);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow(/no values/);
  });

  it('prints compiled ÷ tsx for each server, and the launcher check and bench build', () => {
    const table = formatStartUpTable(report);
    const compiledEmbedded = table.split('\n').find((line) => line.startsWith('embedded (npm start)  compiled'));
    expect(compiledEmbedded).toMatch(/1250\s+0\.50×\s+496\.0\s+0\.80×\s+1\s+1250 \/ 1300 \/ 1200$/);
    const tsxGateway = table.split('\n').find((line) => line.startsWith('gateway alone         tsx'));
    expect(tsxGateway).not.toContain('×');
    expect(table).toContain("launcher's stamp check: 8.4 ms; bench build compiled at bench start in 12.5 s.");
  });

  it('renders the README rows with their ratios and process counts', () => {
    const markdown = renderReadmeStartUpTable(report);
    expect(markdown).toContain('| embedded (npm start) | tsx | 2500 ms | 620 MB, 3 processes |');
    expect(markdown).toContain('| gateway alone | compiled | 1000 ms (0.50×) | 175 MB (0.70×), 1 process |');
    expect(markdown).toContain('median of 3');
  });

  it('reads BENCH_TSX: 1 is tsx, unset or 0 compiled, anything else refused', () => {
    expect(benchRuntimeFromEnv({ BENCH_TSX: '1' })).toBe('tsx');
    expect(benchRuntimeFromEnv({})).toBe('compiled');
    expect(benchRuntimeFromEnv({ BENCH_TSX: '0' })).toBe('compiled');
    expect(() => benchRuntimeFromEnv({ BENCH_TSX: 'yes' })).toThrow(BenchRuntimeError);
  });
});
