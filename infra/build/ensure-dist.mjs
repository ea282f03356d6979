/**
 * `node infra/build/ensure-dist.mjs <entry.js> [args…]` — how `npm start` and `npm run consumers`
 * run Tollgate: Node on the compiled JavaScript in dist/, built here first when dist/ is missing or
 * was built from other sources (source-stamp.mjs: path, size and modification time of every source
 * file), then imported into this same process. A fresh clone's first start compiles once (tsc,
 * some seconds); later starts only compare the stamp (a few ms) and load no TypeScript tooling.
 * The entry runs in this process (`import()`, no child): a signal sent to the started process
 * reaches the server itself, and `process.argv` is rewritten to what `node dist/<entry.js> [args…]`
 * would see.
 *
 * Concurrent starts on a stale tree build once: a lock file next to the build directory
 * (`.dist.lock`, holding the builder's PID; a lock whose process is gone is taken over) makes the
 * others wait, then they find the stamp fresh. A build is written to a temporary directory next to
 * the build directory (`.dist.building-<pid>-<random>`) and renamed into place, so dist/ is only
 * ever absent for an instant or complete, never half written, even when a build is killed.
 * A build with type errors still runs (tsc emits the JavaScript, as tsx would run the sources);
 * its diagnostics go to stderr, so the server's stdout stays its log.
 * Exit code 1, with the reason on stderr, when the entry is not given or not in the build.
 */
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, isAbsolute, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compileDist } from './compile-dist.mjs';
import { computeSourceStamp, readBuiltDigest, REPO_ROOT } from './source-stamp.mjs';

/** The production build directory. */
export const DIST_DIR = join(REPO_ROOT, 'dist');

/** How long a start waits for another process's build, ms. */
const LOCK_WAIT_MS = 10 * 60_000;
/** A lock file without a PID (its writer died between creating and writing it) is stale after this, ms. */
const EMPTY_LOCK_STALE_MS = 10_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether process `pid` exists (https://nodejs.org/api/process.html#processkillpid-signal with signal 0). */
function processAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/** The lock file and the prefix of the temporary directories of build directory `outDir`. */
function siblingsOf(outDir) {
  const prefix = join(dirname(outDir), `.${basename(outDir)}`);
  return { lockFile: `${prefix}.lock`, buildingPrefix: `${prefix}.building-`, replacedPrefix: `${prefix}.replaced-` };
}

/**
 * Takes the build lock of `outDir`, waiting while a live process holds it.
 * @returns {Promise<() => void>} the release function
 * @throws Error when the lock stays held for LOCK_WAIT_MS
 */
async function acquireBuildLock(outDir, log) {
  const { lockFile } = siblingsOf(outDir);
  mkdirSync(dirname(outDir), { recursive: true });
  const deadline = Date.now() + LOCK_WAIT_MS;
  let announced = false;
  for (;;) {
    try {
      const fd = openSync(lockFile, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockFile, { force: true });
    } catch (error) {
      if (error.code !== 'EEXIST') throw error;
    }
    let holder = NaN;
    let ageMs = 0;
    try {
      holder = Number.parseInt(readFileSync(lockFile, 'utf8'), 10);
      ageMs = Date.now() - statSync(lockFile).mtimeMs;
    } catch {
      continue; // released meanwhile
    }
    const stale = Number.isInteger(holder) ? !processAlive(holder) : ageMs > EMPTY_LOCK_STALE_MS;
    if (stale) {
      try {
        unlinkSync(lockFile);
      } catch {
        // another waiter removed it first
      }
      continue;
    }
    if (!announced) {
      log(`waiting for the build of ${relative(REPO_ROOT, outDir) || outDir} by process ${holder} …`);
      announced = true;
    }
    if (Date.now() > deadline)
      throw new Error(`the build lock ${lockFile} is still held by process ${holder} after ${LOCK_WAIT_MS} ms`);
    await sleep(200);
  }
}

/** Removes temporary directories left by builds whose process is gone (killed mid-build). */
function removeAbandonedBuilds(outDir) {
  const { buildingPrefix, replacedPrefix } = siblingsOf(outDir);
  const parent = dirname(outDir);
  for (const name of readdirSync(parent)) {
    const path = join(parent, name);
    const prefix = [buildingPrefix, replacedPrefix].find((p) => path.startsWith(p));
    if (!prefix) continue;
    const pid = Number.parseInt(path.slice(prefix.length), 10);
    if (!processAlive(pid)) rmSync(path, { recursive: true, force: true });
  }
}

/**
 * Moves the finished build `built` to `outDir`. Each rename is atomic; between the two, `outDir`
 * is absent for an instant (a concurrent check then takes the lock and finds the new build).
 */
function moveIntoPlace(built, outDir) {
  const { replacedPrefix } = siblingsOf(outDir);
  const replaced = `${replacedPrefix}${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  for (let attempt = 0; ; attempt++) {
    try {
      renameSync(outDir, replaced);
    } catch (error) {
      if (error.code !== 'ENOENT') throw error;
    }
    try {
      renameSync(built, outDir);
      break;
    } catch (error) {
      // another build moved in between the two renames (a lock taken over from a live process): go again
      if ((error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') || attempt >= 5) throw error;
    }
  }
  rmSync(replaced, { recursive: true, force: true });
}

/**
 * Builds `outDir` now, under its lock, through a temporary directory renamed into place.
 * @param {{ outDir?: string, includeBench?: boolean, tscOutput?: 'inherit' | 'stderr', log?: (line: string) => void }} [options]
 *   outDir: absolute path (default dist/); includeBench: a bench build (compile-dist.mjs);
 *   tscOutput: where tsc's diagnostics go; log: progress lines (default: stderr)
 * @returns {Promise<{ tscStatus: number, buildMs: number }>} tsc's exit status (non-zero: type
 *   errors, the JavaScript emitted all the same) and the build's wall time, ms
 * @throws Error when the lock stays held by a live process for 10 minutes, or a rename fails
 */
export async function rebuildDist(options = {}) {
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  const outDir = options.outDir ?? DIST_DIR;
  const release = await acquireBuildLock(outDir, log);
  try {
    return buildLocked(outDir, options);
  } finally {
    release();
  }
}

function buildLocked(outDir, options) {
  const startedAt = performance.now();
  removeAbandonedBuilds(outDir);
  const { buildingPrefix } = siblingsOf(outDir);
  const building = `${buildingPrefix}${process.pid}-${Math.random().toString(36).slice(2, 10)}`;
  let tscStatus;
  try {
    tscStatus = compileDist(building, { includeBench: options.includeBench, tscOutput: options.tscOutput });
    moveIntoPlace(building, outDir);
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return { tscStatus, buildMs: performance.now() - startedAt };
}

/**
 * Whether `outDir` was built from the sources as they are now, and how long telling took: what a
 * start on a built tree pays before the server's own start. Builds nothing.
 * @param {{ outDir?: string, includeBench?: boolean }} [options] as ensureDist's
 * @returns {{ fresh: boolean, checkMs: number }} checkMs: ms
 */
export function isDistFresh(options = {}) {
  const startedAt = performance.now();
  const fresh =
    readBuiltDigest(options.outDir ?? DIST_DIR) ===
    computeSourceStamp({ includeBench: options.includeBench === true }).digest;
  return { fresh, checkMs: performance.now() - startedAt };
}

/**
 * Makes `outDir` match the sources: nothing when its stamp is the tree's, else a build under the
 * lock (re-checked once the lock is held: a concurrent start may have built it meanwhile).
 * @param {{ outDir?: string, includeBench?: boolean, log?: (line: string) => void }} [options] as rebuildDist's
 * @returns {Promise<{ built: boolean, checkMs: number, buildMs?: number, tscStatus?: number }>}
 *   checkMs: time to compare the stamps, ms; buildMs and tscStatus when it built
 * @throws Error as rebuildDist
 */
export async function ensureDist(options = {}) {
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  const outDir = options.outDir ?? DIST_DIR;
  const includeBench = options.includeBench === true;
  const { fresh, checkMs } = isDistFresh({ outDir, includeBench });
  if (fresh) return { built: false, checkMs };
  const release = await acquireBuildLock(outDir, log);
  try {
    if (isDistFresh({ outDir, includeBench }).fresh) return { built: false, checkMs };
    const name = relative(REPO_ROOT, outDir) || outDir;
    log(`compiling to ${name}/ (${existsSync(outDir) ? 'the sources changed since its build' : 'not built yet'}) …`);
    const { tscStatus, buildMs } = buildLocked(outDir, { includeBench, tscOutput: 'stderr' });
    log(
      `compiled to ${name}/ in ${(buildMs / 1000).toFixed(1)} s` +
        (tscStatus === 0
          ? ''
          : ' with type errors (above; `npx tsc --noEmit` lists them): running the JavaScript tsc emitted'),
    );
    return { built: true, checkMs, buildMs, tscStatus };
  } finally {
    release();
  }
}

/**
 * The launcher's first half: ensures dist/ and returns the entry's path in it.
 * @throws Error when the entry is not given or not in the build, or as ensureDist
 */
async function prepareEntry() {
  const [entry, ...args] = process.argv.slice(2);
  if (!entry || isAbsolute(entry) || !entry.endsWith('.js'))
    throw new Error(
      'usage: node infra/build/ensure-dist.mjs <entry.js under dist/, e.g. infra/processes/tollgate-server.js> [args…]',
    );
  await ensureDist();
  const entryPath = join(DIST_DIR, entry);
  if (!existsSync(entryPath)) throw new Error(`${relative(REPO_ROOT, entryPath)} is not in the build`);
  process.argv = [process.argv[0], entryPath, ...args];
  return entryPath;
}

/** Whether this module is the process's main module (`node …/ensure-dist.mjs`; Node gives its real path as import.meta.url). */
function isMainModule() {
  try {
    return process.argv[1] !== undefined && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href;
  } catch {
    return false;
  }
}

if (isMainModule()) {
  const entryPath = await prepareEntry().catch((error) => {
    process.stderr.write(`ensure-dist: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
  // Outside the catch: the entry's own start-up errors reach Node as from `node dist/<entry>`.
  await import(pathToFileURL(entryPath).href);
}
