/**
 * `npm run build [-- OUT_DIR]`: compiles the production entries to plain JavaScript in OUT_DIR
 * (default `dist/`, relative to the repository) with tsconfig.build.json, which rewrites the
 * source's `.ts` imports to `.js` (https://www.typescriptlang.org/tsconfig/#rewriteRelativeImportExtensions),
 * then copies next to the compiled modules every runtime file that is not TypeScript: the `.mjs`
 * modules, the Avro schemas and their history, the ClickHouse migrations, the console's web files.
 * The tree under OUT_DIR mirrors the repository's (OUT_DIR/infra/processes/tollgate-server.js),
 * so modules find those files at the same relative paths as from source. OUT_DIR must be inside
 * the repository (or next to its node_modules) for the packages to resolve.
 * Exit code: tsc's (the files are emitted and copied even when it reports type errors).
 */
import { spawnSync } from 'node:child_process';
import { cpSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The directories tsconfig.build.json compiles. */
const SOURCE_DIRS = ['gateway', 'consumers', 'schemas', 'infra'];
/** Not needed at run time: TypeScript sources and declarations, documentation. */
const SKIPPED = /\.(ts|mts|cts|md)$/;
/** Not copied: this build step, and the worker shim that loads TypeScript through tsx (consumer-thread.ts starts the compiled worker instead). */
const SOURCE_ONLY = [join(ROOT, 'infra', 'build'), join(ROOT, 'infra', 'processes', 'consumer-thread-entry.mjs')];

const outDir = resolve(ROOT, process.argv[2] ?? 'dist');
rmSync(outDir, { recursive: true, force: true });
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
const compiled = spawnSync(process.execPath, [tsc, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', outDir], {
  stdio: 'inherit',
});
for (const dir of SOURCE_DIRS) {
  cpSync(join(ROOT, dir), join(outDir, dir), {
    recursive: true,
    filter: (source) => !SKIPPED.test(source) && !SOURCE_ONLY.some((path) => source.startsWith(path)),
  });
}
process.exit(compiled.status ?? 1);
