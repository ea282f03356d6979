/**
 * Reads a process's CPU time and resident memory from outside, through /proc (Linux): CPU time
 * from /proc/<pid>/stat (utime + stime, with cutime + cstime of its ended children, in clock ticks;
 * a process's figure covers all its threads, worker threads included) and RSS from /proc/<pid>/status (VmRSS). Child processes, found through
 * /proc/<pid>/task/<tid>/children, are added, recursively.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** What a process (with its descendants) used so far. */
export interface ProcessUsage {
  /** User + system CPU time since the process started, µs (resolution: one clock tick, usually 10 000 µs). */
  readonly cpuMicros: number;
  /** Resident set size now, bytes (the sum over the processes: pages they share are counted once per process). */
  readonly rssBytes: number;
  /** How many processes the figures cover: the process and its descendants (e.g. 3 for Node with two esbuild services). */
  readonly processes: number;
}

let clockTicksPerSecond: number | undefined;

/** `getconf CLK_TCK` (clock ticks per second of /proc/<pid>/stat), 100 when it cannot be read. */
export function ticksPerSecond(): number {
  if (clockTicksPerSecond !== undefined) return clockTicksPerSecond;
  try {
    const value = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    clockTicksPerSecond = Number.isInteger(value) && value > 0 ? value : 100;
  } catch {
    clockTicksPerSecond = 100;
  }
  return clockTicksPerSecond;
}

/**
 * utime + stime + cutime + cstime of /proc/<pid>/stat, in clock ticks: the process's CPU time and
 * that of its children that ended and were waited for (a server's chdb engine process that
 * stopped while idle, say), so that a tree's CPU keeps what its ended processes used
 * (https://man7.org/linux/man-pages/man5/proc_pid_stat.5.html, fields 14–17). The command name
 * (field 2) may hold spaces and parentheses, so the fields are counted from its closing parenthesis.
 * @throws Error when the line has fewer fields than expected
 */
export function parseStatCpuTicks(statLine: string): number {
  const fields = statLine.slice(statLine.lastIndexOf(')') + 2).split(' ');
  // After the command: field 3 (state) is index 0, so utime (field 14) is index 11, stime 12, cutime 13, cstime 14.
  const ticks = [11, 12, 13, 14].map((index) => Number(fields[index]));
  if (!ticks.every((value) => Number.isFinite(value)))
    throw new Error(`unexpected /proc stat line: ${statLine.slice(0, 200)}`);
  return ticks.reduce((sum, value) => sum + value, 0);
}

/** VmRSS of a /proc/<pid>/status text, bytes (0 when absent, as for a zombie). */
export function parseStatusRssBytes(statusText: string): number {
  const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(statusText);
  return match?.[1] ? Number(match[1]) * 1024 : 0;
}

/**
 * PIDs of the direct children of `pid` (empty when the kernel does not list them): of every thread
 * of `pid` with `allThreads` (a server's worker thread may start a child, as the embedded
 * analytics engine's relay thread does), else of its main thread only. Listing a process's threads
 * creates a /proc entry per thread the kernel keeps cached, and the embedded analytics engine's
 * thread pools come and go; with its threads listed on every sample, reaping the engine twice took
 * the kernel minutes (README, "Tests and benchmarks").
 */
function childPids(pid: number, allThreads: boolean): number[] {
  const children: number[] = [];
  let tasks: string[];
  try {
    tasks = allThreads ? readdirSync(`/proc/${pid}/task`) : [String(pid)];
  } catch {
    return children;
  }
  for (const tid of tasks) {
    try {
      for (const child of readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').split(' '))
        if (child.trim()) children.push(Number(child));
    } catch {
      // thread ended meanwhile, or no `children` file in this kernel
    }
  }
  return children;
}

/**
 * CPU time and RSS of process `pid` plus every descendant process (its whole process tree: for a
 * server on tsx, the esbuild service processes tsx starts; for the embedded server, its analytics
 * engine; for a peer, its workers). The children of `pid` are found from all its threads, those of
 * a descendant from its main thread (childPids). `descendant`: `pid` was found below another
 * process (set by the recursion; callers leave it false).
 * @throws Error when `pid` itself cannot be read (not running, or not Linux)
 */
export function readProcessUsage(pid: number, descendant = false): ProcessUsage {
  const ticks = parseStatCpuTicks(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  let cpuMicros = (ticks * 1_000_000) / ticksPerSecond();
  let rssBytes = parseStatusRssBytes(readFileSync(`/proc/${pid}/status`, 'utf8'));
  let processes = 1;
  for (const child of childPids(pid, !descendant)) {
    try {
      const usage = readProcessUsage(child, true);
      cpuMicros += usage.cpuMicros;
      rssBytes += usage.rssBytes;
      processes += usage.processes;
    } catch {
      // the child exited between the listing and the read
    }
  }
  return { cpuMicros, rssBytes, processes };
}
