/**
 * The bench's scaling sweep: whether Tollgate's CPU per request stays a constant multiple of the
 * floor proxy's as the work grows. Against one upstream (scaling-sweep-upstream.ts, in this
 * process, answering a fixed small reply or a stream of a chosen length), a floor proxy and a
 * gateway alone (the same child setups as the bench's cases) are loaded point by point, floor then
 * gateway, after a warm-up of both on every point's body, each with a warm-up then an exact number of requests (send-bench-requests.ts, every
 * answer must be 200); the CPU time of each server's whole process tree is read from /proc around
 * the measured requests (read-process-usage.ts). Dimensions and points:
 * - request body 1 KB, 10 KB, 100 KB, 1 MB (non-streamed Chat Completions pass-through);
 * - streams of 20, 200, 2 000 content events (streamed Chat Completions pass-through);
 * - 1, 100, 1 000, 10 000 concurrent streams (closed loop: that many requests in flight at once,
 *   each a 20-event stream; at least 2 × the level requests), capped by the open-file limit,
 *   since this process holds both the load generator's and the upstream's socket of each stream.
 */
import { readFileSync } from 'node:fs';
import { BENCH_KEY, BENCH_MODEL, type BenchServerStats } from './bench-server-contract.ts';
import {
  formatBodySize,
  scalingRatio,
  scalingSpreads,
  type ScalingDimension,
  type ScalingPoint,
  type ScalingSweepReport,
} from './format-scaling-sweep.ts';
import { readProcessUsage } from './read-process-usage.ts';
import { startScalingSweepUpstream } from './scaling-sweep-upstream.ts';
import { sendBenchRequests } from './send-bench-requests.ts';

/** Request body sizes of the body-size dimension, bytes. */
export const SWEEP_BODY_SIZES = [1024, 10 * 1024, 100 * 1024, 1024 * 1024] as const;

/** Content events per stream of the stream-length dimension. */
export const SWEEP_STREAM_EVENTS = [20, 200, 2000] as const;

/** Streams in flight of the concurrency dimension (before the open-file cap). */
export const SWEEP_CONCURRENT_STREAMS = [1, 100, 1000, 10_000] as const;

/** A server the sweep loads: PID for /proc, origin, and (gateway child) its outcome tallies. */
export interface SweepServer {
  readonly pid: number;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  stats?(): Promise<BenchServerStats>;
}

/** The floor and the gateway alone, started against the sweep's upstream, and their stopper. */
export interface SweepServers {
  readonly floor: SweepServer;
  readonly gateway: SweepServer;
  stop(): Promise<void>;
}

/** How long the sweep runs. */
export interface ScalingSweepSettings {
  /** Requests per server and point before the measured ones. */
  readonly warmupRequests: number;
  /** Measured requests per server and point (concurrency points: at least 2 × the level). */
  readonly requests: number;
  /** Requests in flight for the body-size and stream-length points. */
  readonly connections: number;
  /** Highest concurrency level tried (further capped by the open-file limit). */
  readonly maxStreams: number;
}

/** What one point sends. */
interface PointPlan {
  readonly dimension: ScalingDimension;
  readonly size: number;
  readonly label: string;
  readonly body: string;
  readonly concurrency: number;
  readonly requests: number;
  readonly warmupRequests: number;
  readonly note?: string;
}

const headers: Readonly<Record<string, string>> = {
  'content-type': 'application/json',
  authorization: `Bearer ${BENCH_KEY}`,
};

/** A non-streamed Chat Completions body of exactly `bytes` bytes (ASCII filler words in the user turn). */
export function chatBodyOfSize(bytes: number): string {
  const build = (filler: string): string =>
    JSON.stringify({
      model: BENCH_MODEL,
      messages: [{ role: 'user', content: `Hello there${filler}` }],
      max_tokens: 64,
    });
  const room = bytes - build('').length;
  if (room < 0) throw new Error(`a chat body cannot be ${bytes} bytes (at least ${build('').length})`);
  const filler = ' lorem'.repeat(Math.floor(room / 6)) + ' '.repeat(room % 6);
  return build(filler);
}

/** A streamed Chat Completions body asking the sweep upstream for `events` content chunks. */
export function streamedChatBody(events: number): string {
  return JSON.stringify({
    model: BENCH_MODEL,
    messages: [{ role: 'user', content: `Hello there [sweep:events=${events}]` }],
    max_tokens: 64,
    stream: true,
    stream_options: { include_usage: true },
  });
}

/** Soft limit on open files of this process (/proc/self/limits), or 1024 when unreadable. */
export function openFileLimit(): number {
  try {
    const match = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'));
    return match?.[1] ? Number(match[1]) : 1024;
  } catch {
    return 1024;
  }
}

/** Every point of the sweep in run order, concurrency levels capped at `maxStreams` and by the open-file limit. */
function planPoints(settings: ScalingSweepSettings): PointPlan[] {
  const common = {
    concurrency: settings.connections,
    requests: settings.requests,
    warmupRequests: settings.warmupRequests,
  };
  const body: PointPlan[] = SWEEP_BODY_SIZES.map((size) => ({
    ...common,
    dimension: 'body-size',
    size,
    label: formatBodySize(size),
    body: chatBodyOfSize(size),
  }));
  const events: PointPlan[] = SWEEP_STREAM_EVENTS.map((size) => ({
    ...common,
    dimension: 'stream-events',
    size,
    label: `${size} events`,
    body: streamedChatBody(size),
  }));
  // This process holds the client socket and the upstream's socket of each stream; the gateway holds
  // two as well, plus its own files: 2 000 spare each (9 500 of a 20 000 limit failed with socket errors).
  const fdCap = Math.max(1, Math.floor(openFileLimit() / 2) - 2000);
  const cap = Math.min(settings.maxStreams, fdCap);
  const levels = [...new Set(SWEEP_CONCURRENT_STREAMS.map((level) => Math.min(level, cap)))];
  const concurrent: PointPlan[] = levels.map((level) => {
    const asked = SWEEP_CONCURRENT_STREAMS.filter((l) => Math.min(l, cap) === level);
    const askedMore = asked.some((l) => l !== level);
    return {
      dimension: 'concurrent-streams',
      size: level,
      label: `${level} stream${level === 1 ? '' : 's'}`,
      body: streamedChatBody(20),
      concurrency: level,
      requests: Math.max(settings.requests, 2 * level),
      warmupRequests: Math.max(settings.warmupRequests, level),
      ...(askedMore
        ? {
            note: `${Math.max(...asked)} asked; ${level} measured (${level === fdCap ? `open-file limit ${openFileLimit()}: the load generator and the upstream share this process` : 'BENCH_SWEEP_MAX_STREAMS'})`,
          }
        : {}),
    };
  });
  return [...body, ...events, ...concurrent];
}

/** CPU µs per request of `server` over `plan`'s measured requests (after its warm-up). @throws Error when any answer is not 200 or a gateway outcome failed */
async function measureServer(server: SweepServer, plan: PointPlan): Promise<number> {
  const send = { url: `${server.origin}/v1/chat/completions`, headers, body: plan.body, concurrency: plan.concurrency };
  const before = await server.stats?.();
  await sendBenchRequests({ ...send, count: plan.warmupRequests });
  const cpuBefore = readProcessUsage(server.pid).cpuMicros;
  await sendBenchRequests({ ...send, count: plan.requests });
  const cpuAfter = readProcessUsage(server.pid).cpuMicros;
  if (before && server.stats) {
    const after = await server.stats();
    const failed = after.outcomes.failed - before.outcomes.failed;
    if (failed > 0)
      throw new Error(`scaling sweep ${plan.label}: ${failed} gateway outcomes failed (${after.lastFailure ?? '?'})`);
    if (after.outcomes.translated - before.outcomes.translated > 0)
      throw new Error(`scaling sweep ${plan.label}: requests were translated instead of passed through`);
  }
  return (cpuAfter - cpuBefore) / plan.requests;
}

/**
 * Runs the sweep: starts the upstream in this process, the servers through `startServers` (given
 * the upstream's origin), measures every point, stops everything.
 * A point where any answer is not 200 or a gateway outcome failed is reported as failed (ratio
 * null, the reason in its note) and left out of its dimension's spread.
 * @throws Error when a server does not start or a warm-up request fails
 */
export async function measureScalingSweep(
  settings: ScalingSweepSettings,
  startServers: (upstreamOrigin: string) => Promise<SweepServers>,
  progress: (text: string) => void = () => undefined,
): Promise<ScalingSweepReport> {
  const upstream = await startScalingSweepUpstream();
  let servers: SweepServers | undefined;
  try {
    servers = await startServers(upstream.origin);
    const plans = planPoints(settings);
    // Freshly started servers compile their hot paths during the first thousands of requests: warm
    // both on every point's body first, so the first point is not measured on colder code than the last.
    for (const server of [servers.floor, servers.gateway])
      for (const plan of plans.filter((p) => p.dimension !== 'concurrent-streams'))
        await sendBenchRequests({
          url: `${server.origin}/v1/chat/completions`,
          headers,
          body: plan.body,
          concurrency: Math.min(plan.concurrency, settings.connections),
          count: settings.warmupRequests,
        });
    const points: ScalingPoint[] = [];
    for (const plan of plans) {
      progress(`  ${plan.dimension} ${plan.label} … `);
      let floorCpu: number;
      let gatewayCpu: number;
      try {
        floorCpu = await measureServer(servers.floor, plan);
        upstream.closeIdleConnections();
        gatewayCpu = await measureServer(servers.gateway, plan);
        upstream.closeIdleConnections();
      } catch (error) {
        upstream.closeIdleConnections();
        // A point the machine cannot carry is reported, not fatal: the other points still judge their dimension.
        const reason = error instanceof Error ? error.message : String(error);
        progress(`FAILED: ${reason}\n`);
        points.push({
          dimension: plan.dimension,
          size: plan.size,
          label: plan.label,
          requests: 0,
          floorCpuUsPerRequest: 0,
          gatewayCpuUsPerRequest: 0,
          ratio: null,
          note: `failed, left out of the spread: ${reason.slice(0, 300)}`,
        });
        continue;
      }
      const ratio = scalingRatio(gatewayCpu, floorCpu);
      progress(`floor ${floorCpu.toFixed(0)} µs, gateway ${gatewayCpu.toFixed(0)} µs per request\n`);
      points.push({
        dimension: plan.dimension,
        size: plan.size,
        label: plan.label,
        requests: plan.requests,
        floorCpuUsPerRequest: Number(floorCpu.toFixed(1)),
        gatewayCpuUsPerRequest: Number(gatewayCpu.toFixed(1)),
        ratio: ratio === null ? null : Number(ratio.toFixed(3)),
        ...(plan.note ? { note: plan.note } : {}),
      });
    }
    return {
      warmupRequests: settings.warmupRequests,
      requests: settings.requests,
      connections: settings.connections,
      points,
      spreads: scalingSpreads(points).map((s) => ({
        ...s,
        spread: s.spread === null ? null : Number(s.spread.toFixed(3)),
      })),
    };
  } finally {
    await servers?.stop();
    await upstream.close();
  }
}
