/**
 * The start-up table of the load benchmark (measure-start-up.ts): per server, tsx against compiled
 * — start-up time (spawn → ready line, ms) and RSS after start (whole process tree, MB), medians,
 * each with the compiled ÷ tsx ratio — as plain text for the console and as Markdown for the README.
 * Pure functions only.
 */
import { alignTable } from './format-bench-report.ts';
import type { StartUpReport, StartUpRow } from './measure-start-up.ts';

const SERVER_LABELS: Readonly<Record<StartUpRow['server'], string>> = {
  embedded: 'embedded (npm start)',
  gateway: 'gateway alone',
};

/** The tsx row of the same server, whose figures the compiled row is divided by. */
function tsxRowOf(report: StartUpReport, row: StartUpRow): StartUpRow | undefined {
  return report.rows.find((r) => r.server === row.server && r.runtime === 'tsx');
}

/** `compiled ÷ tsx` of one figure, e.g. `0.62×`; empty for a tsx row or a zero divisor. */
function ratio(value: number, tsxValue: number | undefined, runtime: StartUpRow['runtime']): string {
  if (runtime === 'tsx' || tsxValue === undefined || tsxValue === 0) return '';
  return `${(value / tsxValue).toFixed(2)}×`;
}

/** One line on the bench build and on what `npm start`'s launcher adds on a built tree. */
function buildLine(report: StartUpReport): string {
  const build = report.benchBuild;
  const benchBuild = !build
    ? ''
    : build.built
      ? `; bench build compiled at bench start in ${((build.buildMs ?? 0) / 1000).toFixed(1)} s`
      : `; bench build up to date at bench start (stamp check ${build.checkMs.toFixed(0)} ms)`;
  return `npm start on a built tree adds the launcher's stamp check: ${report.launcherCheckMs.toFixed(1)} ms${benchBuild}.`;
}

/**
 * The console table: server, runtime, start-up ms, × tsx, RSS MB, × tsx, processes in the tree,
 * every run's start-up ms; then a line on the launcher's check and the bench build.
 */
export function formatStartUpTable(report: StartUpReport): string {
  const headers = ['server', 'runtime', 'start-up ms', '× tsx', 'RSS MB', '× tsx', 'processes', 'runs, ms'];
  const body = report.rows.map((row) => {
    const tsx = tsxRowOf(report, row);
    return [
      SERVER_LABELS[row.server],
      row.runtime,
      String(row.startMs),
      ratio(row.startMs, tsx?.startMs, row.runtime),
      row.rssMb.toFixed(1),
      ratio(row.rssMb, tsx?.rssMb, row.runtime),
      String(row.processes),
      row.startMsRuns.join(' / '),
    ];
  });
  return `${alignTable(headers, body, 2)}\n${buildLine(report)}`;
}

/** The README's Markdown table of the same figures (start-up and RSS medians, ratios to tsx). */
export function renderReadmeStartUpTable(report: StartUpReport): string {
  return [
    `| server | runtime | start-up (spawn → ready, median of ${report.runs}) | RSS after start (process tree, ${report.settleS} s idle) |`,
    '|---|---|---|---|',
    ...report.rows.map((row) => {
      const tsx = tsxRowOf(report, row);
      const startRatio = ratio(row.startMs, tsx?.startMs, row.runtime);
      const rssRatio = ratio(row.rssMb, tsx?.rssMb, row.runtime);
      const processes = row.processes === 1 ? '1 process' : `${row.processes} processes`;
      return `| ${SERVER_LABELS[row.server]} | ${row.runtime} | ${row.startMs} ms${startRatio ? ` (${startRatio})` : ''} | ${row.rssMb.toFixed(0)} MB${rssRatio ? ` (${rssRatio})` : ''}, ${processes} |`;
    }),
    '',
    buildLine(report),
  ].join('\n');
}
