/**
 * The command line of a throwaway `redis-server`, shared by the local engines (services.ts) and the
 * test Redis Cluster (redis-cluster/start-redis-cluster.ts): in the foreground, with neither RDB
 * snapshots (`save ""`) nor the append-only file (https://redis.io/docs/latest/operate/oss_and_stack/management/persistence/).
 */

/** `redis-server` arguments: listen on `bind`:`port`, keep its files in `dir`, persist nothing, stay in the foreground. */
export function ephemeralRedisServerArgs(bind: string, port: number, dir: string): string[] {
  return [
    '--port',
    String(port),
    '--bind',
    bind,
    '--save',
    '',
    '--appendonly',
    'no',
    '--daemonize',
    'no',
    '--dir',
    dir,
  ];
}
