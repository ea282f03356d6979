/**
 * `npm run consumers`: the composition root of the consumers process. Opens the engines from
 * KAFKA_BROKERS / REDIS_URL / CLICKHOUSE_URL (embedded adapters when absent), batching from
 * TOLLGATE_CONSUMER_BATCH_SIZE and TOLLGATE_CONSUMER_BATCH_WAIT_MS (consumer-batching.ts), then runs until SIGINT/SIGTERM, finishing in-flight
 * batches before exit. Prices come from the config topic (the PriceSet events every gateway node
 * appends from its config file, the admin API and the console), never from a file of its own.
 */
import { engineSettingsFromEnv, openAnalyticsStore, openEventLog, openStateStore } from '../infra/open-adapters.ts';
import { consumerBatchingFromEnv } from './consumer-batching.ts';
import type { ConsumerLog } from './run-consumers.ts';
import { startConsumerPipeline } from './start-consumer-pipeline.ts';

const log: ConsumerLog = (level, message, extra) => {
  process.stderr.write(`${JSON.stringify({ level, time: new Date().toISOString(), message, ...extra })}\n`);
};

async function main(): Promise<void> {
  const batching = consumerBatchingFromEnv();
  const settings = { ...engineSettingsFromEnv(), log };
  const eventLog = openEventLog(settings);
  const state = openStateStore(settings);
  const analytics = openAnalyticsStore(settings);
  const running = await startConsumerPipeline({ eventLog, state, analytics, log, ...batching });
  log('info', 'consumers running', { kafka: Boolean(settings.kafkaBrokers), redis: Boolean(settings.redisUrl), clickhouse: Boolean(settings.clickhouseUrl) });
  const shutdown = async (): Promise<void> => {
    await running.stop();
    await eventLog.close();
    await state.close();
    await analytics.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

void main().catch((error: unknown) => {
  log('error', 'consumers failed to start', { reason: (error as Error).message });
  process.exit(1);
});
