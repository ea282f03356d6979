/**
 * REDIS_CLUSTER_NODES (redis-connection.ts, open-adapters.ts): the seed-node forms accepted, the
 * errors for everything else (naming the variable and the entry, never a password), and the
 * refusal of REDIS_URL and REDIS_CLUSTER_NODES together or of a brace in a cluster's key prefix.
 */
import { describe, expect, it } from 'vitest';
import { engineSettingsFromEnv } from '../../../infra/open-adapters.ts';
import { createRedisStateStore } from '../../../infra/state-store/redis/redis-state-store.ts';
import { parseRedisClusterNodes } from '../../../infra/state-store/redis/redis-connection.ts';

describe('REDIS_CLUSTER_NODES', () => {
  it('takes host:port seeds, with credentials and TLS from redis[s]:// entries', () => {
    expect(parseRedisClusterNodes('10.0.0.1:7000, redis-1.internal:7001,[::1]:7002')).toEqual({
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: 'redis-1.internal', port: 7001 },
        { host: '::1', port: 7002 },
      ],
    });
    expect(parseRedisClusterNodes('rediss://app:p%40ss@r0:7001,r1:7002')).toEqual({
      nodes: [
        { host: 'r0', port: 7001 },
        { host: 'r1', port: 7002 },
      ],
      username: 'app',
      password: 'p@ss',
      tls: true,
    });
    expect(engineSettingsFromEnv({ REDIS_CLUSTER_NODES: 'a:1,b:2' }).redisCluster).toEqual({
      nodes: [
        { host: 'a', port: 1 },
        { host: 'b', port: 2 },
      ],
    });
  });

  it.each([
    ['', 'at least one host:port'],
    [' , ', 'at least one host:port'],
    ['redis-0', "entry 'redis-0': a port in 1..65535 is required"],
    ['r0:0', 'a port in 1..65535'],
    ['r0:70000', 'not host:port'],
    ['http://r0:1', 'scheme must be redis:// or rediss://'],
    ['redis://r0:1/2', 'only database 0'],
    ['redis://r0:1,rediss://r1:1', 'mixes redis:// and rediss://'],
    ['redis://u:a@r0:1,redis://u:b@r1:1', 'different credentials'],
  ])('refuses %j with a message naming the variable', (text, message) => {
    expect(() => parseRedisClusterNodes(text)).toThrow(message);
    expect(() => parseRedisClusterNodes(text)).toThrow('REDIS_CLUSTER_NODES');
  });

  it('never repeats a password in its error', () => {
    expect(() => parseRedisClusterNodes('redis://app:hunter2@r0/9')).toThrow(/'redis:\/\/\*\*\*@r0\/9'/);
    expect(() => parseRedisClusterNodes('redis://app:hunter2@r0/9')).not.toThrow(/hunter2/);
  });

  it('refuses REDIS_URL together with REDIS_CLUSTER_NODES, and a brace in a cluster key prefix', () => {
    expect(() => engineSettingsFromEnv({ REDIS_URL: 'redis://r:1', REDIS_CLUSTER_NODES: 'a:1' })).toThrow('not both');
    expect(() =>
      createRedisStateStore({ cluster: { nodes: [{ host: '127.0.0.1', port: 1 }] }, keyPrefix: 'app{1}:' }),
    ).toThrow('REDIS_KEY_PREFIX');
  });
});
