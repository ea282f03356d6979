/**
 * The Redis footprint of one pipeline benchmark run: every key under the run's key prefix
 * (`SCAN MATCH <prefix>*`) with `MEMORY USAGE <key> SAMPLES 0` summed over them (exact for
 * aggregates; counts the key name, the value and its main-dictionary entry, not the entry of a
 * TTL in the expires dictionary nor allocator fragmentation). The run's prefix isolates its keys
 * from everything else on the server, so other users of the same Redis do not skew the figure
 * (INFO used_memory would include them).
 *
 * Also reads two progress marks of the consumers that write there, so a caller can wait until
 * they are done: the sum of the key spend counters `spend:{key:<id>}` (billing) and the newest
 * `lastAt` of the `health:{<channel>}:state` hashes (health), and single counters by key name (e.g. one key's spend while
 * a backlog drains). Key layout: schemas/state-store/REDIS-KEYS.md.
 */
import { Redis } from 'ioredis';

/** Keys and bytes of one kind of key. */
export interface RedisKindFootprint {
  readonly keys: number;
  /** Sum of MEMORY USAGE, bytes. */
  readonly bytes: number;
}

/** The run's keys at one moment. */
export interface RedisFootprint {
  /** Keys matching `<prefix>*`. */
  readonly keys: number;
  /** Sum of `MEMORY USAGE <key> SAMPLES 0` over them, bytes. */
  readonly bytes: number;
  /** Per kind (redisKeyKind), e.g. `spend:key`, `spend:key:applied`, `health:ok`. */
  readonly byKind: Readonly<Record<string, RedisKindFootprint>>;
  /** Sum of the key spend counters (kind `spend:key`), nano-USD as a decimal string ('0' when none). */
  readonly spendNanoUsd: string;
  /** Newest `lastAt` over the health state hashes (kind `health:state`), ms since epoch (0 when none). */
  readonly healthLastAtMs: number;
}

/** Reads the footprint of one key prefix; `close` ends the connection. */
export interface RedisFootprintReader {
  /** Scans the prefix once. @throws the Redis error when a command fails */
  read(): Promise<RedisFootprint>;
  /**
   * Reads until two readings `quietMs` (default 1000 ms) apart are equal (keys, bytes, spend,
   * health lastAt) and returns the later one. @throws Error when none are after `timeoutMs`
   */
  settle(timeoutMs: number, quietMs?: number): Promise<RedisFootprint>;
  /** Full names of the keys of `kind` (redisKeyKind) under the prefix (e.g. `spend:key` → every `<prefix>spend:{key:<id>}`), sorted. */
  keysOfKind(kind: string): Promise<string[]>;
  /** Sum of the integer counters `keys` (full names; absent keys count 0), as a decimal string — nano-USD for `spend:*` keys. */
  sumCounters(keys: ReadonlyArray<string>): Promise<string>;
  close(): Promise<void>;
}

const SCAN_COUNT = 1000;

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The kind of `key` under `prefix` (REDIS-KEYS.md): for a hash-tagged key its namespace, the
 * entity kind of a spend tag (`key`, `user`) and the part after the tag, e.g. `spend:key`,
 * `spend:user:applied`, `health:ok`, `rl:tokens`; otherwise its first two segments
 * (`console:session`, `response:<keyId>`, `layout`).
 */
export function redisKeyKind(prefix: string, key: string): string {
  const rest = key.slice(prefix.length);
  const tagged = /^([^:{]+):\{(?:(key|user):)?/.exec(rest);
  if (!tagged) return rest.split(':').slice(0, 2).join(':');
  return [tagged[1], tagged[2], /\}:([a-z]+)$/.exec(rest)?.[1]].filter(Boolean).join(':');
}

const sameFootprint = (a: RedisFootprint, b: RedisFootprint): boolean =>
  a.keys === b.keys &&
  a.bytes === b.bytes &&
  a.spendNanoUsd === b.spendNanoUsd &&
  a.healthLastAtMs === b.healthLastAtMs;

/** Per-kind differences `after − before`, scaled by `scale` (e.g. 1000 / requests); kinds present in either. */
export function footprintDelta(
  before: RedisFootprint,
  after: RedisFootprint,
  scale: number,
): Record<string, RedisKindFootprint> {
  const kinds = [...new Set([...Object.keys(before.byKind), ...Object.keys(after.byKind)])].sort();
  const delta: Record<string, RedisKindFootprint> = {};
  for (const kind of kinds) {
    const b = before.byKind[kind] ?? { keys: 0, bytes: 0 };
    const a = after.byKind[kind] ?? { keys: 0, bytes: 0 };
    delta[kind] = { keys: (a.keys - b.keys) * scale, bytes: (a.bytes - b.bytes) * scale };
  }
  return delta;
}

async function readOnce(redis: Redis, prefix: string): Promise<RedisFootprint> {
  const byKind: Record<string, { keys: number; bytes: number }> = {};
  let keys = 0;
  let bytes = 0;
  let spend = 0n;
  let healthLastAtMs = 0;
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', SCAN_COUNT);
    cursor = next;
    if (batch.length === 0) continue;
    const pipeline = redis.pipeline();
    for (const key of batch) {
      pipeline.memory('USAGE', key, 'SAMPLES', 0);
      const kind = redisKeyKind(prefix, key);
      if (kind === 'spend:key') pipeline.get(key);
      else if (kind === 'health:state') pipeline.hget(key, 'lastAt');
    }
    const replies = (await pipeline.exec()) ?? [];
    let reply = 0;
    for (const key of batch) {
      const [usageError, usage] = replies[reply++] ?? [null, null];
      if (usageError) throw usageError;
      const kind = redisKeyKind(prefix, key);
      let mark: unknown = null;
      if (kind === 'spend:key' || kind === 'health:state') {
        const [markError, value] = replies[reply++] ?? [null, null];
        if (markError) throw markError;
        mark = value;
      }
      if (typeof usage !== 'number') continue; // expired or deleted between SCAN and MEMORY USAGE
      keys += 1;
      bytes += usage;
      const tally = (byKind[kind] ??= { keys: 0, bytes: 0 });
      tally.keys += 1;
      tally.bytes += usage;
      if (typeof mark === 'string' && kind === 'spend:key') spend += BigInt(mark);
      if (typeof mark === 'string' && kind === 'health:state') healthLastAtMs = Math.max(healthLastAtMs, Number(mark));
    }
  } while (cursor !== '0');
  return { keys, bytes, byKind, spendNanoUsd: spend.toString(), healthLastAtMs };
}

/**
 * Connects to `redisUrl` and reads the keys under `prefix` (non-empty: an empty prefix would
 * measure the whole server). @throws Error for an empty prefix or when Redis cannot be reached
 */
export async function openRedisFootprint(redisUrl: string, prefix: string): Promise<RedisFootprintReader> {
  if (prefix === '') throw new Error('redis footprint: a key prefix is required');
  const redis = new Redis(redisUrl, { lazyConnect: true, maxRetriesPerRequest: 2 });
  await redis.connect();
  const read = (): Promise<RedisFootprint> => readOnce(redis, prefix);
  return {
    read,
    async settle(timeoutMs, quietMs = 1000) {
      const deadline = Date.now() + timeoutMs;
      let previous = await read();
      for (;;) {
        await sleep(quietMs);
        const current = await read();
        if (sameFootprint(previous, current)) return current;
        if (Date.now() > deadline)
          throw new Error(
            `Redis keys under ${prefix} still changing after ${timeoutMs / 1000} s (${current.keys} keys, ${current.bytes} bytes)`,
          );
        previous = current;
      }
    },
    async keysOfKind(kind) {
      const found: string[] = [];
      let cursor = '0';
      do {
        const [next, batch] = await redis.scan(
          cursor,
          'MATCH',
          `${prefix}${kind.split(':')[0]}:*`,
          'COUNT',
          SCAN_COUNT,
        );
        cursor = next;
        found.push(...batch.filter((key) => redisKeyKind(prefix, key) === kind));
      } while (cursor !== '0');
      return [...new Set(found)].sort();
    },
    async sumCounters(keys) {
      if (keys.length === 0) return '0';
      const values = await redis.mget(...keys);
      return values.reduce((sum, value) => sum + BigInt(value ?? '0'), 0n).toString();
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
