/**
 * The Redis budget ledger (used when REDIS_URL or REDIS_CLUSTER_NODES is set; contract:
 * schemas/state-store/budget-ledger.ts). Each window counter `<budgetId>@<windowStartMs>` is three
 * keys under one hash tag `{budget:<counterId>}` (REDIS-KEYS.md; scripts in
 * redis-budget-scripts.ts): its spend, watermarks and alert marks; its holds with their sums; and
 * the holds' expiries.
 *
 * On a single Redis a reservation is ONE Lua script over every claim's keys (all-or-nothing,
 * atomic across any number of gateway nodes sharing the Redis), and a spend batch is one script
 * over all its counters. On a Redis Cluster the counters of one call are in different slots: each
 * claim is reserved atomically by its own script, all sent at once; when one refuses, the holds
 * the others took are released at once (RELEASE_BUDGET_HOLD_LUA, which puts back the hold each
 * replaced unless the request changed it meanwhile), so a refused request holds nothing, though a
 * concurrent reservation may see the hold for that instant and be refused a little early. A spend
 * batch is one script per counter, sent together; each counter's own watermark makes a batch
 * interrupted between two counters exact when it is redelivered.
 *
 * Amounts are exact at any size: they travel as decimal strings, Redis stores them with HINCRBY
 * (signed 64-bit), and the scripts add and compare them digit by digit, never as Lua numbers.
 * A sum that would pass 2^63 − 1 nano-USD (or 2^53 − 1 tokens) rejects with RangeError and the
 * script writes nothing (on a cluster, the other counters of a spend batch may have been written).
 *
 * TTL: a counter with a window end expires 35 days after it (PEXPIREAT, renewed by every write);
 * a lifetime counter never does.
 */
import type {
  BudgetClaim,
  BudgetCounter,
  BudgetLedger,
  BudgetReservation,
  BudgetSpendIncrement,
  BudgetWindowUse,
} from '../../../schemas/state-store/budget-ledger.ts';
import { offsetOf } from '../../../schemas/state-store/applied-watermark.ts';
import {
  assertBudgetCounter,
  assertBudgetSpendBatch,
  assertPercent,
  assertReserve,
  assertSettle,
  assertTime,
  budgetCounterExpiry,
  budgetCounterKey,
} from '../budget-ledger-input.ts';
import { openRedisAdapter, type RedisAdapterOptions } from './guarded-redis.ts';
import type { RedisClient } from './redis-connection.ts';
import {
  ADD_BUDGET_SPEND_LUA,
  MARK_BUDGET_ALERTED_LUA,
  READ_BUDGET_USE_LUA,
  RELEASE_BUDGET_HOLD_LUA,
  RESERVE_BUDGET_LUA,
  SETTLE_BUDGET_LUA,
} from './redis-budget-scripts.ts';

/** Options of the Redis ledger: the endpoint (`url` or `cluster`, redis-connection.ts), key prefix and outage behaviour (guarded-redis.ts). */
export type RedisBudgetLedgerOptions = RedisAdapterOptions;

/** Deadline of the consumers' calls (spend batches, alert marks, reads), ms: a consumer retries, so it can wait longer than a request. */
const CONSUMER_TIMEOUT_MS = 2000;

type ScriptReply = Array<string | number>;

/** The scripts ioredis defines on the client (EVALSHA with a transparent EVAL fallback). */
type ScriptedRedis = RedisClient & {
  tollgateBudgetReserve(numKeys: number, ...args: string[]): Promise<ScriptReply>;
  tollgateBudgetRelease(numKeys: number, ...args: string[]): Promise<number>;
  tollgateBudgetSettle(numKeys: number, ...args: string[]): Promise<number>;
  tollgateBudgetAddSpend(numKeys: number, ...args: string[]): Promise<ScriptReply>;
  tollgateBudgetRead(numKeys: number, ...args: string[]): Promise<ScriptReply>;
  tollgateBudgetMark(numKeys: number, ...args: string[]): Promise<number>;
};

/** The three keys of one counter (REDIS-KEYS.md), all under the hash tag `{budget:<counterId>}`. */
export interface BudgetCounterKeys {
  /** hash: `spent`, `tokens`, `w:<topic>:<partition>`, `a:<percent>` */
  readonly counter: string;
  /** hash: `h:<requestId>` → `"<nanoUsd>:<tokens>:<holdUntilMs>"`, sums `n` and `t` */
  readonly holds: string;
  /** sorted set: request id scored by its hold's holdUntilMs */
  readonly expiries: string;
}

/** The keys of `counter` under `prefix`. */
export function budgetCounterKeys(prefix: string, counter: BudgetCounter): BudgetCounterKeys {
  const tagged = `${prefix}{budget:${budgetCounterKey(counter)}}`;
  return { counter: tagged, holds: `${tagged}:holds`, expiries: `${tagged}:expiries` };
}

/** The PEXPIREAT argument of a counter ('' = no TTL). */
function expiryArg(counter: BudgetCounter): string {
  const at = budgetCounterExpiry(counter);
  return at === null ? '' : String(at);
}

/** A script's "would pass its 64-bit range" error as the port's RangeError; any other error unchanged. */
function asRangeError(error: unknown): never {
  if (error instanceof Error && /would pass its 64-bit range/.test(error.message))
    throw new RangeError(error.message.replace(/^ERR /, ''), { cause: error });
  throw error;
}

/** Five reply entries (spent, tokens, held nano-USD, held tokens, alerts) → a use. */
function useFromReply(counter: BudgetCounter, entries: ReadonlyArray<string | number>): BudgetWindowUse {
  const alerts = String(entries[4] ?? '');
  return {
    counter,
    spentNanoUsd: BigInt(entries[0] ?? 0),
    spentTokens: Number(entries[1] ?? 0),
    heldNanoUsd: BigInt(entries[2] ?? 0),
    heldTokens: Number(entries[3] ?? 0),
    alertedPercents:
      alerts === ''
        ? []
        : alerts
            .split(',')
            .map(Number)
            .sort((a, b) => a - b),
  };
}

/** The amounts of a hold's text `"<nanoUsd>:<tokens>:<holdUntilMs>"` ('' = none: 0, 0). */
function holdAmounts(text: string): { nanoUsd: bigint; tokens: number } {
  const [nano = '0', tokens = '0'] = text === '' ? [] : text.split(':');
  return { nanoUsd: BigInt(nano), tokens: Number(tokens) };
}

/** One reservation script's answer per claim: the previous hold and the use. */
interface ClaimAnswer {
  readonly previous: string;
  readonly use: BudgetWindowUse;
}

/**
 * Connects to Redis or a Redis Cluster (reconnecting on its own) and returns the BudgetLedger over
 * it (see the module doc). While Redis is unreachable or slower than the deadline, calls reject
 * with StateStoreUnavailableError within it — reserve and settle (the request path):
 * `outage.commandTimeoutMs` (default 100 ms); the consumers' calls: 2000 ms — and at once while
 * the circuit breaker is open (guarded-redis.ts).
 * @throws RangeError (from its methods) on malformed input, before anything is sent
 * @throws Error (at once) on a cluster when `keyPrefix` contains a brace
 */
export function createRedisBudgetLedger(options: RedisBudgetLedgerOptions): BudgetLedger & { close(): Promise<void> } {
  const { guarded, prefix, cluster } = openRedisAdapter<ScriptedRedis>(options, 'budget ledger', { hashTagged: true });
  const redis = guarded.client;
  redis.defineCommand('tollgateBudgetReserve', { lua: RESERVE_BUDGET_LUA });
  redis.defineCommand('tollgateBudgetRelease', { lua: RELEASE_BUDGET_HOLD_LUA });
  redis.defineCommand('tollgateBudgetSettle', { lua: SETTLE_BUDGET_LUA });
  redis.defineCommand('tollgateBudgetAddSpend', { lua: ADD_BUDGET_SPEND_LUA });
  redis.defineCommand('tollgateBudgetRead', { lua: READ_BUDGET_USE_LUA });
  redis.defineCommand('tollgateBudgetMark', { lua: MARK_BUDGET_ALERTED_LUA });
  const consumerTimeoutMs = Math.max(CONSUMER_TIMEOUT_MS, guarded.commandTimeoutMs);
  const keysOf = (counters: ReadonlyArray<BudgetCounter>): string[] =>
    counters.flatMap((counter) => {
      const keys = budgetCounterKeys(prefix, counter);
      return [keys.counter, keys.holds, keys.expiries];
    });

  /** RESERVE_BUDGET_LUA over `claims` (one slot on a cluster): the 1-based refused claim (0: all held) and the answers. */
  const reserveIn = async (
    requestId: string,
    claims: ReadonlyArray<BudgetClaim>,
    holdUntilMs: number,
    nowMs: number,
  ): Promise<{ refused: number; answers: ClaimAnswer[] }> => {
    const keys = keysOf(claims.map((claim) => claim.counter));
    const args = [
      requestId,
      String(holdUntilMs),
      String(nowMs),
      ...claims.flatMap((claim) => [
        claim.limitNanoUsd === null ? '' : claim.limitNanoUsd.toString(),
        claim.limitTokens === null ? '' : String(claim.limitTokens),
        claim.reserveNanoUsd.toString(),
        String(claim.reserveTokens),
        expiryArg(claim.counter),
      ]),
    ];
    const reply = await guarded
      .run((client) => client.tollgateBudgetReserve(keys.length, ...keys, ...args))
      .catch(asRangeError);
    return {
      refused: Number(reply[0]),
      answers: claims.map((claim, i) => ({
        previous: String(reply[1 + i * 6] ?? ''),
        use: useFromReply(claim.counter, reply.slice(2 + i * 6, 7 + i * 6)),
      })),
    };
  };

  /** A cluster's reservation: one script per claim, concurrently; when one refuses or fails, the holds taken are released. */
  const reserveAcrossSlots = async (
    requestId: string,
    claims: ReadonlyArray<BudgetClaim>,
    holdUntilMs: number,
    nowMs: number,
  ): Promise<BudgetReservation> => {
    const settled = await Promise.allSettled(claims.map((claim) => reserveIn(requestId, [claim], holdUntilMs, nowMs)));
    const failure = settled.find((result) => result.status === 'rejected');
    const refusedBy = settled.findIndex((result) => result.status === 'fulfilled' && result.value.refused !== 0);
    const answers = settled.map((result) => (result.status === 'fulfilled' ? result.value : undefined));
    if (!failure && refusedBy < 0) return { ok: true, uses: answers.map((answer) => answer!.answers[0]!.use) };
    const held = answers.flatMap((answer, i) => (answer && answer.refused === 0 ? [i] : []));
    const release = (i: number): Promise<number> => {
      const claim = claims[i] as BudgetClaim;
      const keys = keysOf([claim.counter]);
      const set = `${claim.reserveNanoUsd}:${claim.reserveTokens}:${holdUntilMs}`;
      const previous = answers[i]!.answers[0]!.previous;
      return guarded.run((client) => client.tollgateBudgetRelease(keys.length, ...keys, requestId, set, previous));
    };
    await Promise.all(held.map(release));
    if (failure) throw failure.reason;
    const uses = claims.map((claim, i) => {
      const { previous, use } = answers[i]!.answers[0]!;
      if (!held.includes(i)) return use;
      const before = holdAmounts(previous);
      return {
        ...use,
        heldNanoUsd: use.heldNanoUsd - claim.reserveNanoUsd + before.nanoUsd,
        heldTokens: use.heldTokens - claim.reserveTokens + before.tokens,
      };
    });
    return { ok: false, refusedBy, uses };
  };

  /** Groups `items` by counter id, groups in order of first appearance. */
  const byCounter = <T>(items: ReadonlyArray<T>, counterOf: (item: T) => BudgetCounter): Map<string, T[]> => {
    const groups = new Map<string, T[]>();
    for (const item of items) {
      const id = budgetCounterKey(counterOf(item));
      const group = groups.get(id);
      if (group) group.push(item);
      else groups.set(id, [item]);
    }
    return groups;
  };

  /** ADD_BUDGET_SPEND_LUA over the increments of some counters (all of one call's slot on a cluster); the uses of its counters in first-appearance order. */
  const addSpendIn = async (
    increments: ReadonlyArray<BudgetSpendIncrement>,
    nowMs: number,
  ): Promise<BudgetWindowUse[]> => {
    const counters = [...byCounter(increments, (increment) => increment.counter).values()].map(
      (group) => (group[0] as BudgetSpendIncrement).counter,
    );
    const numbers = new Map(counters.map((counter, i) => [budgetCounterKey(counter), String(i + 1)]));
    const first = increments[0] as BudgetSpendIncrement;
    const keys = keysOf(counters);
    const args = [
      `w:${first.position.topic}:${first.position.partition}`,
      String(nowMs),
      ...counters.map(expiryArg),
      ...increments.flatMap((increment) => [
        String(offsetOf(increment.position)),
        numbers.get(budgetCounterKey(increment.counter)) as string,
        increment.requestId,
        increment.costNanoUsd.toString(),
        String(increment.tokens),
      ]),
    ];
    const reply = await guarded
      .run((client) => client.tollgateBudgetAddSpend(keys.length, ...keys, ...args), consumerTimeoutMs)
      .catch(asRangeError);
    return counters.map((counter, i) => useFromReply(counter, reply.slice(i * 5, i * 5 + 5)));
  };

  return {
    async reserve(requestId, claims, holdUntilMs, nowMs): Promise<BudgetReservation> {
      assertReserve(requestId, claims, holdUntilMs, nowMs);
      if (claims.length === 0) return { ok: true, uses: [] };
      if (cluster && claims.length > 1) return reserveAcrossSlots(requestId, claims, holdUntilMs, nowMs);
      const { refused, answers } = await reserveIn(requestId, claims, holdUntilMs, nowMs);
      const uses = answers.map((answer) => answer.use);
      return refused === 0 ? { ok: true, uses } : { ok: false, refusedBy: refused - 1, uses };
    },

    async settle(requestId, counters, costNanoUsd, tokens, holdUntilMs, nowMs): Promise<void> {
      assertSettle(requestId, counters, costNanoUsd, tokens, holdUntilMs, nowMs);
      const distinct = [...byCounter(counters, (counter) => counter).values()].map(
        (group) => group[0] as BudgetCounter,
      );
      if (distinct.length === 0) return;
      const settleIn = async (group: ReadonlyArray<BudgetCounter>): Promise<void> => {
        const keys = keysOf(group);
        const args = [
          requestId,
          costNanoUsd.toString(),
          String(tokens),
          String(holdUntilMs),
          String(nowMs),
          ...group.map(expiryArg),
        ];
        await guarded.run((client) => client.tollgateBudgetSettle(keys.length, ...keys, ...args)).catch(asRangeError);
      };
      if (!cluster) return settleIn(distinct);
      await Promise.all(distinct.map((counter) => settleIn([counter])));
    },

    async addBudgetSpendBatch(increments, nowMs): Promise<BudgetWindowUse[]> {
      assertBudgetSpendBatch(increments);
      assertTime(nowMs, 'nowMs');
      if (increments.length === 0) return [];
      if (!cluster) return addSpendIn(increments, nowMs);
      const groups = [...byCounter(increments, (increment) => increment.counter).values()];
      return (await Promise.all(groups.map((group) => addSpendIn(group, nowMs)))).flat();
    },

    async readBudgetUse(counters, nowMs): Promise<BudgetWindowUse[]> {
      counters.forEach(assertBudgetCounter);
      assertTime(nowMs, 'nowMs');
      if (counters.length === 0) return [];
      const readIn = async (group: ReadonlyArray<BudgetCounter>): Promise<BudgetWindowUse[]> => {
        const keys = keysOf(group);
        const reply = await guarded.run(
          (client) => client.tollgateBudgetRead(keys.length, ...keys, String(nowMs)),
          consumerTimeoutMs,
        );
        return group.map((counter, i) => useFromReply(counter, reply.slice(i * 5, i * 5 + 5)));
      };
      if (!cluster) return readIn(counters);
      return (await Promise.all(counters.map((counter) => readIn([counter])))).flat();
    },

    async markThresholdAlerted(counter, percent): Promise<void> {
      assertBudgetCounter(counter);
      assertPercent(percent);
      const keys = budgetCounterKeys(prefix, counter);
      await guarded.run(
        (client) => client.tollgateBudgetMark(1, keys.counter, `a:${percent}`, expiryArg(counter)),
        consumerTimeoutMs,
      );
    },

    /** Quits the connection. */
    close: () => guarded.close(),
  };
}
