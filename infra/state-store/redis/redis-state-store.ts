/**
 * The Redis state store (used when REDIS_URL or REDIS_CLUSTER_NODES is set): ioredis, every write
 * one Lua script that checks and moves the applied-offset watermark its entity (a spend counter, a
 * channel) keeps per partition, so replays and redeliveries of any age change nothing. Every key of
 * one script shares one hash tag, so the store runs on a single Redis and on a Redis Cluster alike;
 * on a single Redis a batch is one script over all its entities, on a cluster one script per
 * entity, sent concurrently (pipelined per node). Key layout, TTLs and the upgrade from the
 * untagged layout: REDIS-KEYS.md.
 */
import { channelHealthOf, type ChannelHealthState } from '../../../schemas/state-store/fold-channel-health.ts';
import { openRedisAdapter, type GuardedRedis, type RedisAdapterOptions, type StateStoreLog } from './guarded-redis.ts';
import type { RedisClient } from './redis-connection.ts';
import { ADD_SPEND_LUA, READ_HEALTH_LUA, RECORD_OBSERVATION_LUA, REVERT_SPEND_LUA } from './redis-scripts.ts';
import { applySpendBatch, type SpendScriptReply, type SpendScriptRunner } from './redis-spend-batch.ts';
import { appliedField, redisStateKeys } from './redis-state-keys.ts';
import { offsetOf } from '../../../schemas/state-store/applied-watermark.ts';
import { untaggedLayoutGate } from './migrate-untagged-state-layout.ts';
import type {
  ChannelHealth,
  ChannelObservation,
  HealthPolicy,
  StateStore,
} from '../../../schemas/state-store/state-store.ts';
import { validatedStateStore } from '../../../schemas/state-store/validated-state-store.ts';

export { redisStateKeys } from './redis-state-keys.ts';

/** Options of the Redis store: the endpoint (`url` or `cluster`, redis-connection.ts), key prefix and outage behaviour (guarded-redis.ts). */
export interface RedisStateStoreOptions extends RedisAdapterOptions {
  /** Where the outage transitions are logged (once per transition), and the layout migration. */
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
type ScriptedRedis = RedisClient & {
  tollgateAddSpend(numKeys: number, ...args: string[]): Promise<SpendScriptReply>;
  tollgateRevertSpend(numKeys: number, ...args: string[]): Promise<number>;
  tollgateRecordObservation(numKeys: number, ...args: string[]): Promise<number>;
  tollgateReadHealth(numKeys: number, ...args: string[]): Promise<ScriptReply>;
};

/**
 * Connects to Redis or a Redis Cluster (reconnecting on its own) and returns the StateStore over
 * it (contract: state-store.ts). While Redis is unreachable or slow, calls reject with
 * StateStoreUnavailableError within their deadline — getSpend (admission): `outage.commandTimeoutMs`
 * (default 100 ms); getChannelHealth: 500 ms; the consumers' writes: 2000 ms — and at once while
 * the circuit breaker is open (guarded-redis.ts); a consumer then redelivers. addSpend rejects with
 * RangeError when a counter would pass 2^63 − 1 nano-USD. On a single Redis the first call first
 * reads the layout marker and, when it is missing, migrates the untagged layout
 * (migrate-untagged-state-layout.ts; once, up to 300 000 ms).
 * @throws Error (at once) on a cluster when `keyPrefix` contains a brace
 */
export function createRedisStateStore(options: RedisStateStoreOptions): StateStore {
  const { guarded, prefix, cluster } = openRedisAdapter<ScriptedRedis>(options, 'state store', { hashTagged: true });
  const keys = redisStateKeys(prefix);
  const redis = guarded.client;
  const writeTimeoutMs = Math.max(WRITE_TIMEOUT_MS, guarded.commandTimeoutMs);
  redis.defineCommand('tollgateAddSpend', { lua: ADD_SPEND_LUA });
  redis.defineCommand('tollgateRevertSpend', { lua: REVERT_SPEND_LUA });
  redis.defineCommand('tollgateRecordObservation', { lua: RECORD_OBSERVATION_LUA });
  redis.defineCommand('tollgateReadHealth', { lua: READ_HEALTH_LUA, readOnly: true });

  const layout = cluster ? () => undefined : untaggedLayoutGate(guarded, prefix, keys, options.log);
  const spendRunner = spendRunnerOf(guarded, writeTimeoutMs);

  return validatedStateStore({
    /** The batch through applySpendBatch (redis-spend-batch.ts); an overflow becomes a RangeError. */
    async addSpendBatch(increments) {
      if (increments.length === 0) return 0;
      await layout();
      return applySpendBatch(increments, keys, cluster, spendRunner).catch((error: unknown) => {
        if (error instanceof Error && /overflow/i.test(error.message))
          throw new RangeError('spend counter would overflow 64 bits', { cause: error });
        throw error;
      });
    },

    async getSpend(keyId, userId) {
      const pending = layout();
      if (pending) await pending;
      const [key, user] = await guarded.run((client) =>
        readSpend(client, keys.keySpend(keyId), userId === null ? null : keys.userSpend(userId), cluster),
      );
      return { keyNanoUsd: BigInt(key ?? '0'), userNanoUsd: BigInt(user ?? '0') };
    },

    async recordChannelObservation(observation, policy) {
      await layout();
      const id = observation.channelId;
      const scriptKeys = [keys.healthApplied(id), keys.healthState(id), keys.healthOk(id), keys.healthFail(id)];
      const args = [
        ...observationArgs(observation, policy),
        appliedField(observation.position),
        observation.totalMs === undefined ? '' : String(observation.totalMs),
      ];
      const applied = await guarded.run(
        (client) => client.tollgateRecordObservation(scriptKeys.length, ...scriptKeys, ...args),
        writeTimeoutMs,
      );
      return applied === 1;
    },

    async getChannelHealth(channelIds, now) {
      if (channelIds.length === 0) return [];
      await layout();
      const groups = cluster ? channelIds.map((id) => [id]) : [channelIds];
      const read = (group: ReadonlyArray<string>): Promise<ScriptReply> => {
        const scriptKeys = group.flatMap((id) => [keys.healthState(id), keys.healthOk(id), keys.healthFail(id)]);
        return guarded.run(
          (client) => client.tollgateReadHealth(scriptKeys.length, ...scriptKeys, String(now)),
          Math.max(HEALTH_READ_TIMEOUT_MS, guarded.commandTimeoutMs),
        );
      };
      const reply = (await Promise.all(groups.map(read))).flat();
      return channelIds.map((id, i) => healthFromReply(id, reply.slice(i * 8, i * 8 + 8), now));
    },

    close: () => guarded.close(),
  });
}

/** The commands applySpendBatch needs, on `guarded` under the writes' deadline. */
function spendRunnerOf(guarded: GuardedRedis<ScriptedRedis>, timeoutMs: number): SpendScriptRunner {
  return {
    run: (call) =>
      guarded.run((client) => client.tollgateAddSpend(call.keys.length, ...call.keys, ...call.args), timeoutMs),
    revert: async (counter, applied, field, amount, watermark) =>
      void (await guarded.run(
        (client) => client.tollgateRevertSpend(2, counter, applied, field, amount, watermark),
        timeoutMs,
      )),
    read: (counters) => guarded.run((client) => Promise.all(counters.map((counter) => client.get(counter))), timeoutMs),
  };
}

/** The key and user counters: one MGET on a single Redis; on a cluster one GET per counter (two slots). */
function readSpend(
  client: RedisClient,
  keyCounter: string,
  userCounter: string | null,
  cluster: boolean,
): Promise<Array<string | null>> {
  if (userCounter === null) return client.mget(keyCounter);
  return cluster
    ? Promise.all([client.get(keyCounter), client.get(userCounter)])
    : client.mget(keyCounter, userCounter);
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

/** One channel's 8 reply entries (READ_HEALTH_LUA) → ChannelHealth via the shared `channelHealthOf`. */
function healthFromReply(channelId: string, entries: ScriptReply, now: number): ChannelHealth {
  const num = (i: number): number => {
    const value = entries[i];
    return value === null || value === undefined || value === '' ? 0 : Number(value);
  };
  const state: ChannelHealthState = {
    latencyEwmaMs: num(0),
    consecutiveFailures: num(1),
    failureCooldownUntil: num(2),
    retryAfterUntil: num(3),
    lastAt: num(4),
    totalLatencyEwmaMs: num(5),
  };
  const okCount = num(6);
  const failures = num(7);
  return channelHealthOf(channelId, state, { count: okCount + failures, failures }, now);
}
