/**
 * Compiles the production entries to plain JavaScript in a build directory with tsconfig.build.json,
 * which rewrites the source's `.ts` imports to `.js`
 * (https://www.typescriptlang.org/tsconfig/#rewriteRelativeImportExtensions), then copies next to
 * the compiled modules every runtime file that is not TypeScript: the `.mjs` modules, the Avro
 * schemas and their history, the ClickHouse migrations, the console's web files. The tree mirrors
 * the repository's (OUT_DIR/infra/processes/tollgate-server.js), so modules find those files at the
 * same relative paths as from source. OUT_DIR must be inside the repository (or next to its
 * node_modules) for the packages to resolve. A bench build (tsconfig.bench-dist.json) adds the
 * bench servers (test/bench/bench-servers.ts) and the test modules they import.
 * Last, it writes the source stamp (source-stamp.mjs) taken before compiling into
 * OUT_DIR/.source-stamp.json, so a file changed during the build makes the next check rebuild.
 * Used by build-dist.mjs (`npm run build`) and ensure-dist.mjs (`npm start`, the bench).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { computeSourceStamp, REPO_ROOT, SOURCE_DIRS, STAMP_FILE } from './source-stamp.mjs';

/** Not needed at run time: TypeScript sources and declarations, documentation. */
const SKIPPED = /\.(ts|mts|cts|md)$/;
/** Not copied: this build step, and the worker shim that loads TypeScript through tsx (consumer-thread.ts starts the compiled worker instead). */
const SOURCE_ONLY = [
  join(REPO_ROOT, 'infra', 'build'),
  join(REPO_ROOT, 'infra', 'processes', 'consumer-thread-entry.mjs'),
];
/** The test folders whose non-TypeScript files a bench build copies (the bench servers' own files). */
const BENCH_COPIED_DIRS = [join('test', 'bench'), join('test', 'support')];

/**
 * Empties `outDir`, compiles into it with tsc and copies the runtime files.
 * @param {string} outDir absolute path of the build directory (replaced)
 * @param {{ includeBench?: boolean, tscOutput?: 'inherit' | 'stderr' }} [options]
 *   includeBench: compile with tsconfig.bench-dist.json (adds the bench servers);
 *   tscOutput: where tsc's diagnostics go, this process's stdout (`inherit`, default) or its stderr
 *   (a launcher whose stdout is the server's log)
 * @returns {number} tsc's exit status: 0, or non-zero when it reported type errors (the JavaScript is
 *   emitted and copied all the same) or could not run
 */
export function compileDist(outDir, options = {}) {
  const stamp = computeSourceStamp({ includeBench: options.includeBench });
  rmSync(outDir, { recursive: true, force: true });
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const project = join(REPO_ROOT, options.includeBench ? 'tsconfig.bench-dist.json' : 'tsconfig.build.json');
  const compiled = spawnSync(process.execPath, [tsc, '-p', project, '--outDir', outDir], {
    stdio: options.tscOutput === 'stderr' ? ['ignore', 2, 2] : 'inherit',
  });
  const copied = options.includeBench ? [...SOURCE_DIRS, ...BENCH_COPIED_DIRS] : SOURCE_DIRS;
  for (const dir of copied) {
    cpSync(join(REPO_ROOT, dir), join(outDir, dir), {
      recursive: true,
      filter: (source) => !SKIPPED.test(source) && !SOURCE_ONLY.some((path) => source.startsWith(path)),
    });
  }
  const status = compiled.status ?? 1;
  writeFileSync(
    join(outDir, STAMP_FILE),
    `${JSON.stringify({ digest: stamp.digest, files: stamp.files, builtAt: new Date().toISOString(), tscStatus: status }, null, 2)}\n`,
  );
  return status;
}
