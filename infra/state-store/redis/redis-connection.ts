/**
 * Where the Redis adapters connect: one Redis (`REDIS_URL`, an ioredis `Redis`) or a Redis Cluster
 * (`REDIS_CLUSTER_NODES`, an ioredis `Cluster`, https://github.com/redis/ioredis#cluster), and the
 * parsing of the cluster's seed-node list. Every adapter takes a RedisEndpoint and opens its client
 * through guarded-redis.ts, so the same code serves both deployments.
 */
import type { Cluster, ClusterOptions, Redis, RedisOptions } from 'ioredis';
import { engineClientLibrary } from '../../engine-client-libraries.ts';

/** The seed nodes of a Redis Cluster and the credentials every node shares. */
export interface RedisClusterSettings {
  /** At least one node of the cluster; the client discovers the others (CLUSTER SLOTS). */
  readonly nodes: ReadonlyArray<{ readonly host: string; readonly port: number }>;
  /** ACL user (Redis 6+), when the nodes require one; never logged. */
  readonly username?: string;
  /** Password of the nodes (AUTH); never logged. */
  readonly password?: string;
  /** True for `rediss://` seed nodes: every connection uses TLS. */
  readonly tls?: boolean;
}

/** Which Redis an adapter uses: exactly one of `url` (one Redis) and `cluster`. */
export interface RedisEndpoint {
  /** `redis://[user:password@]host:port[/db]` or `rediss://…`; never logged. */
  readonly url?: string;
  /** A Redis Cluster instead of `url`. */
  readonly cluster?: RedisClusterSettings;
}

/** Only the endpoint fields of `options` (adapter options carry more), for openGuardedRedis. */
export function redisEndpointOf(options: RedisEndpoint): RedisEndpoint {
  if (options.cluster) return { cluster: options.cluster };
  return options.url === undefined ? {} : { url: options.url };
}

/** A client of either deployment: both expose the same commands and `defineCommand`. */
export type RedisClient = Redis | Cluster;

/** The text of REDIS_CLUSTER_NODES with every password replaced, for error messages. */
function withoutSecrets(entry: string): string {
  return entry.replace(/\/\/([^@/]*)@/, '//***@');
}

/** One seed node: `host:port`, `[ipv6]:port`, or `redis[s]://[user[:password]@]host:port`; `scheme` only when the entry names one. */
function parseSeedNode(entry: string): {
  host: string;
  port: number;
  scheme: string | undefined;
  username: string;
  password: string;
} {
  const explicitScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(entry);
  const withScheme = explicitScheme ? entry : `redis://${entry}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new Error(`not host:port or redis://host:port`);
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:')
    throw new Error(`scheme must be redis:// or rediss://, got ${url.protocol}//`);
  if (!url.hostname) throw new Error('no host');
  const port = Number(url.port);
  if (!url.port || !Number.isInteger(port) || port < 1 || port > 65_535)
    throw new Error('a port in 1..65535 is required');
  if (url.pathname !== '' && url.pathname !== '/' && url.pathname !== '/0')
    throw new Error('a cluster has only database 0: no /<db> path');
  if (url.search || url.hash) throw new Error('no ?query or #fragment');
  return {
    host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
    port,
    scheme: explicitScheme ? url.protocol : undefined,
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
  };
}

/**
 * Parses REDIS_CLUSTER_NODES: comma-separated seed nodes, each `host:port` or
 * `redis://[user[:password]@]host:port` (`rediss://` for TLS); credentials and scheme, when
 * given, must be the same on every entry that carries them.
 * Example: `10.0.0.1:7000,10.0.0.2:7000` or `rediss://default:s3cret@redis-0.internal:6379`.
 * @throws Error naming REDIS_CLUSTER_NODES and the offending entry (password masked) on any other text
 */
export function parseRedisClusterNodes(text: string): RedisClusterSettings {
  const entries = text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  if (entries.length === 0)
    throw new Error('REDIS_CLUSTER_NODES must list at least one host:port seed node of the cluster');
  const nodes: Array<{ host: string; port: number }> = [];
  let scheme: string | undefined;
  let username = '';
  let password = '';
  for (const entry of entries) {
    let node: ReturnType<typeof parseSeedNode>;
    try {
      node = parseSeedNode(entry);
    } catch (error) {
      throw new Error(
        `REDIS_CLUSTER_NODES entry '${withoutSecrets(entry)}': ${(error as Error).message} (expected host:port or redis[s]://[user:password@]host:port, comma-separated)`,
      );
    }
    if (node.scheme !== undefined && scheme !== undefined && scheme !== node.scheme)
      throw new Error('REDIS_CLUSTER_NODES mixes redis:// and rediss:// entries: use one scheme for every node');
    scheme ??= node.scheme;
    if (
      (node.username && username && node.username !== username) ||
      (node.password && password && node.password !== password)
    )
      throw new Error(
        'REDIS_CLUSTER_NODES entries carry different credentials: every node of a cluster takes the same user and password',
      );
    username ||= node.username;
    password ||= node.password;
    nodes.push({ host: node.host, port: node.port });
  }
  return {
    nodes,
    ...(username ? { username } : {}),
    ...(password ? { password } : {}),
    ...(scheme === 'rediss:' ? { tls: true } : {}),
  };
}

/** The connection behaviour guarded-redis.ts asks of every client (fail fast, reconnect on its own). */
export interface RedisClientBehaviour {
  readonly socketTimeoutMs: number;
  /** Delay before reconnection attempt `attempt` (1-based), ms. */
  readonly reconnectDelayMs: (attempt: number) => number;
}

/**
 * Opens the client of `endpoint`: a Redis for `url`, a Cluster for `cluster`. Concurrent commands
 * to one node are pipelined on its connection (sent without waiting for earlier replies); ioredis'
 * auto-pipelining stays off, because it files a script call under the slot of its first argument
 * (the key count) rather than of its first key. Neither queues commands while disconnected (`enableOfflineQueue: false`) nor resends them after a drop (`maxRetriesPerRequest: 0`).
 * @throws TypeError unless exactly one of `url` and `cluster` is set
 */
export function createRedisClient(endpoint: RedisEndpoint, behaviour: RedisClientBehaviour): RedisClient {
  if ((endpoint.url === undefined) === (endpoint.cluster === undefined))
    throw new TypeError('a Redis adapter needs exactly one of url (one Redis) and cluster (Redis Cluster)');
  const nodeOptions: RedisOptions = { maxRetriesPerRequest: 0, socketTimeout: behaviour.socketTimeoutMs };
  if (endpoint.url !== undefined)
    return new (engineClientLibrary('ioredis').Redis)(endpoint.url, {
      ...nodeOptions,
      enableOfflineQueue: false,
      retryStrategy: behaviour.reconnectDelayMs,
    });
  const cluster = endpoint.cluster as RedisClusterSettings;
  if (cluster.nodes.length === 0) throw new TypeError('a Redis Cluster needs at least one seed node');
  const options: ClusterOptions = {
    enableOfflineQueue: false,
    clusterRetryStrategy: behaviour.reconnectDelayMs,
    redisOptions: {
      ...nodeOptions,
      ...(cluster.username ? { username: cluster.username } : {}),
      ...(cluster.password ? { password: cluster.password } : {}),
      ...(cluster.tls ? { tls: {} } : {}),
    },
  };
  return new (engineClientLibrary('ioredis').Cluster)(
    cluster.nodes.map((node) => ({ host: node.host, port: node.port })),
    options,
  );
}

/** True for a Redis Cluster client. */
export function isClusterClient(client: RedisClient): client is Cluster {
  return client instanceof engineClientLibrary('ioredis').Cluster;
}

/**
 * Throws when `prefix` contains `{` or `}`: on a cluster the key prefix comes before every key's
 * hash tag, and a brace in it would make the prefix the tag of every key (one hot slot).
 * @throws Error naming REDIS_KEY_PREFIX
 */
export function assertClusterKeyPrefix(prefix: string): void {
  if (/[{}]/.test(prefix))
    throw new Error(
      `REDIS_KEY_PREFIX must not contain '{' or '}' on a Redis Cluster (it would become every key's hash tag), got '${prefix}'`,
    );
}
