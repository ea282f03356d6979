/**
 * `npm run infra:redis-cluster [-- --masters 3]`: starts a local Redis Cluster
 * (start-redis-cluster.ts) on free loopback ports, prints the line to export
 * (`REDIS_CLUSTER_NODES=127.0.0.1:…,…`) and the nodes' PIDs, and runs until SIGINT or SIGTERM,
 * then stops the nodes it started and deletes their directory. Exit codes: 0 stopped, 1 start-up
 * failed, 2 usage error.
 */
import { parseArgs } from 'node:util';
import { startRedisCluster } from './start-redis-cluster.ts';

let masters: number;
try {
  const { values } = parseArgs({ options: { masters: { type: 'string', default: '3' } }, strict: true });
  masters = Number(values.masters);
  if (!Number.isInteger(masters) || masters < 3)
    throw new Error(`--masters must be an integer of at least 3, got '${values.masters}'`);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\nusage: redis-cluster-cli.ts [--masters <n ≥ 3>]\n`);
  process.exit(2);
}

try {
  const cluster = await startRedisCluster({ masters });
  process.stdout.write(
    `REDIS_CLUSTER_NODES=${cluster.seedNodes}\n# redis-server PIDs ${cluster.pids.join(' ')}, files in ${cluster.dir}; Ctrl-C stops them\n`,
  );
  const stop = (): void => void cluster.stop().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
} catch (error) {
  process.stderr.write(`${(error as Error).message}\n`);
  process.exit(1);
}
