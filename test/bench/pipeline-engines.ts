/**
 * The engines of one pipeline benchmark run, isolated from every other user of the machine's
 * engines: a temp TOLLGATE_DATA_DIR (file log, Kafka spool, chdb), and with the production
 * engines a unique topic prefix, ClickHouse database and Redis key prefix. Decides where the
 * consumers run: as their own process (`infra/processes/tollgate-consumers.ts`) when both KAFKA_BROKERS and
 * CLICKHOUSE_URL are set — the parent then reads ClickHouse over HTTP — otherwise inside the
 * gateway child, as `npm start` runs them in embedded mode (chdb allows one process per data
 * directory, so only that child may read it). Cleans everything up again.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Kafka, logLevel } from 'kafkajs';
import { createClickHouseStore } from '../../infra/analytics/clickhouse-http/clickhouse-http-store.ts';
import { engineSettingsFromEnv, type EngineSettings } from '../../infra/open-adapters.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { BENCH_PRICES } from './bench-server-contract.ts';

/** Where the consumers run. */
export type ConsumersPlacement = 'separate-process' | 'in-gateway';

/** One run's engines. */
export interface PipelineEngines {
  readonly runId: string;
  readonly placement: ConsumersPlacement;
  /** The settings every child reads from `childEnv` (engineSettingsFromEnv). */
  readonly settings: EngineSettings;
  /** Environment for the gateway and consumers children: this process's, plus the run's engines and TOLLGATE_CONFIG. */
  readonly childEnv: NodeJS.ProcessEnv;
  /** Human names of the engines, e.g. `Kafka 127.0.0.1:19092`, `file log (embedded)`. */
  readonly describe: { readonly eventLog: string; readonly stateStore: string; readonly analytics: string };
  /** Drops the run's database, topics and Redis keys and deletes the data dir; never throws (problems go to stderr). */
  cleanup(): Promise<void>;
}

const ENGINE_VARS = [
  'TOLLGATE_DATA_DIR',
  'CLICKHOUSE_DATABASE',
  'REDIS_KEY_PREFIX',
  'TOLLGATE_TOPIC_PREFIX',
  'TOLLGATE_CONFIG',
  'TOLLGATE_CONSUMERS',
] as const;

/** Environment of the children: `env` without inherited per-run variables, plus this run's. */
function buildChildEnv(
  env: NodeJS.ProcessEnv,
  runId: string,
  dataDir: string,
  placement: ConsumersPlacement,
): NodeJS.ProcessEnv {
  const childEnv: NodeJS.ProcessEnv = { ...env };
  for (const name of ENGINE_VARS) delete childEnv[name];
  const configPath = join(dataDir, 'bench-consumers.json');
  writeFileSync(configPath, JSON.stringify({ prices: BENCH_PRICES }));
  return {
    ...childEnv,
    TOLLGATE_DATA_DIR: dataDir,
    TOLLGATE_CONFIG: configPath,
    BENCH_GATEWAY_EVENTS: '1',
    BENCH_GATEWAY_CONSUMERS: placement === 'in-gateway' ? 'in-process' : 'off',
    ...(env.CLICKHOUSE_URL ? { CLICKHOUSE_DATABASE: `tollgate_bench_${runId}` } : {}),
    ...(env.REDIS_URL ? { REDIS_KEY_PREFIX: `bench:${runId}:` } : {}),
    ...(env.KAFKA_BROKERS ? { TOLLGATE_TOPIC_PREFIX: `bench.${runId}.` } : {}),
  };
}

async function dropClickHouseDatabase(settings: EngineSettings): Promise<void> {
  if (!settings.clickhouseUrl || !settings.clickhouseDatabase) return;
  const admin = createClickHouseStore({ url: settings.clickhouseUrl });
  try {
    await admin.exec(`DROP DATABASE IF EXISTS ${settings.clickhouseDatabase}`);
  } finally {
    await admin.close();
  }
}

async function deleteRedisKeys(settings: EngineSettings): Promise<void> {
  if (!settings.redisUrl || !settings.redisKeyPrefix) return;
  const redis = new Redis(settings.redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
  try {
    await redis.connect();
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${settings.redisKeyPrefix}*`, 'COUNT', 1000);
      if (keys.length > 0) await redis.del(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

async function deleteKafkaTopics(settings: EngineSettings): Promise<void> {
  if (!settings.kafkaBrokers || !settings.topicPrefix) return;
  const admin = new Kafka({
    clientId: 'tollgate-bench-cleanup',
    brokers: [...settings.kafkaBrokers],
    logLevel: logLevel.NOTHING,
  }).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const topics = Object.values(TOPICS)
      .map((topic) => `${settings.topicPrefix}${topic}`)
      .filter((topic) => existing.has(topic));
    if (topics.length > 0) await admin.deleteTopics({ topics, timeout: 10_000 });
  } finally {
    await admin.disconnect();
  }
}

/** Prepares a fresh run from `env` (KAFKA_BROKERS, REDIS_URL, CLICKHOUSE_URL select the production engines). */
export function preparePipelineEngines(env: NodeJS.ProcessEnv = process.env): PipelineEngines {
  const runId = `b${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-bench-'));
  const placement: ConsumersPlacement = env.KAFKA_BROKERS && env.CLICKHOUSE_URL ? 'separate-process' : 'in-gateway';
  const childEnv = buildChildEnv(env, runId, dataDir, placement);
  const settings = engineSettingsFromEnv(childEnv);
  const cleanup = async (): Promise<void> => {
    const steps: Array<[string, () => Promise<void>]> = [
      ['drop ClickHouse database', () => dropClickHouseDatabase(settings)],
      ['delete Redis keys', () => deleteRedisKeys(settings)],
      ['delete Kafka topics', () => deleteKafkaTopics(settings)],
    ];
    for (const [name, step] of steps) {
      await step().catch((error: unknown) =>
        process.stderr.write(
          `bench pipeline cleanup: ${name} failed: ${error instanceof Error ? error.message : String(error)}\n`,
        ),
      );
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  return {
    runId,
    placement,
    settings,
    childEnv,
    describe: {
      eventLog: settings.kafkaBrokers ? `Kafka ${settings.kafkaBrokers.join(',')}` : 'file log (embedded)',
      stateStore: settings.redisUrl ? 'Redis' : 'memory',
      analytics: settings.clickhouseUrl ? 'ClickHouse server' : 'chdb (embedded)',
    },
    cleanup,
  };
}
