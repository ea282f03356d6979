/**
 * Child-process entry of the load benchmark: `node <bench build>/test/bench/bench-servers.js <role> [mockBaseUrl]`
 * (or `node --import tsx test/bench/bench-servers.ts …` with BENCH_TSX=1; bench-runtime.ts).
 * - role `mock`: starts the mock upstream on 127.0.0.1, port 0;
 * - role `floor`: starts the featureless pass-through proxy (floor-proxy.ts) on 127.0.0.1, port 0,
 *   forwarding to `mockBaseUrl` + MOCK_BEHAVIOUR_PREFIX;
 * - role `gateway`: starts the gateway on 127.0.0.1, port 0. Its config file is the JSON file named
 *   by BENCH_GATEWAY_CONFIG_FILE when set (bench-gateway-config.ts), else one mock channel
 *   (`bench-mock`, openai-chat, model `mock-1`, no chunk delay) pointing at `mockBaseUrl`.
 *   TOLLGATE_ADMIN_TOKEN, when set, turns its admin API on.
 *   With BENCH_GATEWAY_EVENTS=1 the gateway also publishes its traffic events
 *   to the engines the environment names, and may run the consumers (bench-gateway-events.ts).
 * Each role loads only the modules it serves with, so the floor's memory holds no gateway code.
 * Each role also starts a control server (plain node:http, loopback, port 0) answering any GET
 * with a BenchServerStats JSON, so the parent can read this process's CPU time around a case;
 * under `/pipeline/` it answers the pipeline probe (pipeline-probe.ts) when the consumers run here,
 * and at FLUSH_EVENTS_PATH it flushes the event log and answers the publisher's status.
 * Prints one JSON line (BenchServerReady) to stdout once listening, then stays up until SIGTERM
 * or SIGINT, or until its stdin closes (the parent died), when it closes its servers and exits 0.
 * Start-up failures exit 1 with the error on stderr.
 */
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { Session } from 'node:inspector/promises';
import type { ExchangeOutcome } from '../../gateway/exchange/exchange-outcome.ts';
import type { BenchGatewayEvents } from './bench-gateway-events.ts';
import { MOCK_BEHAVIOUR_PREFIX } from './bench-cases.ts';
import {
  BENCH_KEY,
  BENCH_MODEL,
  BENCH_PRICES,
  FLUSH_EVENTS_PATH,
  HEAP_SAMPLING_START_PATH,
  HEAP_SAMPLING_STOP_PATH,
  PROFILE_START_PATH,
  PROFILE_STOP_PATH,
  type BenchEventsFlushed,
  type BenchServerReady,
  type BenchServerRole,
  type BenchServerStats,
  type OutcomeTally,
} from './bench-server-contract.ts';
import { answerProbeRequest } from './pipeline-probe.ts';

const tally: OutcomeTally = { completed: 0, failed: 0, cancelled: 0, passThrough: 0, translated: 0 };

let lastFailure: string | undefined;

/** The pipeline case's event side (BENCH_GATEWAY_EVENTS=1 only). */
let events: BenchGatewayEvents | undefined;

/**
 * The outcome sink: counts only. The path (pass-through or translated) is counted for completed
 * outcomes alone: failed and cancelled ones always report `passThrough: false`.
 */
function countOutcome(outcome: ExchangeOutcome): void {
  tally[outcome.status] += 1;
  if (outcome.status === 'failed')
    lastFailure = `${outcome.httpStatus} ${outcome.errorKind ?? ''}: ${outcome.errorMessage ?? ''}`;
  if (outcome.status !== 'completed') return;
  if (outcome.passThrough) tally.passThrough += 1;
  else tally.translated += 1;
}

/** The inspector session of a profile in progress (PROFILE_START_PATH … PROFILE_STOP_PATH). */
let profiling: Session | undefined;

/** Starts V8's sampling profiler on this thread, sampling every 250 µs. */
async function startProfiling(): Promise<Record<string, never>> {
  profiling?.disconnect();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 250 });
  await session.post('Profiler.start');
  profiling = session;
  return {};
}

/**
 * Starts V8's sampling heap profiler on this thread, every 8 KiB allocated on average, keeping
 * the samples of objects already collected: the profile shows what a request allocates, garbage
 * included (https://chromedevtools.github.io/devtools-protocol/tot/HeapProfiler/#method-startSampling).
 */
async function startHeapSampling(): Promise<Record<string, never>> {
  heapSampling?.disconnect();
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.enable');
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 8192,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  heapSampling = session;
  return {};
}

/** Stops startHeapSampling's profiler and returns its sampling heap profile. @throws Error when none runs */
async function stopHeapSampling(): Promise<unknown> {
  const session = heapSampling;
  if (!session) throw new Error('no heap sampling is running');
  heapSampling = undefined;
  const { profile } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  return profile;
}

/** The inspector session of a heap sampling in progress (HEAP_SAMPLING_START_PATH … HEAP_SAMPLING_STOP_PATH). */
let heapSampling: Session | undefined;

/** Stops the profiler started by startProfiling and returns its V8 CPU profile. @throws Error when none runs */
async function stopProfiling(): Promise<unknown> {
  const session = profiling;
  if (!session) throw new Error('no profile is running');
  profiling = undefined;
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  return profile;
}

function listenControl(): Promise<{ server: Server; port: number }> {
  const server = createServer((request, response) => {
    const answer = (status: number, body: unknown): void =>
      void response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (events?.probe && request.url?.startsWith('/pipeline/')) {
      answerProbeRequest(events.probe, request.url).then(
        (body) => answer(200, body),
        (error: unknown) => answer(500, { error: String(error) }),
      );
      return;
    }
    if (request.url === HEAP_SAMPLING_START_PATH || request.url === HEAP_SAMPLING_STOP_PATH) {
      (request.url === HEAP_SAMPLING_START_PATH ? startHeapSampling() : stopHeapSampling()).then(
        (body) => answer(200, body),
        (error: unknown) => answer(500, { error: String(error) }),
      );
      return;
    }
    if (request.url === PROFILE_START_PATH || request.url === PROFILE_STOP_PATH) {
      (request.url === PROFILE_START_PATH ? startProfiling() : stopProfiling()).then(
        (body) => answer(200, body),
        (error: unknown) => answer(500, { error: String(error) }),
      );
      return;
    }
    if (request.url === FLUSH_EVENTS_PATH) {
      if (!events) return answer(404, { error: 'this child publishes no events (BENCH_GATEWAY_EVENTS is not 1)' });
      const eventLog = events.eventLog;
      eventLog.flush().then(
        () => answer(200, eventLog.status() satisfies BenchEventsFlushed),
        (error: unknown) => answer(500, { error: String(error) }),
      );
      return;
    }
    const stats: BenchServerStats = {
      cpu: process.cpuUsage(),
      rssBytes: process.memoryUsage.rss(),
      heap: heapNow(),
      outcomes: { ...tally },
      ...(lastFailure ? { lastFailure } : {}),
      ...(events ? { eventsPublished: events.published() } : {}),
    };
    answer(200, stats);
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve({ server, port: (server.address() as { port: number }).port }));
  });
}

/** V8's heap figures of BenchServerStats.heap (bytes). */
function heapNow(): NonNullable<BenchServerStats['heap']> {
  const { heapUsed, heapTotal, external } = process.memoryUsage();
  return { usedBytes: heapUsed, totalBytes: heapTotal, externalBytes: external };
}

/** The config file document: BENCH_GATEWAY_CONFIG_FILE's JSON, else the one mock channel. */
function gatewayConfigDocument(): unknown {
  const file = process.env.BENCH_GATEWAY_CONFIG_FILE;
  if (file) return JSON.parse(readFileSync(file, 'utf8')) as unknown;
  return {
    channels: [
      { id: 'bench-mock', provider: 'mock', protocol: 'openai-chat', models: [BENCH_MODEL], mock: { chunkDelayMs: 0 } },
    ],
    keys: [{ name: 'bench', key: BENCH_KEY }],
    ...(process.env.BENCH_GATEWAY_EVENTS === '1' ? { prices: BENCH_PRICES } : {}),
  };
}

async function startGateway(mockBaseUrl: string): Promise<{ port: number; close: () => Promise<void> }> {
  const [
    { Agent },
    { buildApp },
    { joinControlPlane },
    { createMemoryRateLimiter },
    { createMemorySessionStore },
    { parseConfigFile },
    { testAppDeps },
  ] = await Promise.all([
    import('undici'),
    import('../../gateway/app.ts'),
    import('../../gateway/start-gateway-node.ts'),
    import('../../infra/state-store/memory/memory-rate-limiter.ts'),
    import('../../infra/state-store/memory/memory-session-store.ts'),
    import('../../gateway/config/load-config.ts'),
    import('../support/test-app-deps.ts'),
  ]);
  const env = process.env;
  const config = parseConfigFile(gatewayConfigDocument(), {
    LOG_LEVEL: 'silent',
    ...(env.TOLLGATE_DATA_DIR ? { TOLLGATE_DATA_DIR: env.TOLLGATE_DATA_DIR } : {}),
    ...(env.TOLLGATE_ADMIN_TOKEN ? { TOLLGATE_ADMIN_TOKEN: env.TOLLGATE_ADMIN_TOKEN } : {}),
  });
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: null });
  // Loaded only for the pipeline case, so the HTTP cases' children load no engine adapter.
  events =
    process.env.BENCH_GATEWAY_EVENTS === '1'
      ? await (await import('./bench-gateway-events.ts')).startBenchGatewayEvents()
      : undefined;
  const joined = events
    ? await joinControlPlane(config, events.eventLog, {
        log: () => undefined,
        env: process.env,
        startConfigFollower: (await import('../../infra/control-plane/config-follower.ts')).startConfigFollower,
        print: () => undefined,
      })
    : undefined;
  const app = await buildApp(
    config,
    testAppDeps(config, {
      dispatcher,
      mockBaseUrl,
      logger: false,
      limiter: createMemoryRateLimiter(),
      sessionStore: createMemorySessionStore(),
      onOutcome: countOutcome,
      ...(events ? { eventLog: events.eventLog, stateStore: events.state } : {}),
      ...(joined ? { controlPlane: joined.controlPlane } : {}),
    }),
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  return {
    port,
    close: async () => {
      await app.close();
      await joined?.node.stop();
      await events?.close();
      await dispatcher.close();
    },
  };
}

async function startRole(
  role: BenchServerRole,
  mockBaseUrl: string | undefined,
): Promise<{ port: number; close: () => Promise<void> }> {
  if (role === 'gateway' || role === 'floor') {
    if (!mockBaseUrl) throw new Error(`bench-servers: role ${role} needs the mock base URL as second argument`);
    if (role === 'floor') return (await import('./floor-proxy.ts')).startFloorProxy(mockBaseUrl, MOCK_BEHAVIOUR_PREFIX);
    return startGateway(mockBaseUrl);
  }
  const { startMockUpstream } = await import('../../gateway/mock/mock-upstream-server.ts');
  const mock = await startMockUpstream(0);
  return { port: Number(new URL(mock.baseUrl).port), close: mock.close };
}

async function main(): Promise<void> {
  const [role, mockBaseUrl] = process.argv.slice(2);
  if (role !== 'mock' && role !== 'gateway' && role !== 'floor')
    throw new Error(`bench-servers: unknown role ${String(role)} (expected mock, floor or gateway)`);
  const served = await startRole(role, mockBaseUrl);
  const control = await listenControl();
  let closing = false;
  const shutdown = async (): Promise<void> => {
    if (closing) return;
    closing = true;
    setTimeout(() => process.exit(0), events ? 15_000 : 2000).unref();
    control.server.close();
    await served.close().catch(() => undefined);
    process.exit(0);
  };
  process.once('SIGTERM', () => void shutdown());
  process.once('SIGINT', () => void shutdown());
  process.stdin.once('end', () => void shutdown());
  process.stdin.resume();
  const ready: BenchServerReady = { role, port: served.port, controlPort: control.port };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`bench-servers: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
