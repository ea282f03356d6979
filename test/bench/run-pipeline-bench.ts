/**
 * The pipeline case of `npm run bench`: requests through a gateway that publishes its traffic
 * events, consumers folding them into ClickHouse, and two figures from the result —
 * events per second through the pipeline and the lag from request end to its row.
 *
 * Set-up (pipeline-engines.ts): a gateway child (bench-servers.ts, BENCH_GATEWAY_EVENTS=1) on the
 * engines the environment names, isolated per run. With KAFKA_BROKERS and CLICKHOUSE_URL the
 * consumers run as their own process (infra/processes/tollgate-consumers.ts) and this process reads ClickHouse over
 * HTTP; otherwise they run inside the gateway child, which answers the queries on its own store.
 *
 * Measure: a warm-up (up to 1000 requests, waited for until all their rows are in — Kafka group
 * join, JIT), then R requests (chat, non-streamed, `concurrency` at once). Wall time runs from the
 * first measured request to the poll (every 50 ms) that sees its last row in
 * `consumption_log FINAL`; events/s = events the gateway published for those requests / wall
 * time; rows/s likewise. Lag per row = ingested_at_ms − occurred_at_ms (request end → the ledger
 * building the insert of its batch; the insert's own round trip is not included), p50/p99 by
 * nearest rank over every measured row.
 *
 * Redis (with REDIS_URL): after the warm-up and again after the measured phase, once the billing
 * consumer has inserted every billing line of the phase's requests and the run's keys stopped
 * changing for 1 s (billing and health consumers done; redis-footprint.ts), the run's keys are
 * summed (count, MEMORY USAGE). The difference / (R / 1000) is the state the consumers (and the
 * gateway) keep in Redis per 1,000 requests. These waits come after each phase's wall time, so
 * they do not change events/s. Without REDIS_URL the state store is in-process memory: not measured.
 *
 * Consumer events/s (backlog; consumers as their own process only): events/s above is bounded by
 * how fast the gateway answers while the consumers keep up, so it does not say how fast they are.
 * After the measured phase the consumers process is stopped (SIGTERM: in-flight batches finish,
 * offsets are committed), B more requests of the same kind are sent (BENCH_PIPELINE_BACKLOG) and
 * the gateway's event log is flushed, so their events wait in Kafka. Then the consumers process
 * is started again; the drain time runs from its `consumers running` line to the poll (every 50 ms)
 * that sees every backlog row in consumption_log FINAL and billing_lines FINAL and, with REDIS_URL,
 * the key's spend counter at the value it then keeps for 1 s (that quiet second is not counted).
 * Consumer events/s = events the gateway published for the B requests / drain time.
 */
import { createClickHouseStore } from '../../infra/analytics/clickhouse-http/clickhouse-http-store.ts';
import type { AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import { BENCH_CASES, type BenchCase } from './bench-cases.ts';
import type { BenchServerStats } from './bench-server-contract.ts';
import type { PipelineReport } from './format-pipeline-report.ts';
import { preparePipelineEngines, type PipelineEngines } from './pipeline-engines.ts';
import { createAnalyticsProbe, createRemoteProbe, type PipelineProbe } from './pipeline-probe.ts';
import {
  footprintDelta,
  openRedisFootprint,
  type RedisFootprint,
  type RedisFootprintReader,
} from './redis-footprint.ts';
import { percentile } from './run-load-phase.ts';
import { sendBenchRequests } from './send-bench-requests.ts';
import { spawnBenchConsumers, type BenchConsumersHandle } from './spawn-bench-consumers.ts';
import { spawnBenchServer, type BenchServerHandle } from './spawn-bench-server.ts';

/** Settings of the pipeline case (BENCH_PIPELINE_REQUESTS, BENCH_CONNECTIONS, BENCH_PIPELINE_TIMEOUT_S). */
export interface PipelineBenchSettings {
  /** Measured requests (integer ≥ 1). */
  readonly requests: number;
  /** Requests in flight at once. */
  readonly concurrency: number;
  /** Longest wait for the rows of a phase to arrive, s. */
  readonly timeoutS: number;
  /** Requests sent while the consumers process is stopped, drained afterwards (integer ≥ 0; 0: not measured). */
  readonly backlogRequests: number;
}

const POLL_INTERVAL_MS = 50;
const MAX_WARMUP_REQUESTS = 1000;
/** How long the key's spend counter must keep its value before the backlog counts as drained, ms. */
const SPEND_QUIET_MS = 1000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

const outcomeCount = (stats: BenchServerStats): number =>
  stats.outcomes.completed + stats.outcomes.failed + stats.outcomes.cancelled;

/**
 * Polls until `expected` rows of requests ended at or after `sinceMs` are in consumption_log.
 * Returns the count and when it was seen (ms since epoch). @throws Error after `timeoutMs`
 */
async function waitForRows(
  probe: PipelineProbe,
  sinceMs: number,
  expected: number,
  timeoutMs: number,
  phase: string,
): Promise<{ rows: number; seenAtMs: number }> {
  const deadline = Date.now() + timeoutMs;
  let rows = 0;
  for (;;) {
    rows = await probe.rowCount(sinceMs);
    if (rows >= expected) return { rows, seenAtMs: Date.now() };
    if (Date.now() > deadline) {
      throw new Error(
        `${phase}: ${rows} of ${expected} rows in consumption_log after ${timeoutMs / 1000} s (consumers stalled? another process using the consumer groups tollgate.* on this Kafka with other topics can starve them)`,
      );
    }
    await sleep(POLL_INTERVAL_MS);
  }
}

/**
 * Waits until the billing consumer inserted `expected` billing lines of requests ended at or after
 * `sinceMs` and the run's Redis keys stopped changing for 1 s, then returns their footprint.
 * @throws Error after `timeoutMs` (each wait)
 */
async function settleRedis(
  redis: RedisFootprintReader,
  probe: PipelineProbe,
  sinceMs: number,
  expected: number,
  timeoutMs: number,
  phase: string,
): Promise<RedisFootprint> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const lines = await probe.billingLineCount(sinceMs);
    if (lines >= expected) break;
    if (Date.now() > deadline)
      throw new Error(
        `${phase}: ${lines} of ${expected} rows in billing_lines after ${timeoutMs / 1000} s (billing consumer stalled?)`,
      );
    await sleep(POLL_INTERVAL_MS);
  }
  return redis.settle(timeoutMs);
}

/** Polls the gateway's stats until it recorded `expected` more outcomes than `before` (outcomes follow the answer by a tick). */
async function waitForOutcomes(
  gateway: BenchServerHandle,
  before: BenchServerStats,
  expected: number,
): Promise<BenchServerStats> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const stats = await gateway.stats();
    const recorded = outcomeCount(stats) - outcomeCount(before);
    if (recorded >= expected || Date.now() > deadline) {
      if (recorded !== expected) throw new Error(`the gateway recorded ${recorded} outcomes for ${expected} requests`);
      if (stats.outcomes.failed > before.outcomes.failed)
        throw new Error(`gateway outcomes failed (latest: ${stats.lastFailure ?? 'unknown'})`);
      return stats;
    }
    await sleep(20);
  }
}

interface MeasureContext {
  readonly gateway: BenchServerHandle;
  readonly probe: PipelineProbe;
  readonly benchCase: BenchCase;
  readonly settings: PipelineBenchSettings;
  readonly consumers?: BenchConsumersHandle;
  /** Reader of the run's Redis keys; absent with the memory state store. */
  readonly redis?: RedisFootprintReader;
}

/** The Redis figures of the report from the footprints after the warm-up and after the measured phase. */
function redisFigures(
  requests: number,
  warm?: RedisFootprint,
  end?: RedisFootprint,
): Pick<
  PipelineReport,
  'redisBytesPer1000Requests' | 'redisKeysPer1000Requests' | 'redisPer1000RequestsByKind' | 'redisAfterRun'
> {
  if (!warm || !end) return { redisBytesPer1000Requests: null, redisKeysPer1000Requests: null };
  const scale = 1000 / requests;
  return {
    redisBytesPer1000Requests: (end.bytes - warm.bytes) * scale,
    redisKeysPer1000Requests: (end.keys - warm.keys) * scale,
    redisPer1000RequestsByKind: footprintDelta(warm, end, scale),
    redisAfterRun: { keys: end.keys, bytes: end.bytes },
  };
}

/** Sends `count` requests of `benchCase` to the gateway, `settings.concurrency` at once. */
function sendCase(
  gateway: BenchServerHandle,
  benchCase: BenchCase,
  settings: PipelineBenchSettings,
  count: number,
): ReturnType<typeof sendBenchRequests> {
  return sendBenchRequests({
    url: `${gateway.origin}${benchCase.path}`,
    headers: benchCase.headers,
    body: benchCase.body,
    count,
    concurrency: settings.concurrency,
  });
}

/** The warm-up, then the measured phase; returns the figures without the engine names and the backlog. */
async function measure(context: MeasureContext): Promise<Omit<PipelineReport, 'engines' | keyof BacklogFigures>> {
  const { gateway, probe, benchCase, settings } = context;
  const send = (count: number) => sendCase(gateway, benchCase, settings, count);
  const timeoutMs = settings.timeoutS * 1000;
  const warmupRequests = Math.min(MAX_WARMUP_REQUESTS, settings.requests);
  const warmupSince = Date.now();
  await send(warmupRequests);
  await waitForRows(probe, warmupSince, warmupRequests, timeoutMs, 'warm-up');
  const redisWarm = context.redis
    ? await settleRedis(context.redis, probe, warmupSince, warmupRequests, timeoutMs, 'warm-up')
    : undefined;
  const before = await gateway.stats();
  const consumersCpuBefore = context.consumers?.cpuMicros();
  const startedAtMs = Date.now();
  const sent = await send(settings.requests);
  const after = await waitForOutcomes(gateway, before, settings.requests);
  const { rows, seenAtMs } = await waitForRows(probe, startedAtMs, settings.requests, timeoutMs, 'measured run');
  const consumersCpuAfter = context.consumers?.cpuMicros();
  const lags = Float64Array.from(await probe.lagsMs(startedAtMs)).sort();
  if (lags.length !== rows)
    throw new Error(`${rows} measured rows but ${lags.length} with an ingestion time (is migration 005 applied?)`);
  if (after.eventsPublished === undefined || before.eventsPublished === undefined)
    throw new Error('the gateway child does not count published events');
  const events = after.eventsPublished - before.eventsPublished;
  const redisEnd = context.redis
    ? await settleRedis(context.redis, probe, startedAtMs, settings.requests, timeoutMs, 'measured run')
    : undefined;
  const wallS = (seenAtMs - startedAtMs) / 1000;
  return {
    requestKind: benchCase.label.replace(/^gateway: /, ''),
    requests: settings.requests,
    warmupRequests,
    concurrency: settings.concurrency,
    events,
    rows,
    wallS,
    sendS: sent.elapsedMs / 1000,
    eventsPerSecond: events / wallS,
    rowsPerSecond: rows / wallS,
    lagP50Ms: percentile(lags, 50),
    lagP99Ms: percentile(lags, 99),
    lagMaxMs: lags[lags.length - 1] ?? 0,
    gatewayCpuUsPerRequest:
      (after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / settings.requests,
    ...(consumersCpuBefore !== undefined && consumersCpuAfter !== undefined
      ? { consumersCpuUsPerRequest: (consumersCpuAfter - consumersCpuBefore) / settings.requests }
      : {}),
    pollIntervalMs: POLL_INTERVAL_MS,
    ...redisFigures(settings.requests, redisWarm, redisEnd),
  };
}

/** The backlog figures of the report. */
type BacklogFigures = Pick<
  PipelineReport,
  | 'consumerEventsPerSecond'
  | 'backlogRequests'
  | 'backlogEvents'
  | 'backlogDrainMs'
  | 'backlogStartMs'
  | 'backlogCompleteMs'
  | 'backlogSpendNanoUsd'
>;

const BACKLOG_NOT_MEASURED: BacklogFigures = {
  consumerEventsPerSecond: null,
  backlogRequests: null,
  backlogEvents: null,
  backlogDrainMs: null,
  backlogStartMs: null,
};

interface BacklogContext {
  readonly gateway: BenchServerHandle;
  readonly probe: PipelineProbe;
  readonly benchCase: BenchCase;
  readonly settings: PipelineBenchSettings;
  /** The running consumers process; stopped before the backlog is sent. */
  readonly consumers: BenchConsumersHandle;
  /** Starts the consumers process again (resolves once it logged `consumers running`). */
  readonly restartConsumers: () => Promise<BenchConsumersHandle>;
  /** Told the restarted process at once, so it is stopped on every path. */
  readonly onRestarted: (consumers: BenchConsumersHandle) => void;
  /** Reader of the run's Redis keys; absent with the memory state store. */
  readonly redis?: RedisFootprintReader;
}

/** When the backlog was drained, and the spend counters' sum then. */
interface Drained {
  /** The latest of the three times below, ms since epoch. */
  readonly atMs: number;
  /** Polls that first saw consumption_log and billing_lines complete, ms since epoch. */
  readonly consumptionLogAtMs: number;
  readonly billingLinesAtMs: number;
  /** Poll that first read the spend counters' final sum, ms since epoch; null without Redis. */
  readonly spendAtMs: number | null;
  /** nano-USD, decimal string ('0' without Redis) */
  readonly spendNanoUsd: string;
}

/**
 * Polls every POLL_INTERVAL_MS until consumption_log and billing_lines hold `expected` rows of
 * requests ended at or after `sinceMs` and the counters `spendKeys` (sum `spendBefore` nano-USD
 * when the wait starts) kept their sum for SPEND_QUIET_MS. Returns when the last of these was first
 * seen: the later of the polls that saw each table complete and the poll that first read the
 * counters' final sum. @throws Error after `timeoutMs`
 */
async function waitForDrain(
  probe: PipelineProbe,
  redis: RedisFootprintReader | undefined,
  spendKeys: ReadonlyArray<string>,
  spendBefore: string,
  sinceMs: number,
  expected: number,
  timeoutMs: number,
): Promise<Drained> {
  const deadline = Date.now() + timeoutMs;
  let rowsSeenAtMs: number | undefined;
  let linesSeenAtMs: number | undefined;
  let rows = 0;
  let lines = 0;
  let spend = spendBefore;
  let spendSeenAtMs = Date.now();
  for (;;) {
    if (rowsSeenAtMs === undefined) {
      rows = await probe.rowCount(sinceMs);
      if (rows >= expected) rowsSeenAtMs = Date.now();
    }
    if (linesSeenAtMs === undefined) {
      lines = await probe.billingLineCount(sinceMs);
      if (lines >= expected) linesSeenAtMs = Date.now();
    }
    if (redis) {
      const current = await redis.sumCounters(spendKeys);
      if (current !== spend) {
        spend = current;
        spendSeenAtMs = Date.now();
      }
    }
    if (
      rowsSeenAtMs !== undefined &&
      linesSeenAtMs !== undefined &&
      (!redis || Date.now() - spendSeenAtMs >= SPEND_QUIET_MS)
    ) {
      return {
        atMs: Math.max(rowsSeenAtMs, linesSeenAtMs, redis ? spendSeenAtMs : 0),
        consumptionLogAtMs: rowsSeenAtMs,
        billingLinesAtMs: linesSeenAtMs,
        spendAtMs: redis ? spendSeenAtMs : null,
        spendNanoUsd: spend,
      };
    }
    if (Date.now() > deadline) {
      throw new Error(
        `backlog: ${rows} of ${expected} rows in consumption_log, ${lines} in billing_lines after ${timeoutMs / 1000} s, spend counter ${redis ? 'still changing' : 'not read'} (consumers stalled?)`,
      );
    }
    await sleep(POLL_INTERVAL_MS);
  }
}

/**
 * Stops the consumers process, sends `settings.backlogRequests` requests, flushes the gateway's
 * event log, starts the consumers again and times the drain (module doc). Call after the measured
 * phase settled, so every earlier row is in and every earlier spend applied.
 * @throws Error when a request fails, an event is not in the log after the flush, or the drain times out
 */
async function measureBacklog(context: BacklogContext): Promise<BacklogFigures> {
  const { gateway, probe, benchCase, settings, redis } = context;
  const requests = settings.backlogRequests;
  const spendKeys = redis ? await redis.keysOfKind('spend:key') : [];
  const spendBefore = redis ? await redis.sumCounters(spendKeys) : '0';
  await context.consumers.stop();
  const before = await gateway.stats();
  const sinceMs = Date.now();
  await sendCase(gateway, benchCase, settings, requests);
  await waitForOutcomes(gateway, before, requests);
  const flushed = await gateway.flushEvents();
  if (flushed.pending !== 0 || flushed.spooled !== 0)
    throw new Error(
      `backlog: after the flush ${flushed.pending} events are pending and ${flushed.spooled} spooled (Kafka unreachable?)`,
    );
  const after = await gateway.stats();
  if (after.eventsPublished === undefined || before.eventsPublished === undefined)
    throw new Error('the gateway child does not count published events');
  const events = after.eventsPublished - before.eventsPublished;
  const consumers = await context.restartConsumers();
  context.onRestarted(consumers);
  const drained = await waitForDrain(probe, redis, spendKeys, spendBefore, sinceMs, requests, settings.timeoutS * 1000);
  const drainMs = Math.max(drained.atMs - consumers.runningAtMs, 1);
  const spendAdded = (BigInt(drained.spendNanoUsd) - BigInt(spendBefore)).toString();
  if (redis && spendAdded === '0')
    process.stderr.write(
      'bench pipeline: the backlog added no spend to the key (requests unpriced? the billing work is then not the priced one)\n',
    );
  const sinceRunning = (atMs: number): number => Math.max(atMs - consumers.runningAtMs, 0);
  return {
    backlogCompleteMs: {
      consumptionLog: sinceRunning(drained.consumptionLogAtMs),
      billingLines: sinceRunning(drained.billingLinesAtMs),
      spend: drained.spendAtMs === null ? null : sinceRunning(drained.spendAtMs),
    },
    ...(redis ? { backlogSpendNanoUsd: spendAdded } : {}),
    consumerEventsPerSecond: events / (drainMs / 1000),
    backlogRequests: requests,
    backlogEvents: events,
    backlogDrainMs: drainMs,
    backlogStartMs: consumers.runningAtMs - consumers.spawnedAtMs,
  };
}

interface Started {
  gateway?: BenchServerHandle;
  consumers?: BenchConsumersHandle;
  analytics?: AnalyticsStore;
  redis?: RedisFootprintReader;
}

/** Stops the children (consumers first: they read what the gateway wrote) and waits for them to exit. */
async function stopAll(started: Started): Promise<void> {
  await started.consumers?.stop().catch(() => undefined);
  if (started.gateway) {
    started.gateway.stop();
    await Promise.race([started.gateway.exited, sleep(20_000)]);
  }
  await started.analytics?.close().catch(() => undefined);
  await started.redis?.close().catch(() => undefined);
}

/** The probe for `engines`: ClickHouse over HTTP from here, or the gateway child's own store. */
function openProbe(engines: PipelineEngines, started: Started, gateway: BenchServerHandle): PipelineProbe {
  const { clickhouseUrl, clickhouseDatabase } = engines.settings;
  if (engines.placement === 'in-gateway' || !clickhouseUrl) return createRemoteProbe(gateway.controlOrigin);
  started.analytics = createClickHouseStore({
    url: clickhouseUrl,
    ...(clickhouseDatabase ? { database: clickhouseDatabase } : {}),
  });
  return createAnalyticsProbe(started.analytics);
}

/**
 * Runs the pipeline case against the mock upstream at `mockOrigin`. Children, the run's database,
 * topics, Redis keys and data dir are cleaned up on every path.
 * @throws Error when a child does not start, a request fails, or the rows do not arrive in time
 */
export async function runPipelineBench(mockOrigin: string, settings: PipelineBenchSettings): Promise<PipelineReport> {
  const benchCase = BENCH_CASES.find((c) => c.id === 'chat-gateway');
  if (!benchCase) throw new Error('bench case chat-gateway is missing');
  const engines = preparePipelineEngines();
  const started: Started = {};
  try {
    const gateway = await spawnBenchServer('gateway', [mockOrigin], 120_000, engines.childEnv);
    started.gateway = gateway;
    if (engines.placement === 'separate-process') started.consumers = await spawnBenchConsumers(engines.childEnv);
    const probe = openProbe(engines, started, gateway);
    const version = await probe.version();
    const { redisUrl, redisKeyPrefix } = engines.settings;
    if (redisUrl && redisKeyPrefix) started.redis = await openRedisFootprint(redisUrl, redisKeyPrefix);
    const redis = started.redis ? { redis: started.redis } : {};
    const figures = await measure({
      gateway,
      probe,
      benchCase,
      settings,
      ...(started.consumers ? { consumers: started.consumers } : {}),
      ...redis,
    });
    const backlog =
      started.consumers && settings.backlogRequests > 0
        ? await measureBacklog({
            gateway,
            probe,
            benchCase,
            settings,
            consumers: started.consumers,
            restartConsumers: () => spawnBenchConsumers(engines.childEnv),
            onRestarted: (restarted) => (started.consumers = restarted),
            ...redis,
          })
        : BACKLOG_NOT_MEASURED;
    const consumers =
      engines.placement === 'separate-process'
        ? 'separate process (infra/processes/tollgate-consumers.ts)'
        : 'in the gateway process';
    return {
      engines: { ...engines.describe, analytics: `${engines.describe.analytics} ${version}`, consumers },
      ...figures,
      ...backlog,
    };
  } finally {
    await stopAll(started);
    await engines.cleanup();
  }
}
