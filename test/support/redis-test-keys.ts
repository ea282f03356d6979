/**
 * A Redis namespace for one test file: registers beforeAll/afterAll hooks that connect to the
 * real Redis (REDIS_URL, see engines.ts) and delete every key under the file's random prefix
 * afterwards. Read `url` and `admin` inside tests (they are set once beforeAll ran). In a run
 * without engines (engines.ts) the hooks do nothing: the Redis suites skip themselves.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { requireEngineUrl, withoutEngines } from './engines.ts';

export interface RedisTestKeys {
  /** `tollgate-test:<label>:<uuid>:` — every key the file writes starts with it. */
  readonly prefix: string;
  /** The Redis URL (set in beforeAll). */
  url: string;
  /** A plain client for inspecting keys (set in beforeAll). */
  admin: Redis;
}

export function useRedisTestKeys(label: string): RedisTestKeys {
  const keys = { prefix: `tollgate-test:${label}:${randomUUID()}:`, url: '', admin: undefined as unknown as Redis };
  beforeAll(async () => {
    if (withoutEngines) return;
    keys.url = await requireEngineUrl('REDIS_URL');
    keys.admin = new Redis(keys.url);
  });
  afterAll(async () => {
    if (!keys.admin) return;
    const found = await keys.admin.keys(`${keys.prefix}*`);
    if (found.length > 0) await keys.admin.del(...found);
    await keys.admin.quit();
  });
  return keys;
}
