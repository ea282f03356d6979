/**
 * Runs the whole system for integration tests on one of two engine sets:
 * - `embedded`: the file event log, the memory state store and chdb, all in a temp data dir;
 * - `production`: Kafka, Redis and a ClickHouse server from KAFKA_BROKERS / REDIS_URL /
 *   CLICKHOUSE_URL, isolated per run by a topic prefix, a Redis key prefix and a database.
 * A gateway (with the mock upstream) publishes events; consumers run in-process unless asked not to,
 * on this thread or, as `npm start` runs them, on a worker thread.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent } from 'undici';
import type { FastifyInstance } from 'fastify';
import { startConsumerPipeline } from '../../consumers/start-consumer-pipeline.ts';
import { CONSUMER_PIPELINE_RUNNERS } from '../../infra/processes/consumer-pipeline-runners.ts';
import type { RunningConsumers } from '../../consumers/run-consumers.ts';
import { buildApp } from '../../gateway/app.ts';
import { testAppDeps } from './test-app-deps.ts';
import { parseConfigFile } from '../../gateway/config/load-config.ts';
import type { ExchangeOutcome } from '../../gateway/exchange/exchange-outcome.ts';
import { startMockUpstream } from '../../gateway/mock/mock-upstream-server.ts';
import type { AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import type { PriceEntryConfig } from '../../schemas/billing/price-book.ts';
import { joinControlPlane } from '../../gateway/start-gateway-node.ts';
import { startConfigFollower } from '../../infra/control-plane/config-follower.ts';
import type { EventLog } from '../../schemas/event-log/event-log.ts';
import { createFileLogWriteSignal } from '../../infra/event-log/file/file-log-write-signal.ts';
import { startConsumerThread } from '../../infra/processes/consumer-thread.ts';
import {
  openAnalyticsStore,
  openEventLog,
  openRateLimiter,
  openSessionStore,
  openStateStore,
  openBudgetLedger,
  usesRedis,
  type EngineSettings,
} from '../../infra/open-adapters.ts';
import type { BudgetLedger } from '../../schemas/state-store/budget-ledger.ts';
import type { ConsumerStateStore } from '../../consumers/start-consumer-pipeline.ts';
import type { StateStore } from '../../schemas/state-store/state-store.ts';
import { requireEngineUrl, runnableCases } from './engines.ts';
import { TEST_KEY } from './start-gateway.ts';

export type EngineSet = 'embedded' | 'production';

/** Both engine sets for `describe.each(ENGINE_SETS)`; only 'embedded' in a run without engines (engines.ts). */
export const ENGINE_SETS: readonly EngineSet[] = runnableCases<EngineSet>(
  ['embedded', 'production'],
  (set) => set === 'production',
);

/** Engine settings for a fresh, isolated run on `engines`. */
export async function isolatedEngineSettings(engines: EngineSet): Promise<EngineSettings & { runId: string }> {
  const runId = `t${Date.now().toString(36)}${randomBytes(3).toString('hex')}`;
  const dataDir = mkdtempSync(join(tmpdir(), `tollgate-${engines}-`));
  if (engines === 'embedded') return { runId, dataDir };
  return {
    runId,
    dataDir,
    kafkaBrokers: (await requireEngineUrl('KAFKA_BROKERS')).split(','),
    redisUrl: await requireEngineUrl('REDIS_URL'),
    clickhouseUrl: await requireEngineUrl('CLICKHOUSE_URL'),
    clickhouseDatabase: `tollgate_${runId}`,
    redisKeyPrefix: `${runId}:`,
    topicPrefix: `${runId}.`,
  };
}

/** Environment variables that make a child process (`npm run consumers`) use the same engines. */
export function engineEnvironment(settings: EngineSettings): Record<string, string> {
  return {
    TOLLGATE_DATA_DIR: settings.dataDir,
    ...(settings.kafkaBrokers ? { KAFKA_BROKERS: settings.kafkaBrokers.join(',') } : {}),
    ...(settings.redisUrl ? { REDIS_URL: settings.redisUrl } : {}),
    ...(settings.clickhouseUrl ? { CLICKHOUSE_URL: settings.clickhouseUrl } : {}),
    ...(settings.clickhouseDatabase ? { CLICKHOUSE_DATABASE: settings.clickhouseDatabase } : {}),
    ...(settings.redisKeyPrefix ? { REDIS_KEY_PREFIX: settings.redisKeyPrefix } : {}),
    ...(settings.topicPrefix ? { TOLLGATE_TOPIC_PREFIX: settings.topicPrefix } : {}),
  };
}

/** A running system. */
export interface TestSystem {
  readonly origin: string;
  readonly app: FastifyInstance;
  readonly eventLog: EventLog;
  readonly state: StateStore;
  /** The budget ledger the gateway and the consumers share (pass it to a second node). */
  readonly budgetLedger: BudgetLedger & { close(): Promise<void> };
  readonly analytics: AnalyticsStore;
  readonly outcomes: ExchangeOutcome[];
  readonly settings: EngineSettings;
  consumers: RunningConsumers | undefined;
  /** Starts (again) the in-process consumers. */
  startConsumers(): Promise<void>;
  close(): Promise<void>;
}

/** Options of startTestSystem. */
export interface TestSystemOptions {
  readonly settings: EngineSettings;
  readonly channels: ReadonlyArray<Record<string, unknown>>;
  readonly prices: ReadonlyArray<PriceEntryConfig>;
  /** Run consumers in this process (default true). */
  readonly consumers?: boolean;
  /** Run them on a worker thread as `npm start` does (infra/processes/consumer-thread.ts) instead of this thread. */
  readonly consumerThread?: boolean;
  /** Share an existing state store (a second gateway node). */
  readonly state?: StateStore;
  /** Share an existing analytics store (chdb allows one data dir per process). */
  readonly analytics?: AnalyticsStore;
  /** Health refresh interval of the gateway's health view, ms. */
  readonly healthRefreshMs?: number;
  /** Bearer token of the admin API (`/admin/api`, the CLI); none: the admin API is off. */
  readonly adminToken?: string;
  /** Share an existing budget ledger (a second gateway node); none: the engine's own (openBudgetLedger). */
  readonly budgetLedger?: BudgetLedger & { close(): Promise<void> };
  /** Clock of budget windows, ms since epoch (tests cross a window's end); none: Date.now. */
  readonly budgetClock?: () => number;
}

/** Starts mock upstream, gateway and (optionally) consumers. */
export async function startTestSystem(givenOptions: TestSystemOptions): Promise<TestSystem> {
  // As `npm start` does: the consumer thread's file log wakes on this thread's writes.
  const options = givenOptions.consumerThread
    ? {
        ...givenOptions,
        settings: {
          ...givenOptions.settings,
          fileLogWriteSignal: { signal: createFileLogWriteSignal(), side: 'writer' as const },
        },
      }
    : givenOptions;
  const mock = await startMockUpstream();
  const config = parseConfigFile(
    { keys: [{ name: 'test', key: TEST_KEY }], channels: options.channels, prices: options.prices },
    { LOG_LEVEL: 'silent', ...(options.adminToken ? { TOLLGATE_ADMIN_TOKEN: options.adminToken } : {}) },
  );
  const eventLog = openEventLog(options.settings);
  // As a gateway node does: the control plane (its prices included) is the config topic of this event log.
  const { controlPlane, node } = await joinControlPlane({ ...config, dataDir: options.settings.dataDir }, eventLog, {
    log: () => undefined,
    env: process.env,
    startConfigFollower,
    print: () => undefined,
  });
  const state = options.state ?? openStateStore(options.settings);
  const budgetLedger = options.budgetLedger ?? openBudgetLedger(options.settings, state);
  // The consumers write window spend to the same ledger (the memory store carries its own).
  const consumerState: ConsumerStateStore = usesRedis(options.settings)
    ? {
        addSpendBatch: (increments) => state.addSpendBatch(increments),
        recordChannelObservation: (observation, policy) => state.recordChannelObservation(observation, policy),
        budgets: budgetLedger,
      }
    : Object.assign(state, { budgets: budgetLedger });
  const analytics = options.analytics ?? openAnalyticsStore(options.settings);
  const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  const outcomes: ExchangeOutcome[] = [];
  const app = await buildApp(
    config,
    testAppDeps(config, {
      dispatcher,
      logger: false,
      mockBaseUrl: mock.baseUrl,
      eventLog,
      controlPlane,
      stateStore: state,
      budgetLedger,
      ...(options.budgetClock ? { budgetClock: options.budgetClock } : {}),
      limiter: openRateLimiter({ dataDir: options.settings.dataDir }),
      sessionStore: openSessionStore({ dataDir: options.settings.dataDir }),
      healthRefreshMs: options.healthRefreshMs ?? 100,
      onOutcome: (o) => outcomes.push(o),
    }),
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const system: TestSystem = {
    origin: `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
    app,
    eventLog,
    state,
    budgetLedger,
    analytics,
    outcomes,
    settings: options.settings,
    consumers: undefined,
    startConsumers: async () => {
      system.consumers = options.consumerThread
        ? await startConsumerThread({
            settings: options.settings,
            batching: { maxBatchSize: 500, maxBatchWaitMs: 0 },
            state,
            analytics,
            log: () => undefined,
          })
        : await startConsumerPipeline({
            runners: CONSUMER_PIPELINE_RUNNERS,
            eventLog,
            state: consumerState,
            analytics,
            log: () => undefined,
          });
    },
    close: async () => {
      const step = async (name: string, work: () => Promise<unknown> | undefined): Promise<void> => {
        const started = Date.now();
        await work();
        if (process.env.DEBUG_CLOSE) process.stderr.write(`close ${name}: ${Date.now() - started} ms\n`);
      };
      await step('app', () => app.close());
      await step('flush', () => eventLog.flush());
      await step('consumers', () => system.consumers?.stop());
      await step('control plane', () => node.stop());
      await step('eventLog', () => eventLog.close());
      if (!options.budgetLedger && usesRedis(options.settings)) await step('budgets', () => budgetLedger.close());
      if (!options.state) await step('state', () => state.close());
      if (!options.analytics) await step('analytics', () => analytics.close());
      await step('dispatcher', () => dispatcher.close());
      await step('mock', () => mock.close());
    },
  };
  if (options.consumers !== false) await system.startConsumers();
  return system;
}

/** Polls `read` until it returns `expected` (or throws after `timeoutMs`, showing the last value). */
export async function eventually<T>(read: () => Promise<T>, expected: T, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read().catch(() => last);
    if (JSON.stringify(last) === JSON.stringify(expected)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`eventually: expected ${JSON.stringify(expected)}, last saw ${JSON.stringify(last)}`);
}

/** Exact decimal text (`0.000001234`) → nano-units (1234n). */
export function decimalToNano(text: string): bigint {
  const negative = text.startsWith('-');
  const [whole = '0', fraction = ''] = (negative ? text.slice(1) : text).split('.');
  const nano = BigInt(whole) * 1_000_000_000n + BigInt(fraction.padEnd(9, '0').slice(0, 9));
  return negative ? -nano : nano;
}
