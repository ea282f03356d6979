/**
 * Where a server's CPU goes, per request: the bench's explanation of a CPU target it misses.
 * For one request shape, the server child's control server starts V8's sampling profiler on its
 * request thread (PROFILE_START_PATH, node:inspector), the shape is loaded for a few seconds,
 * and the profile comes back (PROFILE_STOP_PATH). Meanwhile each thread's CPU time is read from
 * /proc/<pid>/task/<tid>/stat, so the request thread's CPU is split by the profile's samples and
 * the other threads (V8's platform workers: parallel scavenges, concurrent marking and optimizing
 * compiles; libuv's pool; worker threads) are counted by thread name. The profiler's own thread
 * is left out; its sampling (every 250 µs) still costs the request thread a few percent, the same
 * share for both servers.
 *
 * Categories of the request thread's samples (self time, by the frame that was running):
 * - `socket and file I/O (native)`: write, writev, read and file calls into Node's native bindings
 *   (the kernel's share of sending and receiving: the same syscalls for a floor and a gateway);
 * - `garbage collection` (the profiler's `(garbage collector)` node);
 * - `Tollgate: <folder>`: functions of gateway/, infra/, schemas/, consumers/ by their first two
 *   path segments (e.g. `gateway/exchange`);
 * - `<package>`: functions of a dependency, by npm package name;
 * - `Node.js internals`: `node:` modules (http, streams, timers, events);
 * - `JSON parse and stringify (native)`, `promise jobs (native)` (microtask runs),
 *   `V8 outside JavaScript` (the profiler's `(program)`: V8's runtime, IC misses, compiling),
 *   `other native calls`.
 * V8 CPU profile format: https://chromedevtools.github.io/devtools-protocol/tot/Profiler/#type-Profile
 */
import { readdirSync, readFileSync } from 'node:fs';
import { request } from 'undici';
import { PROFILE_START_PATH, PROFILE_STOP_PATH } from './bench-server-contract.ts';
import { runLoadPhase } from './run-load-phase.ts';

/** One node of a V8 CPU profile (the fields read here). */
interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string };
}

/** A V8 CPU profile as Profiler.stop returns it. */
export interface CpuProfile {
  readonly nodes: ReadonlyArray<ProfileNode>;
  readonly samples: ReadonlyArray<number>;
  /** µs between consecutive samples (the first from startTime). */
  readonly timeDeltas: ReadonlyArray<number>;
}

/** CPU per request of one category, µs. */
export interface CpuShare {
  readonly category: string;
  readonly usPerRequest: number;
}

/** A server's CPU per request, split by where it went. */
export interface CpuBreakdown {
  readonly requests: number;
  /** All threads, µs per request. */
  readonly totalUsPerRequest: number;
  /** The request thread's CPU split by its profile's categories, then other threads by name; largest first. */
  readonly shares: ReadonlyArray<CpuShare>;
}

/** CPU ticks per thread of `pid`, keyed by `<tid> <thread name>`. */
function threadTicks(pid: number): Map<string, number> {
  const ticks = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks.set(`${tid} ${name}`, Number(fields[11]) + Number(fields[12]));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return ticks;
}

/** The profiler's own thread (its cost is the measurement's, not the server's): left out. */
const PROFILER_THREAD = 'v8:ProfEvntProc';

/**
 * Thread name → what it does, for the threads other than the request thread. Node names its
 * worker threads (`WorkerThread`) and, from v22, libuv's pool (`libuv-worker`); V8's platform
 * workers and, before v22, libuv's pool keep the process's name.
 */
function threadCategory(name: string): string {
  if (name.startsWith('libuv-worker')) return 'threads: libuv pool (file I/O, DNS)';
  if (name === 'node' || name.startsWith('V8 ') || name.startsWith('DefaultWorker'))
    return 'threads: V8 helpers (parallel GC, optimizing compiler) and libuv pool';
  return `thread ${name}`;
}

/** The category of one profile frame (see the module doc). */
export function frameCategory(functionName: string, url: string): string {
  if (functionName === '(garbage collector)') return 'garbage collection';
  if (functionName === '(idle)') return '(idle)';
  if (url === '') {
    if (
      /^(writev|writeBuffer|writeLatin1String|writeUtf8String|writeAsciiString|read|readFileUtf8|open|close|fstat|fsync|fdatasync)$/.test(
        functionName,
      )
    )
      return 'socket and file I/O (native)';
    if (functionName === 'parse' || functionName === 'stringify') return 'JSON parse and stringify (native)';
    if (functionName === 'runMicrotasks') return 'promise jobs (native)';
    if (functionName === '(program)') return 'V8 outside JavaScript ((program): runtime, IC misses, compiling)';
    return 'other native calls';
  }
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency) return dependency[1] ?? 'dependencies';
  if (url.startsWith('node:')) return 'Node.js internals';
  const own = /\/((?:gateway|infra|schemas|consumers)\/[^/]+)/.exec(url);
  if (own) return `Tollgate: ${(own[1] ?? '').replace(/\.(ts|js)$/, '')}`;
  if (url.includes('/test/')) return 'bench harness';
  return 'other';
}

/** Self time of each category in `profile`, µs (idle left out). */
export function profileCategories(profile: CpuProfile): Map<string, number> {
  const categoryOf = new Map<number, string>();
  for (const node of profile.nodes)
    categoryOf.set(node.id, frameCategory(node.callFrame.functionName, node.callFrame.url));
  const totals = new Map<string, number>();
  profile.samples.forEach((id, index) => {
    const category = categoryOf.get(id) ?? 'other';
    if (category === '(idle)') return;
    totals.set(category, (totals.get(category) ?? 0) + (profile.timeDeltas[index] ?? 0));
  });
  return totals;
}

/**
 * Loads `url` with `body` (32 connections, `seconds` s, after `warmupS` s) while the server child
 * (PID `pid`, control server `controlOrigin`) profiles its request thread, and splits its CPU per
 * request (see the module doc). The request thread is the thread whose id is the PID.
 * @throws Error when the control server refuses to profile, or the load fails (runLoadPhase)
 */
export async function profileServerCpu(options: {
  readonly pid: number;
  readonly controlOrigin: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly seconds: number;
  readonly warmupS: number;
  readonly clockTicksPerSecond: number;
}): Promise<CpuBreakdown> {
  const { pid, controlOrigin } = options;
  const load = { url: options.url, headers: options.headers, body: options.body, connections: 32 };
  if (options.warmupS > 0) await runLoadPhase({ ...load, durationS: options.warmupS });
  const started = await request(`${controlOrigin}${PROFILE_START_PATH}`);
  await started.body.text();
  if (started.statusCode !== 200) throw new Error(`profiling did not start: ${started.statusCode}`);
  const before = threadTicks(pid);
  const result = await runLoadPhase({ ...load, durationS: options.seconds });
  const after = threadTicks(pid);
  const stopped = await request(`${controlOrigin}${PROFILE_STOP_PATH}`);
  if (stopped.statusCode !== 200) throw new Error(`profiling did not stop: ${stopped.statusCode}`);
  const profile = (await stopped.body.json()) as CpuProfile;
  const usPerTick = 1e6 / options.clockTicksPerSecond;
  const perRequest = (ticks: number): number => (ticks * usPerTick) / result.requests;
  const shares = new Map<string, number>();
  let totalTicks = 0;
  let requestThreadTicks = 0;
  for (const [thread, ticks] of after) {
    const used = ticks - (before.get(thread) ?? 0);
    const [tid, ...name] = thread.split(' ');
    if (name.join(' ') === PROFILER_THREAD) continue;
    totalTicks += used;
    if (Number(tid) === pid) requestThreadTicks = used;
    else if (used > 0) {
      const category = threadCategory(name.join(' '));
      shares.set(category, (shares.get(category) ?? 0) + perRequest(used));
    }
  }
  const categories = profileCategories(profile);
  const sampled = [...categories.values()].reduce((sum, value) => sum + value, 0);
  for (const [category, micros] of categories)
    if (sampled > 0)
      shares.set(category, (shares.get(category) ?? 0) + (micros / sampled) * perRequest(requestThreadTicks));
  return {
    requests: result.requests,
    totalUsPerRequest: perRequest(totalTicks),
    shares: [...shares]
      .map(([category, usPerRequest]) => ({ category, usPerRequest }))
      .sort((a, b) => b.usPerRequest - a.usPerRequest),
  };
}

/**
 * The breakdown table of one shape: each category's µs per request on the floor and on the
 * gateway, and the difference, largest difference first; categories under 1 µs on both are
 * summed into one row.
 */
export function formatCpuBreakdown(label: string, floor: CpuBreakdown, gateway: CpuBreakdown): string {
  const floorOf = new Map(floor.shares.map((s) => [s.category, s.usPerRequest]));
  const gatewayOf = new Map(gateway.shares.map((s) => [s.category, s.usPerRequest]));
  const categories = [...new Set([...floorOf.keys(), ...gatewayOf.keys()])];
  const rows = categories
    .map((category) => ({ category, floor: floorOf.get(category) ?? 0, gateway: gatewayOf.get(category) ?? 0 }))
    .sort((a, b) => b.gateway - b.floor - (a.gateway - a.floor));
  const shown = rows.filter((r) => r.floor >= 1 || r.gateway >= 1);
  const rest = rows.filter((r) => r.floor < 1 && r.gateway < 1);
  const restRow = {
    category: `${rest.length} more, under 1 µs each`,
    floor: rest.reduce((sum, r) => sum + r.floor, 0),
    gateway: rest.reduce((sum, r) => sum + r.gateway, 0),
  };
  const lines = [
    `${label}: CPU per request, µs (floor ${floor.totalUsPerRequest.toFixed(0)}, gateway alone ${gateway.totalUsPerRequest.toFixed(0)})`,
    ...[...shown, ...(rest.length > 0 ? [restRow] : [])].map(
      (r) =>
        `  ${r.category.padEnd(52)} ${r.floor.toFixed(1).padStart(7)} ${r.gateway.toFixed(1).padStart(7)} ${(r.gateway - r.floor >= 0 ? '+' : '') + (r.gateway - r.floor).toFixed(1)}`,
    ),
  ];
  return lines.join('\n');
}
