/**
 * `npm run bench:readme`: rewrites the README's performance table (between `<!-- bench:begin -->`
 * and `<!-- bench:end -->`) from `test-artifacts/bench/latest.json`, the report of the last
 * `npm run bench`. Exit codes: 0 written; 1 the report or a marker is missing or unreadable.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { BenchReport } from './format-bench-report.ts';
import { renderReadmeBenchSection, replaceReadmeBenchSection } from './format-readme-bench-table.ts';

const REPORT_FILE = fileURLToPath(new URL('../../test-artifacts/bench/latest.json', import.meta.url));
const README_FILE = fileURLToPath(new URL('../../README.md', import.meta.url));

try {
  const report = JSON.parse(readFileSync(REPORT_FILE, 'utf8')) as BenchReport;
  if (!Array.isArray(report.rows) || !Array.isArray(report.footprints) || !Array.isArray(report.verdicts))
    throw new Error(`${REPORT_FILE} is not a report of this bench (run npm run bench first)`);
  const readme = readFileSync(README_FILE, 'utf8');
  writeFileSync(README_FILE, replaceReadmeBenchSection(readme, renderReadmeBenchSection(report)));
  process.stdout.write(`README.md: performance table rewritten from the run of ${report.generatedAt}\n`);
} catch (error) {
  process.stderr.write(`bench:readme failed: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
