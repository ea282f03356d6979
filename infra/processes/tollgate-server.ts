/**
 * `npm start`: the composition root of a Tollgate server process. Loads configuration, opens the
 * engines (Kafka/Redis/ClickHouse when their URLs are set, else the embedded file log, memory and
 * chdb in TOLLGATE_DATA_DIR), the undici Agent for upstream calls and, when a mock channel has no
 * baseUrl, the mock upstream; starts a gateway node on them (gateway/start-gateway-node.ts) and, in
 * embedded mode or with TOLLGATE_CONSUMERS=in-process, the consumers in the same process on the
 * same engines, on a worker thread of their own so they never hold up requests (consumer-thread.ts
 * running consumers/start-consumer-pipeline.ts; chdb allows one process per data dir, so they
 * share the console's analytics engine and, without Redis, the gateway's memory state store). SIGINT/SIGTERM shut down in order: drain
 * (readiness 503 and new requests refused at once, requests in flight get TOLLGATE_DRAIN_TIMEOUT_MS,
 * start-gateway-node.ts), flush events, stop the consumers (their batch in hand is finished and
 * committed), close the engines, exit 0; a second signal exits at once (128 + the signal's
 * number). Invalid configuration stops start-up with every problem listed (exit code 2), so do
 * invalid console admin variables (TOLLGATE_ADMIN_USER / TOLLGATE_ADMIN_PASSWORD, exit code 2).
 * This root is the server's only reader of the environment and the only one to exit the process.
 */
import { mkdirSync } from 'node:fs';
import { Agent } from 'undici';
import type { ConsumerBatching } from '../../consumers/consumer-batching.ts';
import { consumerBatchingFromEnv } from './consumer-batching-from-env.ts';
import type { GatewayConfig } from '../../gateway/config/config-schema.ts';
import { ConfigError, loadConfig } from '../../gateway/config/load-config.ts';
import { startGatewayNode, StartUpRefusal, type GatewayNodeLog } from '../../gateway/start-gateway-node.ts';
import { startMockUpstream } from '../../gateway/mock/mock-upstream-server.ts';
import { startConfigFollower } from '../control-plane/config-follower.ts';
import { GatewayMetrics } from '../../gateway/metrics/gateway-metrics.ts';
import { createFileLogWriteSignal } from '../event-log/file/file-log-write-signal.ts';
import {
  engineSettingsFromEnv,
  openAnalyticsStore,
  openEventLog,
  openBudgetLedger,
  openRateLimiter,
  openResponseStore,
  openSessionStore,
  openAffinityStore,
  openInFlightRegistry,
  openCredentialCooldowns,
  openStateStore,
  usesRedis,
} from '../open-adapters.ts';
import { openRebuiltMemoryState } from './open-rebuilt-memory-state.ts';
import { startConsumerThread } from './consumer-thread.ts';
import { exitAtOnceOnSignalsDuringStartUp, exitOnSignals } from './exit-on-signals.ts';
import { createProcessLogger, levelLogOf, logFormatFromEnv, type LogFormat } from '../logging/process-logger.ts';
import { startTracing } from '../telemetry/start-tracing.ts';

function loadConfigOrExit(): { config: GatewayConfig; batching: ConsumerBatching; logFormat: LogFormat } {
  let config: GatewayConfig;
  try {
    config = loadConfig(process.env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  try {
    return { config, batching: consumerBatchingFromEnv(), logFormat: logFormatFromEnv(process.env, process.stdout) };
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
}

/**
 * The node's way upstream: an undici Agent (no connection cap by default: a stream holds its
 * connection for the whole answer; TOLLGATE_UPSTREAM_CONNECTIONS) and, when a mock channel has no
 * baseUrl, the mock upstream on an ephemeral loopback port. `close` closes the mock, then the Agent.
 */
async function openUpstreamSide(
  config: GatewayConfig,
): Promise<{ dispatcher: Agent; mockBaseUrl?: string; close(): Promise<void> }> {
  const needsMock = config.channels.some((c) => c.provider === 'mock' && !c.baseUrl);
  const mock = needsMock ? await startMockUpstream() : undefined;
  const dispatcher = new Agent({
    keepAliveTimeout: 30_000,
    connections: config.upstreamConnections ?? null,
    pipelining: 1,
  });
  return {
    dispatcher,
    ...(mock ? { mockBaseUrl: mock.baseUrl } : {}),
    async close() {
      await mock?.close();
      await dispatcher.close();
    },
  };
}

async function main(): Promise<void> {
  const { config, batching, logFormat } = loadConfigOrExit();
  mkdirSync(config.dataDir, { recursive: true });
  const logger = createProcessLogger({ name: 'tollgate', level: config.logLevel, format: logFormat });
  const log: GatewayNodeLog = levelLogOf(logger);
  // Nothing is admitted before the node starts: a signal until then (a long state rebuild, say) ends the process at once.
  const startUpOver = exitAtOnceOnSignalsDuringStartUp(log);
  // OpenTelemetry only when OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT is set; otherwise nothing is loaded.
  const tracing = await startTracing(process.env);
  if (tracing)
    log('info', 'tracing: exporting spans over OTLP/HTTP', {
      endpoint: process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? process.env.OTEL_EXPORTER_OTLP_ENDPOINT,
    });
  const inProcessConsumers = config.consumers === 'in-process';
  // The consumer thread's file log wakes on this thread's writes through a shared counter.
  const settings = {
    ...engineSettingsFromEnv(process.env),
    dataDir: config.dataDir,
    log,
    ...(inProcessConsumers
      ? { fileLogWriteSignal: { signal: createFileLogWriteSignal(), side: 'writer' as const } }
      : {}),
  };
  const eventLog = openEventLog(settings);
  // Embedded: the memory store is rebuilt from the file log (and its snapshot) before the node admits a request.
  const embeddedState = !usesRedis(settings) && !settings.kafkaBrokers;
  const state = embeddedState
    ? await openRebuiltMemoryState({ dataDir: config.dataDir, topicPrefix: settings.topicPrefix ?? '', log })
    : openStateStore(settings);
  const limiter = openRateLimiter(settings);
  const budgetLedger = openBudgetLedger(settings, state);
  const sessionStore = openSessionStore(settings);
  const affinityStore = openAffinityStore(settings);
  const inFlightRegistry = openInFlightRegistry(settings, state);
  const credentialCooldowns = openCredentialCooldowns(settings);
  const responseStore = openResponseStore(settings);
  // chdb allows one process per data dir: without CLICKHOUSE_URL only the in-process consumers' store can serve the console.
  const analytics = inProcessConsumers || config.clickhouseUrl ? openAnalyticsStore(settings) : undefined;
  // One registry for the process: the gateway's families, the process metrics and the consumer thread's, merged per scrape.
  const metrics = config.metricsPath === false ? undefined : new GatewayMetrics({ processMetrics: true });
  const upstream = await openUpstreamSide(config);
  const ports = {
    logger,
    ...(tracing ? { instrument: tracing.instrumentApp } : {}),
    eventLog,
    state,
    limiter,
    budgetLedger,
    sessionStore,
    affinityStore,
    inFlightRegistry,
    credentialCooldowns,
    responseStore,
    ...(analytics ? { analytics } : {}),
    metrics,
    dispatcher: upstream.dispatcher,
    ...(upstream.mockBaseUrl ? { mockBaseUrl: upstream.mockBaseUrl } : {}),
  };
  const node = await startGatewayNode(config, ports, {
    log,
    env: process.env,
    startConfigFollower,
    print: (stream, text) => void process[stream].write(text),
  });
  // The consumer thread starts (migrations, chdb) while the node already serves: a signal meanwhile still drains the node.
  const consumersStarting =
    inProcessConsumers && analytics
      ? startConsumerThread({
          settings,
          batching,
          state,
          analytics,
          log: levelLogOf(logger.child({ thread: 'consumers' })),
        })
      : undefined;
  startUpOver();
  exitOnSignals(log, [
    () => node.stop(),
    () => upstream.close(),
    () => tracing?.shutdown(),
    async () => (await consumersStarting)?.stop(),
    () => analytics?.close(),
    () => sessionStore.close(),
    () => affinityStore.close(),
    () => (usesRedis(settings) ? inFlightRegistry.close() : undefined),
    () => credentialCooldowns.close(),
    () => responseStore.close(),
    () => eventLog.close(),
    () => limiter.close(),
    // In memory the store's own ledger: closed with the store.
    () => (usesRedis(settings) ? budgetLedger.close() : undefined),
    () => state.close(),
  ]);
  const consumers = await consumersStarting;
  if (consumers) metrics?.addSource(() => consumers.metrics());
}

void main().catch((error: unknown) => {
  if (error instanceof StartUpRefusal) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`Tollgate failed to start: ${(error as Error).message}\n`);
  process.exit(1);
});
