/**
 * `npm run consumers`: the composition root of the consumers process. Opens the engines from
 * KAFKA_BROKERS / REDIS_URL / CLICKHOUSE_URL (embedded adapters when absent), batching from
 * TOLLGATE_CONSUMER_BATCH_SIZE and TOLLGATE_CONSUMER_BATCH_WAIT_MS (consumer-batching-from-env.ts), then runs until SIGINT/SIGTERM, finishing in-flight
 * batches before exit. Budget alerts go to the webhooks signed with secrets opened under
 * TOLLGATE_MASTER_KEY (or the data dir's secrets.json; webhook-secret-opener.ts). Prices come from the config topic (the PriceSet events every gateway node
 * appends from its config file, the admin API and the console), never from a file of its own.
 * Logs: pino at LOG_LEVEL (default info), TOLLGATE_LOG_FORMAT=pretty|json (default: pretty on a
 * terminal, JSON otherwise; infra/logging/process-logger.ts); a bad value stops start-up (exit code 2).
 * Prometheus metrics (cost, consumer lag, process) on TOLLGATE_METRICS_HOST:TOLLGATE_METRICS_PORT
 * (default HOST or 127.0.0.1, port 9464; `off` for none; consumers/metrics/serve-metrics-http.ts).
 */
import { openConsumerState } from './open-consumer-state.ts';
import { engineSettingsFromEnv, openAnalyticsStore, openEventLog, usesRedis } from '../open-adapters.ts';
import { exitOnSignals } from './exit-on-signals.ts';
import { createProcessLogger, levelLogOf, logFormatFromEnv, logLevelFromEnv } from '../logging/process-logger.ts';
import { consumerBatchingFromEnv } from './consumer-batching-from-env.ts';
import type { ConsumerLog } from '../../consumers/run-consumers.ts';
import { startMeteredConsumerPipeline } from './consumer-pipeline-runners.ts';
import { webhookSecretOpenerFrom } from './webhook-secret-opener.ts';
import { ConsumerMetrics } from '../../consumers/metrics/consumer-metrics.ts';
import { metricsListenFromEnv, serveMetricsHttp } from '../../consumers/metrics/serve-metrics-http.ts';
import { startIdleMemoryReducer } from '../../gateway/lifecycle/idle-memory-reducer.ts';

/** The process logger, or exit code 2 when LOG_LEVEL or TOLLGATE_LOG_FORMAT is invalid. */
function createLogOrExit(): ConsumerLog {
  try {
    return levelLogOf(
      createProcessLogger({
        name: 'tollgate-consumers',
        level: logLevelFromEnv(process.env),
        format: logFormatFromEnv(process.env, process.stdout),
      }),
    );
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
}

const log = createLogOrExit();

async function main(): Promise<void> {
  const batching = consumerBatchingFromEnv();
  const metricsListen = metricsListenFromEnv(process.env);
  const metrics = new ConsumerMetrics({
    processMetrics: true,
    onLagError: (error) => log('warn', 'metrics: reading the consumer lag failed', { reason: error.message }),
  });
  const settings = { ...engineSettingsFromEnv(process.env), log };
  const eventLog = openEventLog(settings);
  const state = openConsumerState(settings);
  const analytics = openAnalyticsStore(settings);
  const openWebhookSecret = webhookSecretOpenerFrom(process.env, settings.dataDir);
  const running = await startMeteredConsumerPipeline(
    { eventLog, state, analytics, log, ...batching, ...(openWebhookSecret ? { openWebhookSecret } : {}) },
    metrics,
  );
  const metricsServer = metricsListen
    ? await serveMetricsHttp(metricsListen, () => metrics.render(), metrics.registry.contentType)
    : undefined;
  if (metricsServer) log('info', 'metrics listening', { address: `${metricsServer.address}/metrics` });
  // Between bursts of events, the heap the folds left committed goes back (as in the server's process).
  const memoryReducer = startIdleMemoryReducer();
  log('info', 'consumers running', {
    kafka: Boolean(settings.kafkaBrokers),
    redis: usesRedis(settings),
    clickhouse: Boolean(settings.clickhouseUrl),
  });
  // The batches in hand finish and commit their offsets before the engines close (a second signal exits at once).
  exitOnSignals(log, [
    () => running.stop(),
    async () => memoryReducer.stop(),
    () => metricsServer?.close(),
    () => eventLog.close(),
    () => state.close(),
    () => analytics.close(),
  ]);
}

void main().catch((error: unknown) => {
  log('error', 'consumers failed to start', { reason: (error as Error).message });
  process.exit(1);
});
