/**
 * Chooses each port's adapter from configuration (an env var present → the
 * production adapter): KAFKA_BROKERS → Kafka, else the embedded file log; REDIS_URL → Redis, or
 * REDIS_CLUSTER_NODES → a Redis Cluster, else memory (state, limits, budget windows, console
 * sessions, stored Responses answers); CLICKHOUSE_URL → a ClickHouse server, else chdb in the data directory.
 */
import { join } from 'node:path';
import type { AnalyticsStore } from '../schemas/analytics/analytics-store.ts';
import { createChdbStore } from './analytics/chdb/chdb-store.ts';
import { createClickHouseStore } from './analytics/clickhouse-http/clickhouse-http-store.ts';
import type { EventLog } from '../schemas/event-log/event-log.ts';
import { createFileEventLog } from './event-log/file/file-event-log.ts';
import type { FileLogWriteSignalSide } from './event-log/file/file-log-write-signal.ts';
import { createKafkaEventLog } from './event-log/kafka/kafka-event-log.ts';
import { withTopicPrefix } from './event-log/prefixed-event-log.ts';
import { parseWholeNumberVariable } from './parse-whole-number-variable.ts';
import { createMemoryRateLimiter } from './state-store/memory/memory-rate-limiter.ts';
import { createMemoryResponseStore } from './state-store/memory/memory-response-store.ts';
import { createMemorySessionStore } from './state-store/memory/memory-session-store.ts';
import { createMemoryAffinityStore } from './state-store/memory/memory-affinity-store.ts';
import { createMemoryCredentialCooldowns } from './state-store/memory/memory-credential-cooldowns.ts';
import { createRedisCredentialCooldowns } from './state-store/redis/redis-credential-cooldowns.ts';
import type { CredentialCooldownStore } from '../schemas/state-store/credential-cooldowns.ts';
import { createMemoryStateStore, type MemoryStateStore } from './state-store/memory/memory-state-store.ts';
import { createMemoryBudgetLedger } from './state-store/memory/memory-budget-ledger.ts';
import type { BudgetLedger } from '../schemas/state-store/budget-ledger.ts';
import { createRedisBudgetLedger } from './state-store/redis/redis-budget-ledger.ts';
import { createMemoryInFlightRegistry } from './state-store/memory/memory-in-flight-registry.ts';
import { createRedisInFlightRegistry } from './state-store/redis/redis-in-flight-registry.ts';
import type { InFlightRegistry } from '../schemas/state-store/in-flight-registry.ts';
import type { RateLimiter } from '../schemas/state-store/rate-limiter.ts';
import type { RedisOutageSettings } from './state-store/redis/guarded-redis.ts';
import {
  parseRedisClusterNodes,
  type RedisClusterSettings,
  type RedisEndpoint,
} from './state-store/redis/redis-connection.ts';
import { createRedisRateLimiter } from './state-store/redis/redis-rate-limiter.ts';
import { createRedisResponseStore } from './state-store/redis/redis-response-store.ts';
import { createRedisSessionStore } from './state-store/redis/redis-session-store.ts';
import { createRedisAffinityStore } from './state-store/redis/redis-affinity-store.ts';
import { createRedisStateStore } from './state-store/redis/redis-state-store.ts';
import type { ResponseStore } from '../schemas/state-store/response-store.ts';
import type { SessionStore } from '../schemas/state-store/session-store.ts';
import type { AffinityStore } from '../schemas/state-store/affinity-store.ts';
import type { StateStore } from '../schemas/state-store/state-store.ts';

/** Where the engines are. Absent URLs select the embedded adapters. */
export interface EngineSettings {
  /** Data directory for the file log, the Kafka spool and chdb. */
  readonly dataDir: string;
  readonly kafkaBrokers?: ReadonlyArray<string>;
  readonly redisUrl?: string;
  /** A Redis Cluster instead of `redisUrl` (REDIS_CLUSTER_NODES; redis-connection.ts). */
  readonly redisCluster?: RedisClusterSettings;
  readonly clickhouseUrl?: string;
  /**
   * ClickHouse database. Server: default `tollgate`. chdb: default `default` (where the embedded
   * tables have always lived); another database only when a caller sets it here explicitly (e.g.
   * `tollgate replay`): engineSettingsFromEnv reads CLICKHOUSE_DATABASE only with CLICKHOUSE_URL,
   * so an embedded deployment that has the variable set keeps reading its data where it is.
   */
  readonly clickhouseDatabase?: string;
  /** Redis key prefix (default `tollgate:`). */
  readonly redisKeyPrefix?: string;
  /** Prefix for every topic name (default none): isolates deployments sharing a Kafka cluster. */
  readonly topicPrefix?: string;
  /** How long stored Responses answers are kept, days (default 30, as OpenAI; fractions allowed). */
  readonly responseRetentionDays?: number;
  /** In-process store only (no REDIS_URL): most JSON of stored Responses answers held, MiB (default 32; TOLLGATE_RESPONSE_STORE_MEMORY_MB). */
  readonly responseStoreMemoryMiB?: number;
  /**
   * How the Redis adapters behave while Redis is down (deadline per request-path command,
   * circuit breaker); TOLLGATE_REDIS_TIMEOUT_MS sets the deadline (ms, default 100).
   */
  readonly redisOutage?: RedisOutageSettings;
  /**
   * Embedded file log only: this log's side of the write signal shared with the file log of
   * another thread (file-log-write-signal.ts): the request thread writes, the consumer thread is
   * woken by its writes instead of polling.
   */
  readonly fileLogWriteSignal?: FileLogWriteSignalSide;
  /** Sink for adapter log lines. */
  readonly log?: (level: 'debug' | 'info' | 'warn' | 'error', message: string, extra?: Record<string, unknown>) => void;
}

/**
 * Reads EngineSettings from environment variables.
 * @throws Error naming the variable when REDIS_CLUSTER_NODES is malformed or set together with REDIS_URL
 */
export function engineSettingsFromEnv(env: NodeJS.ProcessEnv): EngineSettings {
  const brokers = env.KAFKA_BROKERS?.split(',')
    .map((b) => b.trim())
    .filter(Boolean);
  if (env.REDIS_URL && env.REDIS_CLUSTER_NODES)
    throw new Error('set REDIS_URL (one Redis) or REDIS_CLUSTER_NODES (a Redis Cluster), not both');
  return {
    dataDir: env.TOLLGATE_DATA_DIR ?? './data',
    ...(brokers && brokers.length > 0 ? { kafkaBrokers: brokers } : {}),
    ...(env.REDIS_URL ? { redisUrl: env.REDIS_URL } : {}),
    ...(env.REDIS_CLUSTER_NODES ? { redisCluster: parseRedisClusterNodes(env.REDIS_CLUSTER_NODES) } : {}),
    ...(env.CLICKHOUSE_URL ? { clickhouseUrl: env.CLICKHOUSE_URL } : {}),
    ...(env.CLICKHOUSE_URL && env.CLICKHOUSE_DATABASE ? { clickhouseDatabase: env.CLICKHOUSE_DATABASE } : {}),
    ...(env.REDIS_KEY_PREFIX ? { redisKeyPrefix: env.REDIS_KEY_PREFIX } : {}),
    ...(env.TOLLGATE_TOPIC_PREFIX ? { topicPrefix: env.TOLLGATE_TOPIC_PREFIX } : {}),
    ...(env.TOLLGATE_RESPONSE_RETENTION_DAYS
      ? { responseRetentionDays: parseRetentionDays(env.TOLLGATE_RESPONSE_RETENTION_DAYS) }
      : {}),
    ...(env.TOLLGATE_RESPONSE_STORE_MEMORY_MB
      ? {
          responseStoreMemoryMiB: parseWholeNumberVariable(
            'TOLLGATE_RESPONSE_STORE_MEMORY_MB',
            env.TOLLGATE_RESPONSE_STORE_MEMORY_MB,
            { min: 1, max: 65_536, unit: 'MiB' },
          ),
        }
      : {}),
    ...(env.TOLLGATE_REDIS_TIMEOUT_MS
      ? {
          redisOutage: {
            commandTimeoutMs: parseWholeNumberVariable('TOLLGATE_REDIS_TIMEOUT_MS', env.TOLLGATE_REDIS_TIMEOUT_MS, {
              min: 1,
              max: 60_000,
              unit: 'ms',
            }),
          },
        }
      : {}),
  };
}

/** True when the settings name a Redis or a Redis Cluster (the Redis adapters are used). */
export function usesRedis(settings: Pick<EngineSettings, 'redisUrl' | 'redisCluster'>): boolean {
  return Boolean(settings.redisUrl || settings.redisCluster);
}

/** The Redis connection options of every Redis adapter for these settings (the cluster when given). */
function redisOptions(settings: EngineSettings) {
  const endpoint: RedisEndpoint = settings.redisCluster
    ? { cluster: settings.redisCluster }
    : { url: settings.redisUrl };
  return {
    ...endpoint,
    keyPrefix: settings.redisKeyPrefix ?? 'tollgate:',
    ...(settings.redisOutage ? { outage: settings.redisOutage } : {}),
    ...(settings.log ? { log: settings.log } : {}),
  };
}

/** TOLLGATE_RESPONSE_RETENTION_DAYS → days. @throws Error naming the variable when it is not a positive number */
function parseRetentionDays(text: string): number {
  const days = Number(text);
  if (!Number.isFinite(days) || days <= 0)
    throw new Error(`TOLLGATE_RESPONSE_RETENTION_DAYS must be a positive number of days, got '${text}'`);
  return days;
}

/** The event log for these settings. */
export function openEventLog(settings: EngineSettings): EventLog {
  const log =
    settings.kafkaBrokers && settings.kafkaBrokers.length > 0
      ? createKafkaEventLog({
          brokers: [...settings.kafkaBrokers],
          spoolDir: join(settings.dataDir, 'spool'),
          ...(settings.log ? { logger: settings.log } : {}),
        })
      : createFileEventLog({
          dataDir: settings.dataDir,
          ...(settings.fileLogWriteSignal ? { writeSignal: settings.fileLogWriteSignal } : {}),
          ...(settings.log ? { logger: settings.log } : {}),
        });
  return withTopicPrefix(log, settings.topicPrefix ?? '');
}

/** The state store for these settings. */
export function openStateStore(settings: EngineSettings): StateStore {
  if (usesRedis(settings)) return createRedisStateStore(redisOptions(settings));
  return createMemoryStateStore();
}

/** The analytics store for these settings: the server's `clickhouseDatabase` (default `tollgate`), or chdb's (default `default`). */
export function openAnalyticsStore(settings: EngineSettings): AnalyticsStore {
  if (settings.clickhouseUrl)
    return createClickHouseStore({ url: settings.clickhouseUrl, database: settings.clickhouseDatabase ?? 'tollgate' });
  // The embedded engine is background work next to the request thread: its threads yield to requests.
  return createChdbStore({
    path: join(settings.dataDir, 'chdb'),
    background: true,
    ...(settings.clickhouseDatabase ? { database: settings.clickhouseDatabase } : {}),
  });
}

/** The RPM/TPM limiter for these settings: Redis (shared by every node) or in-process memory. */
export function openRateLimiter(settings: EngineSettings): RateLimiter {
  if (usesRedis(settings)) return createRedisRateLimiter(redisOptions(settings));
  return createMemoryRateLimiter();
}

/**
 * The budget ledger for these settings (schemas/state-store/budget-ledger.ts): Redis (shared by
 * every node). Without Redis, the in-process ledger the process's memory `state` carries (the
 * memory store's `budgets`: the consumers reach it with the store over its port, and it is
 * snapshotted with it), or a new in-process one when `state` is not the memory store.
 */
export function openBudgetLedger(
  settings: EngineSettings,
  state?: StateStore,
): BudgetLedger & { close(): Promise<void> } {
  if (usesRedis(settings)) return createRedisBudgetLedger(redisOptions(settings));
  return (state as Partial<MemoryStateStore> | undefined)?.budgets ?? createMemoryBudgetLedger();
}

/** The prompt-cache affinity store for these settings: Redis (shared by every node) or in-process memory. */
export function openAffinityStore(settings: EngineSettings): AffinityStore {
  if (usesRedis(settings)) return createRedisAffinityStore(redisOptions(settings));
  return createMemoryAffinityStore();
}

/** The credential-cooldown store of key pools for these settings: Redis (shared by every node) or in-process memory. */
export function openCredentialCooldowns(settings: EngineSettings): CredentialCooldownStore {
  if (usesRedis(settings)) return createRedisCredentialCooldowns(redisOptions(settings));
  return createMemoryCredentialCooldowns();
}

/** The console session store for these settings: Redis (shared by every node) or in-process memory. */
export function openSessionStore(settings: EngineSettings): SessionStore {
  if (usesRedis(settings)) return createRedisSessionStore(redisOptions(settings));
  return createMemorySessionStore();
}

/**
 * The stored-responses store for these settings: Redis (shared by every node, so any node can
 * continue a chain) or in-process memory, holding at most `responseStoreMemoryMiB` of JSON (default
 * 32 MiB, oldest out first); records live `responseRetentionDays` (default 30 days).
 */
export function openResponseStore(settings: EngineSettings): ResponseStore {
  const retention =
    settings.responseRetentionDays === undefined
      ? {}
      : { retentionMs: Math.max(1, Math.round(settings.responseRetentionDays * 24 * 60 * 60 * 1000)) };
  if (usesRedis(settings)) return createRedisResponseStore({ ...redisOptions(settings), ...retention });
  return createMemoryResponseStore({
    ...retention,
    ...(settings.responseStoreMemoryMiB ? { maxTotalBytes: settings.responseStoreMemoryMiB * 1024 * 1024 } : {}),
  });
}

/**
 * The in-flight registry for these settings (schemas/state-store/in-flight-registry.ts): Redis
 * (shared by every node). Without Redis, the registry the process's memory `state` carries (the
 * memory store's `inFlight`: nodes of one process sharing the store see each other), or a new
 * in-process one when `state` is not the memory store.
 */
export function openInFlightRegistry(settings: EngineSettings, state?: StateStore): InFlightRegistry {
  if (usesRedis(settings)) return createRedisInFlightRegistry(redisOptions(settings));
  return (state as Partial<MemoryStateStore> | undefined)?.inFlight ?? createMemoryInFlightRegistry();
}
