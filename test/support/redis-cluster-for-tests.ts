/**
 * A 3-master Redis Cluster for one test file, started by infra/redis-cluster/start-redis-cluster.ts
 * on free ports. It needs only `redis-server` and `redis-cli` (no shared engines): without them the
 * file's cluster suites are skipped under a title naming the install line, except with CI=true,
 * where the file fails instead.
 *
 * Use: `describe.skipIf(redisClusterSkipReason !== undefined)(…, () => { const cluster = useRedisCluster(); … })`;
 * read `cluster.settings` and `cluster.admin` inside tests (set once beforeAll ran).
 */
import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import {
  assertRedisClusterTools,
  startRedisCluster,
  type RunningRedisCluster,
} from '../../infra/redis-cluster/start-redis-cluster.ts';
import type { RedisClusterSettings } from '../../infra/state-store/redis/redis-connection.ts';

/** Why the cluster suites cannot run here (the binaries are missing), or undefined when they can. @throws Error with CI=true instead of skipping */
export const redisClusterSkipReason: string | undefined = (() => {
  try {
    assertRedisClusterTools();
    return undefined;
  } catch (error) {
    const missing = (error as Error).message;
    if (process.env.CI === 'true') throw new Error(`Redis Cluster suites cannot run with CI=true: ${missing}`);
    const reason = `Redis Cluster suites skipped: ${missing}`;
    console.warn(reason);
    return reason;
  }
})();

/** The running cluster of a test file. */
export interface RedisClusterForTests {
  /** For the adapters' `cluster` option. */
  settings: RedisClusterSettings;
  /** REDIS_CLUSTER_NODES of the cluster (`127.0.0.1:<port>,…`). */
  seedNodes: string;
  /** A plain cluster client for inspecting keys. */
  admin: Cluster;
  /** `tollgate-test:<label>:<uuid>:`, a prefix for the file's keys. */
  readonly prefix: string;
}

/** Starts the cluster before the enclosing suite's tests (up to 60 000 ms) and stops its processes after them. */
export function useRedisCluster(label: string): RedisClusterForTests {
  let running: RunningRedisCluster | undefined;
  const handle = { prefix: `tollgate-test:${label}:${randomUUID()}:` } as RedisClusterForTests;
  beforeAll(async () => {
    running = await startRedisCluster();
    handle.settings = { nodes: running.nodes };
    handle.seedNodes = running.seedNodes;
    handle.admin = new Cluster(running.nodes.map((node) => ({ host: node.host, port: node.port })));
    await handle.admin.ping();
  }, 60_000);
  afterAll(async () => {
    await handle.admin?.quit().catch(() => undefined);
    await running?.stop();
  }, 30_000);
  return handle;
}
