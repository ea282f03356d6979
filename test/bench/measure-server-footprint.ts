/**
 * The footprint of a bench server outside the request-rate cases, read from /proc
 * (read-process-usage.ts): its RSS and CPU use while idle, and the RSS each live stream costs —
 * N concurrent streamed requests held open by a slow upstream (`[mock:slow=MS]` in the prompt
 * makes the mock wait MS before every stream chunk).
 *
 * A proxy holds two sockets per live stream (the client's and its upstream's), so a server whose
 * open-file limit is L can hold at most (L − the descriptors it already has − FD_HEADROOM) / 2
 * streams: beyond that, accepting or connecting fails with EMFILE, and so would the files the
 * server must still open (its event log). The run opens no more than that (`openFileCap`).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, request as httpRequest, type ClientRequest } from 'node:http';
import { readProcessUsage } from './read-process-usage.ts';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A server's idle figures. */
export interface IdleFootprint {
  /** RSS after the settle time, bytes. */
  readonly idleRssBytes: number;
  /** CPU time over the idle window / wall time of the window × 100: percent of one core. */
  readonly idleCpuPercent: number;
}

/**
 * Waits `settleS` seconds, reads each server's RSS, then its CPU time over `cpuWindowS` seconds
 * of no traffic (all servers at once; the caller sends nothing meanwhile). `pids` maps a name to a PID.
 * @throws Error when a server's /proc entry cannot be read
 */
export async function measureIdle(
  pids: Readonly<Record<string, number>>,
  settleS: number,
  cpuWindowS: number,
): Promise<Record<string, IdleFootprint>> {
  await sleep(settleS * 1000);
  const names = Object.keys(pids);
  const rss = new Map(names.map((name) => [name, readProcessUsage(pids[name] ?? -1).rssBytes]));
  const before = new Map(names.map((name) => [name, readProcessUsage(pids[name] ?? -1).cpuMicros]));
  const startedAt = process.hrtime.bigint();
  await sleep(cpuWindowS * 1000);
  const wallMicros = Number(process.hrtime.bigint() - startedAt) / 1000;
  const result: Record<string, IdleFootprint> = {};
  for (const name of names) {
    const cpu = readProcessUsage(pids[name] ?? -1).cpuMicros - (before.get(name) ?? 0);
    result[name] = { idleRssBytes: rss.get(name) ?? 0, idleCpuPercent: (cpu / wallMicros) * 100 };
  }
  return result;
}

/** What to open. */
export interface LiveStreamOptions {
  /** Full URL of the streamed endpoint. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  /** JSON body of a streamed request whose upstream is slow (first chunk after `chunkDelayMs`). */
  readonly body: string;
  /** Streams to open (N). */
  readonly count: number;
  /** The upstream's delay before each chunk, ms: how long the first byte takes once a request arrives. */
  readonly chunkDelayMs: number;
  /** PID whose RSS is read. */
  readonly pid: number;
  /** Most requests not yet written to their socket at once (paces connection set-up; default 256). */
  readonly openWindow?: number;
  /**
   * How long to wait, after the last request is written, for every stream's first body byte, ms
   * (default 3 × `chunkDelayMs` + 10 000: a server may hold its answer until the upstream's first
   * chunk with content, the mock's second, so one chunk delay is not enough).
   */
  readonly openTimeoutMs?: number;
}

/** Descriptors left to the server beyond its streams' sockets and what it holds before they open (files it opens meanwhile). */
export const FD_HEADROOM = 64;

/**
 * The soft open-file limit of process `pid` (/proc/<pid>/limits, "Max open files"), or undefined
 * when unreadable or unlimited.
 */
export function processOpenFileLimit(pid: number): number | undefined {
  try {
    const match = /^Max open files\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/limits`, 'utf8'));
    return match?.[1] ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Raises the open-file limit (soft and hard) of process `pid` so it can hold `streams` streams at two
 * sockets each beside what it holds now and FD_HEADROOM, with util-linux `prlimit --pid`
 * (https://man7.org/linux/man-pages/man1/prlimit.1.html). Above the hard limit this needs
 * CAP_SYS_RESOURCE (root); without it, or without `prlimit`, the limit stays and the bench opens
 * what it allows (streamCapOf). Never throws.
 */
export function raiseOpenFileLimit(pid: number, streams: number): void {
  const limit = processOpenFileLimit(pid);
  if (limit === undefined) return;
  let open: number;
  try {
    open = readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return;
  }
  const wanted = 2 * streams + open + FD_HEADROOM;
  if (wanted <= limit) return;
  try {
    execFileSync('prlimit', ['--pid', String(pid), `--nofile=${wanted}:${wanted}`], { stdio: 'ignore' });
  } catch {
    // No privilege or no prlimit: streamCapOf caps the streams, and the report says so.
  }
}

/**
 * Most streams a proxy process `pid` can hold at two sockets each: (its open-file limit − the
 * descriptors open now − FD_HEADROOM) / 2, or undefined when its limit or descriptors cannot be read.
 */
export function streamCapOf(pid: number): number | undefined {
  const limit = processOpenFileLimit(pid);
  if (limit === undefined) return undefined;
  try {
    return Math.max(0, Math.floor((limit - readdirSync(`/proc/${pid}/fd`).length - FD_HEADROOM) / 2));
  } catch {
    return undefined;
  }
}

/** Share of the requested streams that must open for the RSS per stream to be reported (0.9: 90 %). */
export const MIN_OPEN_SHARE = 0.9;

/** Live-stream figures. */
export interface LiveStreamFootprint {
  /** Streams asked for (N). */
  readonly requested: number;
  /**
   * Present when the server's open-file limit allowed fewer streams than asked for (streamCapOf):
   * the streams opened instead, the limit, and the reason in words.
   */
  readonly openFileCap?: { readonly streams: number; readonly limit: number; readonly reason: string };
  /** Requests sent (below `requested` when the server stopped taking connections). */
  readonly sent: number;
  /** Whether every request could be written to a socket. */
  readonly openedAll: boolean;
  /** Streams whose first body byte arrived before the RSS reading (open streams). */
  readonly reached: number;
  /** Requests answered 200 with headers before the RSS reading (open or about to be). */
  readonly headersReceived: number;
  /** Requests that errored or answered non-200 (e.g. a proxy out of file descriptors). */
  readonly failed: number;
  /** The first such error, when any. */
  readonly firstError?: string;
  /** RSS just before opening, bytes. */
  readonly rssBeforeBytes: number;
  /** RSS with the streams open, bytes. */
  readonly rssOpenBytes: number;
  /**
   * (rssOpenBytes − rssBeforeBytes) / reached / 1024, KB per open stream; null — not measured — when
   * fewer than MIN_OPEN_SHARE of the requested streams opened or the RSS did not grow (see notMeasuredReason).
   */
  readonly kbPerStream: number | null;
  /**
   * (rssOpenBytes − rssBeforeBytes) / (sent − failed) / 1024, KB per request the server held, open
   * or still waiting for its upstream: the fairer figure when fewer streams opened than were sent.
   * Null when no request was held or the RSS did not grow.
   */
  readonly kbPerHeldRequest: number | null;
  /** Why kbPerStream is null, in words (absent when it was measured). */
  readonly notMeasuredReason?: string;
  /** Seconds from the first request to the RSS reading. */
  readonly openSeconds: number;
}

/** The counts and RSS readings of a live-stream run, before any per-stream figure. */
export interface LiveStreamCounts {
  readonly requested: number;
  readonly sent: number;
  readonly reached: number;
  readonly failed: number;
  /** RSS before opening and with the streams open, bytes. */
  readonly rssBeforeBytes: number;
  readonly rssOpenBytes: number;
  /** How long the run waited for first bytes after the last request was written, ms (for the reason text). */
  readonly openTimeoutMs: number;
}

const mb = (bytes: number): string => (bytes / 1024 / 1024).toFixed(1);

/**
 * The per-stream figures of a run (KB = 1024 bytes), or why there are none: fewer than
 * MIN_OPEN_SHARE of the requested streams open (an RSS delta spread over a handful of streams says
 * nothing), or an RSS that did not grow (memory the server freed from earlier load outweighed the
 * streams, so any quotient would be noise or negative).
 */
export function liveStreamFigures(
  counts: LiveStreamCounts,
): Pick<LiveStreamFootprint, 'kbPerStream' | 'kbPerHeldRequest' | 'notMeasuredReason'> {
  const delta = counts.rssOpenBytes - counts.rssBeforeBytes;
  const held = counts.sent - counts.failed;
  const kbPerHeldRequest = delta > 0 && held > 0 ? delta / held / 1024 : null;
  const needed = Math.ceil(counts.requested * MIN_OPEN_SHARE);
  if (counts.reached < needed) {
    const failed = counts.failed > 0 ? `, ${counts.failed} failed` : '';
    const reason = `only ${counts.reached} of ${counts.requested} streams opened within ${Math.round(counts.openTimeoutMs / 1000)} s of the last request (fewer than ${Math.round(MIN_OPEN_SHARE * 100)} %${failed})`;
    return { kbPerStream: null, kbPerHeldRequest, notMeasuredReason: reason };
  }
  if (delta <= 0) {
    const change = delta === 0 ? 'did not grow' : `fell by ${mb(-delta)} MB`;
    const why =
      'the streams cost less than the server freed meanwhile (e.g. garbage of the load cases); more streams would show them';
    return {
      kbPerStream: null,
      kbPerHeldRequest: null,
      notMeasuredReason: `RSS ${change} with ${counts.reached} streams open (${mb(counts.rssBeforeBytes)} → ${mb(counts.rssOpenBytes)} MB): ${why}`,
    };
  }
  return { kbPerStream: delta / counts.reached / 1024, kbPerHeldRequest };
}

/**
 * Opens `count` streamed requests — no more than the server's open-file limit allows (streamCapOf) — (plain node:http, one socket each, at most `openWindow` not yet
 * written at once; opening stops after 60 s without progress), waits until every one has its first
 * body byte — or until `openTimeoutMs` after the last was written, reporting how many did —
 * reads the server's RSS, then aborts them all and waits 2 s for the server to let go. The RSS
 * per stream is given only when enough streams opened and the RSS grew (liveStreamFigures).
 * Never throws for requests that fail; they are counted in `failed`.
 * @throws Error when the server's /proc entry cannot be read
 */
export async function measureLiveStreams(options: LiveStreamOptions): Promise<LiveStreamFootprint> {
  const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
  const headers = { ...options.headers, 'content-length': String(Buffer.byteLength(options.body)) };
  const window = options.openWindow ?? 256;
  const requests: ClientRequest[] = [];
  let reached = 0;
  let headersReceived = 0;
  let failed = 0;
  let unwritten = 0;
  let firstError: string | undefined;
  let aborting = false;
  let wake: (() => void) | undefined;
  const notify = (): void => {
    wake?.();
    wake = undefined;
  };
  const fail = (message: string): void => {
    if (aborting) return;
    failed += 1;
    firstError ??= message;
    notify();
  };
  raiseOpenFileLimit(options.pid, options.count);
  const cap = streamCapOf(options.pid);
  const count = cap === undefined ? options.count : Math.min(options.count, cap);
  const limit = processOpenFileLimit(options.pid) ?? 0;
  const openFileCap =
    count < options.count
      ? {
          streams: count,
          limit,
          reason: `${options.count} asked; ${count} opened: the server's open-file limit is ${limit}, two sockets per stream, and it keeps its own descriptors and ${FD_HEADROOM} spare`,
        }
      : undefined;
  const rssBeforeBytes = readProcessUsage(options.pid).rssBytes;
  const startedAt = Date.now();
  const waitForProgress = (): Promise<unknown> =>
    Promise.race([new Promise<void>((resolve) => (wake = resolve)), sleep(250)]);
  // A server that stops taking connections (out of file descriptors) leaves requests unwritten: stop opening after 60 s without progress.
  let lastProgressAt = Date.now();
  let openedAll = true;
  for (let i = 0; i < count; i++) {
    while (unwritten >= window && Date.now() - lastProgressAt < 60_000) await waitForProgress();
    if (unwritten >= window) {
      openedAll = false;
      break;
    }
    unwritten += 1;
    let written = false;
    const markWritten = (): void => {
      if (written) return;
      written = true;
      unwritten -= 1;
      lastProgressAt = Date.now();
      notify();
    };
    const req = httpRequest(options.url, { method: 'POST', agent, headers });
    req.once('finish', markWritten);
    req.once('error', (error) => {
      markWritten();
      fail(error.message);
    });
    req.once('response', (response) => {
      if (response.statusCode !== 200) {
        response.resume();
        return fail(`status ${response.statusCode}`);
      }
      headersReceived += 1;
      let first = true;
      response.on('data', () => {
        if (!first) return;
        first = false;
        reached += 1;
        notify();
      });
      response.on('error', () => undefined);
    });
    req.end(options.body);
    requests.push(req);
  }
  while (unwritten > 0 && Date.now() - lastProgressAt < 60_000) await waitForProgress();
  const openTimeoutMs = options.openTimeoutMs ?? 3 * options.chunkDelayMs + 10_000;
  const deadline = Date.now() + openTimeoutMs;
  while (reached + failed < requests.length && Date.now() < deadline) await waitForProgress();
  const rssOpenBytes = readProcessUsage(options.pid).rssBytes;
  const openSeconds = (Date.now() - startedAt) / 1000;
  aborting = true;
  for (const req of requests) req.destroy();
  agent.destroy();
  await sleep(2000);
  return {
    requested: options.count,
    ...(openFileCap ? { openFileCap } : {}),
    sent: requests.length,
    openedAll,
    reached,
    headersReceived,
    failed,
    ...(firstError ? { firstError } : {}),
    rssBeforeBytes,
    rssOpenBytes,
    ...liveStreamFigures({
      // Measured against the streams the server could hold: a cap is reported, not counted as failure.
      requested: count,
      sent: requests.length,
      reached,
      failed,
      rssBeforeBytes,
      rssOpenBytes,
      openTimeoutMs,
    }),
    openSeconds,
  };
}
