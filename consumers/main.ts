/**
 * `npm run consumers`: the consumers as their own process. Reads prices from TOLLGATE_CONFIG and
 * the engines from KAFKA_BROKERS / REDIS_URL / CLICKHOUSE_URL (embedded adapters when absent),
 * batch size from TOLLGATE_CONSUMER_BATCH_SIZE (default 500),
 * then runs until SIGINT/SIGTERM, finishing in-flight batches before exit.
 */
import { buildPriceBook, priceBookSchema } from '../schemas/billing/price-book.ts';
import { expandEnvironment, readConfigDocument } from '../schemas/config/read-config-document.ts';
import { engineSettingsFromEnv, openAnalyticsStore, openEventLog, openStateStore } from '../infra/open-adapters.ts';
import type { ConsumerLog } from './run-consumers.ts';
import { startConsumerPipeline } from './start-consumer-pipeline.ts';

const log: ConsumerLog = (level, message, extra) => {
  process.stderr.write(`${JSON.stringify({ level, time: new Date().toISOString(), message, ...extra })}\n`);
};

/** Prices from the config file; exits 2 on an invalid price book. */
function loadPrices(): ReturnType<typeof buildPriceBook> {
  const path = process.env.TOLLGATE_CONFIG;
  if (!path) return [];
  const problems: string[] = [];
  const document = expandEnvironment(readConfigDocument(path, problems) ?? {}, process.env, problems) as { prices?: unknown };
  const parsed = priceBookSchema.safeParse(document.prices ?? []);
  if (!parsed.success) problems.push(...parsed.error.issues.map((i) => `prices[${i.path.join('.')}]: ${i.message}`));
  if (problems.length > 0 || !parsed.success) {
    process.stderr.write(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}\n`);
    process.exit(2);
  }
  return buildPriceBook(parsed.data);
}

async function main(): Promise<void> {
  const settings = { ...engineSettingsFromEnv(), log };
  const eventLog = openEventLog(settings);
  const state = openStateStore(settings);
  const analytics = openAnalyticsStore(settings);
  const batchSize = Number(process.env.TOLLGATE_CONSUMER_BATCH_SIZE ?? 500);
  const running = await startConsumerPipeline({ eventLog, state, analytics, prices: loadPrices(), log, maxBatchSize: Number.isInteger(batchSize) && batchSize > 0 ? batchSize : 500 });
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
