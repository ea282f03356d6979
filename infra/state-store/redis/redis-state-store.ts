/**
 * The Redis state store (used when REDIS_URL is set): ioredis, every write one Lua script that
 * checks and moves its partition's applied-offset watermark (`applied:<kind>:<topic>:<partition>`),
 * so replays and redeliveries of any age change nothing, with one small key per partition. Key layout and TTLs: REDIS-KEYS.md. A single Redis (or a primary with replicas) is
 * assumed: the keys of one script are not hash-tagged for Redis Cluster.
 */
import type { Redis } from 'ioredis';
import { assertValidObservation, assertValidPolicy, channelHealthOf, type ChannelHealthState } from '../../../schemas/state-store/fold-channel-health.ts';
import { openGuardedRedis, type RedisOutageSettings, type StateStoreLog } from './guarded-redis.ts';
import { ADD_SPEND_LUA, READ_HEALTH_LUA, RECORD_OBSERVATION_LUA } from './redis-scripts.ts';
import { assertSpendBatch } from '../../../schemas/state-store/spend-increment.ts';
import { offsetOf, watermarkName, type WatermarkKind } from '../../../schemas/state-store/applied-watermark.ts';
import { DEFAULT_HEALTH_POLICY, type ChannelHealth, type ChannelObservation, type HealthPolicy, type LogPosition, type SpendIncrement, type SpendTotals, type StateStore } from '../../../schemas/state-store/state-store.ts';

/** Options of the Redis store. `keyPrefix` (default `tollgate:`) starts every key. */
export interface RedisStateStoreOptions {
  /** `redis://[user:password@]host:port[/db]`; never logged. */
  readonly url: string;
  readonly keyPrefix?: string;
  /** Deadline and circuit breaker while Redis is down (guarded-redis.ts; default: 100 ms, open after 3 failures for 1000 ms). */
  readonly outage?: RedisOutageSettings;
  /** Where the outage transitions are logged (once per transition). */
  readonly log?: StateStoreLog;
}

/** Deadline of the consumers' writes (spend, health), ms: a consumer retries, so it can wait longer than a request. */
const WRITE_TIMEOUT_MS = 2000;
/** Deadline of the health read that routing refreshes in the background, ms. */
const HEALTH_READ_TIMEOUT_MS = 500;

/** TTL of a channel's state hash after its last observation, ms (7 days). */
export const CHANNEL_STATE_TTL_MS = 604_800_000;

type ScriptReply = Array<string | number | null>;

/** The scripts ioredis defines on the client (EVALSHA with a transparent EVAL fallback). */
interface ScriptedRedis extends Redis {
  tollgateAddSpend(numKeys: number, ...args: string[]): Promise<number>;
  tollgateRecordObservation(numKeys: number, ...args: string[]): Promise<number>;
  tollgateReadHealth(numKeys: number, ...args: string[]): Promise<ScriptReply>;
}

/** The key names of REDIS-KEYS.md, for one prefix. */
export function redisStateKeys(prefix: string) {
  return {
    /** The applied-offset watermark of one kind and partition (applied-watermark.ts). */
    applied: (kind: WatermarkKind, position: LogPosition) => `${prefix}applied:${watermarkName(kind, position)}`,
    keySpend: (keyId: string) => `${prefix}spend:key:${keyId}`,
    userSpend: (userId: string) => `${prefix}spend:user:${userId}`,
    healthState: (channelId: string) => `${prefix}health:state:${channelId}`,
    healthOk: (channelId: string) => `${prefix}health:ok:${channelId}`,
    healthFail: (channelId: string) => `${prefix}health:fail:${channelId}`,
  };
}

/**
 * Connects to Redis (reconnecting on its own) and returns the StateStore over it (contract:
 * state-store.ts). While Redis is unreachable or slow, calls reject with
 * StateStoreUnavailableError within their deadline — getSpend (admission): `outage.commandTimeoutMs`
 * (default 100 ms); getChannelHealth: 500 ms; the consumers' writes: 2000 ms — and at once while
 * the circuit breaker is open (guarded-redis.ts); a consumer then redelivers. addSpend rejects with RangeError when a counter would pass 2^63 − 1 nano-USD
 * (nothing is changed then).
 */
export function createRedisStateStore(options: RedisStateStoreOptions): StateStore {
  const keys = redisStateKeys(options.keyPrefix ?? 'tollgate:');
  const guarded = openGuardedRedis<ScriptedRedis>({ url: options.url, role: 'state store', ...(options.outage ? { outage: options.outage } : {}), ...(options.log ? { log: options.log } : {}) });
  const redis = guarded.client;
  const writeTimeoutMs = Math.max(WRITE_TIMEOUT_MS, guarded.commandTimeoutMs);
  redis.defineCommand('tollgateAddSpend', { lua: ADD_SPEND_LUA });
  redis.defineCommand('tollgateRecordObservation', { lua: RECORD_OBSERVATION_LUA });
  redis.defineCommand('tollgateReadHealth', { lua: READ_HEALTH_LUA, readOnly: true });

  /** One script call for the batch (ADD_SPEND_LUA): counters deduplicated into KEYS, 4 ARGV per increment. */
  const addSpendBatch = async (increments: ReadonlyArray<SpendIncrement>): Promise<number> => {
    assertSpendBatch(increments);
    const first = increments[0];
    if (!first) return 0;
    const scriptKeys = [keys.applied('spend', first.position)];
    const indexOf = new Map<string, number>();
    const keyIndex = (name: string): number => {
      let index = indexOf.get(name);
      if (index === undefined) {
        index = scriptKeys.push(name);
        indexOf.set(name, index);
      }
      return index;
    };
    const args = increments.flatMap((increment) => [String(offsetOf(increment.position)), increment.costNanoUsd.toString(), String(keyIndex(keys.keySpend(increment.keyId))), String(increment.userId === null ? 0 : keyIndex(keys.userSpend(increment.userId)))]);
    return guarded.run((client) => client.tollgateAddSpend(scriptKeys.length, ...scriptKeys, ...args), writeTimeoutMs).catch((error: unknown) => {
      if (error instanceof Error && /overflow/i.test(error.message)) throw new RangeError('spend counter would overflow 64 bits', { cause: error });
      throw error;
    });
  };

  return {
    async addSpend(position: LogPosition, keyId: string, userId: string | null, costNanoUsd: bigint): Promise<boolean> {
      return (await addSpendBatch([{ position, keyId, userId, costNanoUsd }])) === 1;
    },

    addSpendBatch,

    async getSpend(keyId: string, userId: string | null): Promise<SpendTotals> {
      const [key, user] = await guarded.run((client) => client.mget(keys.keySpend(keyId), ...(userId === null ? [] : [keys.userSpend(userId)])));
      return { keyNanoUsd: BigInt(key ?? '0'), userNanoUsd: BigInt(user ?? '0') };
    },

    async recordChannelObservation(observation: ChannelObservation, policy: HealthPolicy = DEFAULT_HEALTH_POLICY): Promise<boolean> {
      assertValidObservation(observation);
      assertValidPolicy(policy);
      const id = observation.channelId;
      const scriptKeys = [keys.applied('health', observation.position), keys.healthState(id), keys.healthOk(id), keys.healthFail(id)];
      const applied = await guarded.run((client) => client.tollgateRecordObservation(scriptKeys.length, ...scriptKeys, ...observationArgs(observation, policy)), writeTimeoutMs);
      return applied === 1;
    },

    async getChannelHealth(channelIds: ReadonlyArray<string>, now: number = Date.now()): Promise<ChannelHealth[]> {
      if (channelIds.length === 0) return [];
      const scriptKeys = channelIds.flatMap((id) => [keys.healthState(id), keys.healthOk(id), keys.healthFail(id)]);
      const reply = await guarded.run((client) => client.tollgateReadHealth(scriptKeys.length, ...scriptKeys, String(now)), Math.max(HEALTH_READ_TIMEOUT_MS, guarded.commandTimeoutMs));
      return channelIds.map((id, i) => healthFromReply(id, reply.slice(i * 7, i * 7 + 7), now));
    },

    close: () => guarded.close(),
  };
}

/** ARGV 1..12 of RECORD_OBSERVATION_LUA; numbers as JS's shortest round-trip decimal. */
function observationArgs(observation: ChannelObservation, policy: HealthPolicy): string[] {
  return [
    String(offsetOf(observation.position)),
    observation.eventId,
    String(observation.at),
    observation.ok ? '1' : '0',
    String(observation.latencyMs),
    observation.errorKind ?? '',
    String(observation.retryAfterMs ?? 0),
    String(policy.windowMs),
    String(policy.failureThreshold),
    String(policy.cooldownMs),
    String(policy.latencyAlpha),
    String(CHANNEL_STATE_TTL_MS),
  ];
}

/** One channel's 7 reply entries → ChannelHealth via the shared `channelHealthOf`. */
function healthFromReply(channelId: string, entries: ScriptReply, now: number): ChannelHealth {
  const num = (i: number): number => {
    const value = entries[i];
    return value === null || value === undefined || value === '' ? 0 : Number(value);
  };
  const state: ChannelHealthState = { latencyEwmaMs: num(0), consecutiveFailures: num(1), failureCooldownUntil: num(2), retryAfterUntil: num(3), lastAt: num(4) };
  const okCount = num(5);
  const failures = num(6);
  return channelHealthOf(channelId, state, { count: okCount + failures, failures }, now);
}
