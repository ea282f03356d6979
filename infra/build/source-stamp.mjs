/**
 * The source stamp of a build: a SHA-256 digest over the path, size (bytes) and modification time
 * (ms) of every file a build reads — the four source folders (gateway/, consumers/, schemas/,
 * infra/), test/ for a build that includes the bench, tsconfig*.json and package-lock.json.
 * compile-dist.mjs writes the stamp it built from into OUT_DIR/.source-stamp.json; ensure-dist.mjs
 * rebuilds when the stamp of the tree differs from it. Equality, not "newer than": a file restored
 * with an older time (git checkout of an older commit, `cp -p`), a file added, removed or renamed
 * all change the digest. Only metadata is read (one stat per file, a few ms for the whole tree).
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (this file is infra/build/source-stamp.mjs). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The file in a build directory that holds the stamp it was built from. */
export const STAMP_FILE = '.source-stamp.json';

/** The folders every build compiles and copies from. */
export const SOURCE_DIRS = ['gateway', 'consumers', 'schemas', 'infra'];

/** The folder a bench build adds (the bench servers and the test modules they import). */
export const BENCH_SOURCE_DIRS = ['test'];

/** Root files that change what tsc emits or what the emitted code resolves. */
const ROOT_FILE_PATTERN = /^(tsconfig.*\.json|package-lock\.json)$/;

/** Appends `relative\tsize\tmtimeMs` for every file under `dir` (recursively) to `lines`. */
function listFiles(dir, relative, lines) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return; // a folder that does not exist contributes nothing
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    const name = `${relative}/${entry.name}`;
    if (entry.isDirectory()) listFiles(path, name, lines);
    else if (entry.isFile()) {
      const stats = statSync(path);
      lines.push(`${name}\t${stats.size}\t${stats.mtimeMs}`);
    }
  }
}

/**
 * The stamp of the tree as it is now.
 * @param {{ includeBench?: boolean, root?: string }} [options] includeBench: also test/ (a bench
 *   build); root: the repository's root (default REPO_ROOT)
 * @returns {{ digest: string, files: number }} digest: hex SHA-256; files: how many files it covers
 */
export function computeSourceStamp(options = {}) {
  const root = options.root ?? REPO_ROOT;
  const lines = [];
  const dirs = options.includeBench ? [...SOURCE_DIRS, ...BENCH_SOURCE_DIRS] : SOURCE_DIRS;
  for (const dir of dirs) listFiles(join(root, dir), dir, lines);
  for (const name of readdirSync(root)) {
    if (!ROOT_FILE_PATTERN.test(name)) continue;
    const stats = statSync(join(root, name));
    lines.push(`${name}\t${stats.size}\t${stats.mtimeMs}`);
  }
  lines.sort();
  lines.unshift(options.includeBench ? 'bench build' : 'production build');
  return { digest: createHash('sha256').update(lines.join('\n')).digest('hex'), files: lines.length - 1 };
}

/**
 * The digest a build directory was built from, or undefined when it has none (never built, an
 * unfinished build, a build by an older compile-dist.mjs).
 * @param {string} outDir absolute path of the build directory
 * @returns {string | undefined}
 */
export function readBuiltDigest(outDir) {
  try {
    const stamp = JSON.parse(readFileSync(join(outDir, STAMP_FILE), 'utf8'));
    return typeof stamp.digest === 'string' ? stamp.digest : undefined;
  } catch {
    return undefined;
  }
}
