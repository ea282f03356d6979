/**
 * The Redis rate limiter (used when REDIS_URL or REDIS_CLUSTER_NODES is set): GCRA per (scope,
 * kind) as in gcra-rate-limit.ts. On a single Redis every admission is ONE Lua script over all its
 * cells (all-or-nothing, atomic across any number of gateway nodes sharing the Redis), settlements
 * likewise. On a Redis Cluster the cells of one scope share a hash tag (one slot): each scope is
 * admitted atomically by one script, the scopes concurrently; when one refuses, the charges the
 * others made are released (SETTLE_LUA with the negative cost), so a refused request costs no
 * scope anything, though a concurrent admission may see the charge for that instant.
 *
 * Key layout: `<prefix>rl:{<scope>}:<kind>` (kind `requests` | `tokens`) → string
 * `"<ms>:<r>:<limit>"`, the cell's TAT `ms + r/limit` (ms since epoch); PEXPIRE = until the TAT
 * has passed plus 60 000 ms (≤ ~2 minutes unless a settlement left usage debt). An absent key is
 * a fully replenished cell.
 *
 * Clock: with no `now` argument the script reads the Redis server clock (TIME), so every gateway
 * node shares one clock per cell (on a cluster, the clock of the node holding the cell); `now`
 * (integer ms) is for tests.
 */
import {
  admissionCells,
  assertLimitUnits,
  decideAdmission,
  decideGroupedAdmission,
  parseTat,
  type GcraCell,
  type GcraTat,
} from '../../../schemas/state-store/gcra-rate-limit.ts';
import type { Admission, LimitScope, RateLimiter } from '../../../schemas/state-store/rate-limiter.ts';
import { openRedisAdapter, type GuardedRedis, type RedisAdapterOptions } from './guarded-redis.ts';
import type { RedisClient } from './redis-connection.ts';
import { ADMIT_LUA, SETTLE_LUA } from './redis-rate-limit-scripts.ts';

/** Options of the Redis limiter: the endpoint (`url` or `cluster`, redis-connection.ts), key prefix and outage behaviour (guarded-redis.ts). */
export type RedisRateLimiterOptions = RedisAdapterOptions;

/** The scripts ioredis defines on the client (EVALSHA with a transparent EVAL fallback). */
type ScriptedRedis = RedisClient & {
  tollgateRateAdmit(numKeys: number, ...args: string[]): Promise<Array<string | number>>;
  tollgateRateSettle(numKeys: number, ...args: string[]): Promise<number>;
};

/** The Redis key of one (scope, kind) cell; the scope is the hash tag. */
export function rateLimitKey(prefix: string, scope: string, kind: GcraCell['kind']): string {
  return `${prefix}rl:{${scope}}:${kind}`;
}

/** The indexes of `cells` per scope (one hash tag, one slot), groups in order of their first cell. */
function scopeGroups(cells: ReadonlyArray<GcraCell>): number[][] {
  const byScope = new Map<string, number[]>();
  cells.forEach((cell, i) => {
    const group = byScope.get(cell.scope);
    if (group) group.push(i);
    else byScope.set(cell.scope, [i]);
  });
  return [...byScope.values()];
}

/** The error of a script whose verdict differs from gcra-rate-limit.ts. */
function scriptDisagreement(): Error {
  return new Error(
    'rate limiter: the Lua script and gcra-rate-limit.ts disagree (keep redis-rate-limit-scripts.ts in step)',
  );
}

/** '' (server clock) or the integer ms a caller passed. */
function clockArg(now: number | undefined): string {
  return now === undefined ? '' : String(Math.floor(now));
}

/** ARGV tail of ADMIT_LUA / SETTLE_LUA after the clock: per cell its limit and `amountOf(cell)` (cost or delta). */
function cellArgs(cells: ReadonlyArray<GcraCell>, amountOf: (cell: GcraCell) => number): string[] {
  return cells.flatMap((cell) => [String(cell.limit), String(amountOf(cell))]);
}

/** The stored TATs in an ADMIT_LUA reply (entries 3…), one per cell. */
function storedTats(cells: ReadonlyArray<GcraCell>, reply: ReadonlyArray<string | number>): Array<GcraTat | null> {
  return cells.map((cell, i) => parseTat(String(reply[i + 2] ?? ''), cell.limit));
}

/** The scripts over the cells of one slot, for a cluster's admissions and settlements. */
interface SlotScripts {
  /** ADMIT_LUA: the script's verdict, the stored TATs it read and its node's clock (ms). */
  admit(
    cells: ReadonlyArray<GcraCell>,
    now: number | undefined,
  ): Promise<{ allowed: boolean; stored: Array<GcraTat | null>; now: number }>;
  /** SETTLE_LUA with a delta (units) per cell. */
  settle(cells: ReadonlyArray<GcraCell>, deltaOf: (cell: GcraCell) => number, now: number | undefined): Promise<void>;
}

/** SlotScripts on `guarded` for keys under `prefix`. */
function slotScriptsOf(guarded: GuardedRedis<ScriptedRedis>, prefix: string): SlotScripts {
  const keysOf = (cells: ReadonlyArray<GcraCell>): string[] =>
    cells.map((cell) => rateLimitKey(prefix, cell.scope, cell.kind));
  return {
    async admit(cells, now) {
      const keys = keysOf(cells);
      const reply = await guarded.run((client) =>
        client.tollgateRateAdmit(keys.length, ...keys, clockArg(now), ...cellArgs(cells, (cell) => cell.cost)),
      );
      return { allowed: Number(reply[0]) === 1, stored: storedTats(cells, reply), now: Number(reply[1]) };
    },
    async settle(cells, deltaOf, now) {
      const keys = keysOf(cells);
      await guarded.run((client) =>
        client.tollgateRateSettle(keys.length, ...keys, clockArg(now), ...cellArgs(cells, deltaOf)),
      );
    },
  };
}

/** A cluster's admission: one ADMIT_LUA per scope, concurrently; when refused, the scopes that charged are released. */
async function admitAcrossSlots(
  cells: ReadonlyArray<GcraCell>,
  now: number | undefined,
  scripts: SlotScripts,
): Promise<Admission> {
  const cellsAt = (indexes: ReadonlyArray<number>): GcraCell[] => indexes.map((i) => cells[i] as GcraCell);
  const groups = await Promise.all(
    scopeGroups(cells).map(async (indexes) => ({ indexes, ...(await scripts.admit(cellsAt(indexes), now)) })),
  );
  const decided = decideGroupedAdmission(cells, groups);
  if (groups.some((group, g) => group.allowed !== decided.groupAllowed[g])) throw scriptDisagreement();
  if (!decided.admission.allowed) {
    const charged = groups.filter((group) => group.allowed);
    await Promise.all(charged.map((group) => scripts.settle(cellsAt(group.indexes), (cell) => -cell.cost, group.now)));
  }
  return decided.admission;
}

/**
 * Connects to Redis or a Redis Cluster (reconnecting on its own) and returns the RateLimiter over
 * it (contract: rate-limiter.ts). While Redis is unreachable or slower than the deadline
 * (`outage`, default 100 ms) calls reject with StateStoreUnavailableError within that deadline, and
 * at once while the circuit breaker is open (guarded-redis.ts).
 * @throws RangeError (from admit/settle) on a negative, non-integer or > 1e9 limit or token count.
 * @throws Error (at once) on a cluster when `keyPrefix` contains a brace
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const { guarded, prefix, cluster } = openRedisAdapter<ScriptedRedis>(options, 'rate limiter', { hashTagged: true });
  guarded.client.defineCommand('tollgateRateAdmit', { lua: ADMIT_LUA });
  guarded.client.defineCommand('tollgateRateSettle', { lua: SETTLE_LUA });
  const scripts = slotScriptsOf(guarded, prefix);

  return {
    async admit(scopes: ReadonlyArray<LimitScope>, tokens: number, now?: number): Promise<Admission> {
      const cells = admissionCells(scopes, tokens);
      if (cells.length === 0) return { allowed: true, retryAfterMs: 0, states: [] };
      if (cluster) return admitAcrossSlots(cells, now, scripts);
      const keys = cells.map((cell) => rateLimitKey(prefix, cell.scope, cell.kind));
      const reply = await guarded.run((client) =>
        client.tollgateRateAdmit(keys.length, ...keys, clockArg(now), ...cellArgs(cells, (cell) => cell.cost)),
      );
      const decision = decideAdmission(cells, storedTats(cells, reply), Number(reply[1]));
      if (decision.admission.allowed !== (Number(reply[0]) === 1)) throw scriptDisagreement();
      return decision.admission;
    },

    async settle(scopes: ReadonlyArray<LimitScope>, reserved: number, actual: number, now?: number): Promise<void> {
      assertLimitUnits(reserved, 'reserved tokens');
      assertLimitUnits(actual, 'actual tokens');
      const cells = admissionCells(scopes, 0).filter((cell) => cell.kind === 'tokens' && cell.limit > 0);
      if (cells.length === 0 || actual === reserved) return;
      if (!cluster) return scripts.settle(cells, () => actual - reserved, now);
      await Promise.all(
        scopeGroups(cells).map((indexes) =>
          scripts.settle(
            indexes.map((i) => cells[i] as GcraCell),
            () => actual - reserved,
            now,
          ),
        ),
      );
    },

    close: () => guarded.close(),
  };
}
