/**
 * Moves a single Redis's state-store keys from the untagged layout (one watermark per kind and
 * partition, `<p>applied:<kind>:<topic>:<partition>`; counters `<p>spend:key:<id>`,
 * `<p>spend:user:<id>`; health `<p>health:<state|ok|fail>:<channelId>`) to the hash-tagged layout
 * of REDIS-KEYS.md, where every counter and channel keeps its own watermarks.
 *
 * Exact: a partition's old watermark W means every record at or below W was applied to every
 * counter and channel it touched, and no record above W to any. So each migrated counter or
 * channel gets W as its watermark of that partition; one that has no old key was touched by no
 * record at or below W (counters never expire), so its absent watermark is right too.
 *
 * Each entity moves in one script (value and watermarks together, the old key deleted in the same
 * step), so processes migrating at once, or a migration interrupted and run again, count nothing
 * twice. The old watermarks are deleted last and the version marker set, after which opening the
 * store costs one GET. Single Redis only (the scripts span slots): the untagged layout never ran
 * on a cluster.
 */
import type { Redis } from 'ioredis';
import type { GuardedRedis, StateStoreLog } from './guarded-redis.ts';
import type { RedisStateKeys } from './redis-state-keys.ts';

/** Deadline of the one-time migration, ms. */
const MIGRATION_TIMEOUT_MS = 300_000;

/** The version the marker holds once the layout is hash-tagged. */
export const TAGGED_LAYOUT_VERSION = '2';

/** Keys asked per SCAN step (https://redis.io/docs/latest/commands/scan/, "The COUNT option"). */
const SCAN_COUNT = 1000;

/** KEYS: old counter, new counter, new applied hash. ARGV: pairs (partition field, old watermark). */
const MIGRATE_COUNTER_LUA = `
local value = redis.call('GET', KEYS[1])
if not value then return 0 end
redis.call('INCRBY', KEYS[2], value)
for i = 1, #ARGV, 2 do
  local mark = redis.call('HGET', KEYS[3], ARGV[i])
  if not mark or tonumber(mark) < tonumber(ARGV[i + 1]) then redis.call('HSET', KEYS[3], ARGV[i], ARGV[i + 1]) end
end
redis.call('DEL', KEYS[1])
return 1
`;

/** KEYS: old state, ok, fail; new state, ok, fail; new applied hash. ARGV as above. RENAME keeps each TTL. */
const MIGRATE_CHANNEL_LUA = `
local moved = 0
for i = 1, 3 do
  if redis.call('EXISTS', KEYS[i]) == 1 then
    redis.call('RENAME', KEYS[i], KEYS[i + 3])
    moved = 1
  end
end
if moved == 0 then return 0 end
for i = 1, #ARGV, 2 do
  local mark = redis.call('HGET', KEYS[7], ARGV[i])
  if not mark or tonumber(mark) < tonumber(ARGV[i + 1]) then redis.call('HSET', KEYS[7], ARGV[i], ARGV[i + 1]) end
end
return 1
`;

/** What a migration moved. */
export interface UntaggedLayoutMigration {
  /** Spend counters moved (keys and users). */
  readonly counters: number;
  /** Channels whose health moved. */
  readonly channels: number;
  /** Old partition watermarks deleted. */
  readonly watermarks: number;
}

/** `text` with the glob characters of MATCH escaped (https://redis.io/docs/latest/commands/keys/). */
function globLiteral(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/** Every key matching `<prefix><namespace>*`, one SCAN batch at a time. */
async function* scanNamespace(client: Redis, prefix: string, namespace: string): AsyncGenerator<string[]> {
  for await (const batch of client.scanStream({ match: `${globLiteral(prefix + namespace)}*`, count: SCAN_COUNT }))
    yield batch as string[];
}

/** The old watermarks: their key names, and per kind the (field, offset) pairs the scripts take. */
async function readOldWatermarks(
  client: Redis,
  prefix: string,
): Promise<{ names: string[]; spend: string[]; health: string[] }> {
  const found = { names: [] as string[], spend: [] as string[], health: [] as string[] };
  for await (const batch of scanNamespace(client, prefix, 'applied:')) {
    if (batch.length === 0) continue;
    const offsets = await client.mget(...batch);
    batch.forEach((name, i) => {
      const match = /^(spend|health):(.+:\d+)$/.exec(name.slice(prefix.length + 'applied:'.length));
      const offset = offsets[i];
      if (!match || offset === null || offset === undefined) return;
      found.names.push(name);
      found[match[1] as 'spend' | 'health'].push(match[2] as string, offset);
    });
  }
  return found;
}

/**
 * Migrates the untagged layout under `prefix` unless the version marker says it is done, then sets
 * the marker. Safe to run from several processes at once and to run again after an interruption.
 * @throws whatever a command rejects with (the marker is then not set: the next open resumes)
 */
export async function migrateUntaggedStateLayout(
  client: Redis,
  prefix: string,
  keys: RedisStateKeys,
): Promise<UntaggedLayoutMigration> {
  if ((await client.get(keys.layoutVersion)) === TAGGED_LAYOUT_VERSION)
    return { counters: 0, channels: 0, watermarks: 0 };
  const watermarks = await readOldWatermarks(client, prefix);
  let counters = 0;
  for (const [namespace, counter, applied] of [
    ['spend:key:', keys.keySpend, keys.keySpendApplied],
    ['spend:user:', keys.userSpend, keys.userSpendApplied],
  ] as const) {
    for await (const batch of scanNamespace(client, prefix, namespace)) {
      const ids = batch.map((name) => name.slice(prefix.length + namespace.length));
      const moved = await Promise.all(
        ids.map((id) =>
          client.eval(
            MIGRATE_COUNTER_LUA,
            3,
            `${prefix}${namespace}${id}`,
            counter(id),
            applied(id),
            ...watermarks.spend,
          ),
        ),
      );
      counters += moved.filter((one) => one === 1).length;
    }
  }
  const channelIds = new Set<string>();
  for (const namespace of ['health:state:', 'health:ok:', 'health:fail:']) {
    for await (const batch of scanNamespace(client, prefix, namespace))
      for (const name of batch) channelIds.add(name.slice(prefix.length + namespace.length));
  }
  let channels = 0;
  for (const id of channelIds) {
    const old = ['state', 'ok', 'fail'].map((kind) => `${prefix}health:${kind}:${id}`);
    const moved = await client.eval(
      MIGRATE_CHANNEL_LUA,
      7,
      ...old,
      keys.healthState(id),
      keys.healthOk(id),
      keys.healthFail(id),
      keys.healthApplied(id),
      ...watermarks.health,
    );
    if (moved === 1) channels += 1;
  }
  if (watermarks.names.length > 0) await client.del(...watermarks.names);
  await client.set(keys.layoutVersion, TAGGED_LAYOUT_VERSION);
  return { counters, channels, watermarks: watermarks.names.length };
}

/**
 * The gate every call of a single Redis's state store passes first: returns undefined once the
 * layout is current, else the shared promise of the check (the marker GET, under the request-path
 * deadline) and, when the marker is missing, of the migration (up to 300 000 ms), logged when it
 * moved anything. A failed check or migration is tried again by the next call.
 */
export function untaggedLayoutGate(
  guarded: GuardedRedis,
  prefix: string,
  keys: RedisStateKeys,
  log?: StateStoreLog,
): () => Promise<void> | undefined {
  let ready = false;
  let pending: Promise<void> | undefined;
  const migrateOnce = async (): Promise<void> => {
    if ((await guarded.run((client) => client.get(keys.layoutVersion))) !== TAGGED_LAYOUT_VERSION) {
      const moved = await guarded.run(
        (client) => migrateUntaggedStateLayout(client as Redis, prefix, keys),
        MIGRATION_TIMEOUT_MS,
      );
      if (moved.counters + moved.channels + moved.watermarks > 0)
        log?.('info', 'state store (Redis): migrated the untagged key layout', { ...moved });
    }
    ready = true;
  };
  return () => {
    if (ready) return undefined;
    return (pending ??= migrateOnce().catch((error: unknown) => {
      pending = undefined;
      throw error;
    }));
  };
}
