/**
 * `npm run build [-- OUT_DIR] [--bench]`: compiles the production entries to plain JavaScript in
 * OUT_DIR (default `dist/`, relative to the repository; see compile-dist.mjs for what it holds),
 * always, under the same lock and through the same temporary directory as `npm start`'s
 * ensure-dist.mjs, so a start running meanwhile never sees a half-written build. `--bench` makes a
 * bench build (the bench servers too). OUT_DIR must be inside the repository (or next to its
 * node_modules) for the packages to resolve.
 * Exit code: tsc's (the files are emitted and copied even when it reports type errors); 1 when the
 * build could not be moved into place.
 */
import { resolve } from 'node:path';
import { rebuildDist } from './ensure-dist.mjs';
import { REPO_ROOT } from './source-stamp.mjs';

const args = process.argv.slice(2);
const includeBench = args.includes('--bench');
const outDir = resolve(REPO_ROOT, args.find((arg) => !arg.startsWith('--')) ?? 'dist');
try {
  const { tscStatus } = await rebuildDist({ outDir, includeBench, tscOutput: 'inherit' });
  process.exit(tscStatus);
} catch (error) {
  process.stderr.write(`build-dist: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
