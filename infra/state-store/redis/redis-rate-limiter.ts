/**
 * The Redis rate limiter (used when REDIS_URL is set): GCRA per (scope, kind) as in
 * gcra-rate-limit.ts, every admission ONE Lua script over all its cells (all-or-nothing, atomic
 * across any number of gateway nodes sharing the Redis), settlements likewise.
 *
 * Key layout: `<prefix>rl:<scope>:<kind>` (kind `requests` | `tokens`) → string
 * `"<ms>:<r>:<limit>"`, the cell's TAT `ms + r/limit` (ms since epoch); PEXPIRE = until the TAT
 * has passed plus 60 000 ms (≤ ~2 minutes unless a settlement left usage debt). An absent key is
 * a fully replenished cell. A single Redis is assumed (keys are not hash-tagged for Cluster).
 *
 * Clock: with no `now` argument the script reads the Redis server clock (TIME), so every node
 * shares one clock; `now` (integer ms) is for tests.
 */
import type { Redis } from 'ioredis';
import { admissionCells, assertLimitUnits, decideAdmission, parseTat, type GcraCell } from '../../../schemas/state-store/gcra-rate-limit.ts';
import type { Admission, LimitScope, RateLimiter } from '../../../schemas/state-store/rate-limiter.ts';
import { openGuardedRedis, type RedisOutageSettings, type StateStoreLog } from './guarded-redis.ts';
import { ADMIT_LUA, SETTLE_LUA } from './redis-rate-limit-scripts.ts';

/** Options of the Redis limiter. `keyPrefix` (default `tollgate:`) starts every key. */
export interface RedisRateLimiterOptions {
  /** `redis://[user:password@]host:port[/db]`; never logged. */
  readonly url: string;
  readonly keyPrefix?: string;
  /** Deadline and circuit breaker while Redis is down (guarded-redis.ts; default: 100 ms, open after 3 failures for 1000 ms). */
  readonly outage?: RedisOutageSettings;
  /** Where the outage transitions are logged (once per transition). */
  readonly log?: StateStoreLog;
}

/** The scripts ioredis defines on the client (EVALSHA with a transparent EVAL fallback). */
interface ScriptedRedis extends Redis {
  tollgateRateAdmit(numKeys: number, ...args: string[]): Promise<Array<string | number>>;
  tollgateRateSettle(numKeys: number, ...args: string[]): Promise<number>;
}

/** The Redis key of one (scope, kind) cell. */
export function rateLimitKey(prefix: string, scope: string, kind: GcraCell['kind']): string {
  return `${prefix}rl:${scope}:${kind}`;
}

/** '' (server clock) or the integer ms a caller passed. */
function clockArg(now: number | undefined): string {
  return now === undefined ? '' : String(Math.floor(now));
}

/**
 * Connects to Redis (reconnecting on its own) and returns the RateLimiter over it (contract:
 * rate-limiter.ts). While Redis is unreachable or slower than the deadline (`outage`, default
 * 100 ms) calls reject with StateStoreUnavailableError within that deadline, and at once while the
 * circuit breaker is open (guarded-redis.ts).
 * @throws RangeError (from admit/settle) on a negative, non-integer or > 1e9 limit or token count.
 */
export function createRedisRateLimiter(options: RedisRateLimiterOptions): RateLimiter {
  const prefix = options.keyPrefix ?? 'tollgate:';
  const guarded = openGuardedRedis<ScriptedRedis>({ url: options.url, role: 'rate limiter', ...(options.outage ? { outage: options.outage } : {}), ...(options.log ? { log: options.log } : {}) });
  const redis = guarded.client;
  redis.defineCommand('tollgateRateAdmit', { lua: ADMIT_LUA });
  redis.defineCommand('tollgateRateSettle', { lua: SETTLE_LUA });

  return {
    async admit(scopes: ReadonlyArray<LimitScope>, tokens: number, now?: number): Promise<Admission> {
      const cells = admissionCells(scopes, tokens);
      if (cells.length === 0) return { allowed: true, retryAfterMs: 0, states: [] };
      const keys = cells.map((cell) => rateLimitKey(prefix, cell.scope, cell.kind));
      const args = cells.flatMap((cell) => [String(cell.limit), String(cell.cost)]);
      const reply = await guarded.run((client) => client.tollgateRateAdmit(keys.length, ...keys, clockArg(now), ...args));
      const scriptNow = Number(reply[1]);
      const stored = cells.map((cell, i) => parseTat(String(reply[i + 2] ?? ''), cell.limit));
      const decision = decideAdmission(cells, stored, scriptNow);
      if (decision.admission.allowed !== (Number(reply[0]) === 1)) {
        throw new Error('rate limiter: the Lua script and gcra-rate-limit.ts disagree (keep redis-rate-limit-scripts.ts in step)');
      }
      return decision.admission;
    },

    async settle(scopes: ReadonlyArray<LimitScope>, reserved: number, actual: number, now?: number): Promise<void> {
      assertLimitUnits(reserved, 'reserved tokens');
      assertLimitUnits(actual, 'actual tokens');
      const cells = admissionCells(scopes, 0).filter((cell) => cell.kind === 'tokens' && cell.limit > 0);
      if (cells.length === 0 || actual === reserved) return;
      const keys = cells.map((cell) => rateLimitKey(prefix, cell.scope, cell.kind));
      const args = cells.flatMap((cell) => [String(cell.limit), String(actual - reserved)]);
      await guarded.run((client) => client.tollgateRateSettle(keys.length, ...keys, clockArg(now), ...args));
    },

    close: () => guarded.close(),
  };
}
