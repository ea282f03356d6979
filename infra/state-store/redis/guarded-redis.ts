/**
 * One ioredis client that fails fast while Redis is down, used by every Redis adapter (limiter,
 * spend and health, sessions, stored responses):
 *
 * - no offline queue (`enableOfflineQueue: false`): a command sent while the connection is down
 *   rejects at once instead of waiting for a reconnect (https://github.com/redis/ioredis, README
 *   sections "Offline Queue" and "Auto-reconnect"); `maxRetriesPerRequest: 0` fails commands in
 *   flight when the connection drops instead of resending them later;
 * - a deadline per command (`run(command, timeoutMs)`): a Redis that accepts connections but does
 *   not answer (hung, overloaded, network black hole) costs at most the deadline, and ioredis'
 *   `socketTimeout` drops such a connection so that it reconnects;
 * - a circuit breaker (cockatiel's ConsecutiveBreaker, https://github.com/connor4312/cockatiel,
 *   sections "circuitBreaker(policy, { halfOpenAfter, breaker })" and "ConsecutiveBreaker"):
 *   after `failureThreshold` consecutive outage failures no command is tried for `halfOpenAfterMs`,
 *   then one trial command decides whether to close or stay open. While open, calls reject in
 *   microseconds; while the trial runs, other calls wait for it (at most its deadline).
 *
 * Every outage failure rejects with StateStoreUnavailableError (schemas/state-store); other
 * rejections (a script's own error, a refused input) pass through unchanged and do not count.
 * The transitions are logged once each: `warn` when the client's breaker first opens, `info`
 * when it closes again — never per command.
 */
import { BrokenCircuitError, circuitBreaker, CircuitState, ConsecutiveBreaker, handleWhen } from 'cockatiel';
import { engineClientLibrary } from '../../engine-client-libraries.ts';
import {
  assertClusterKeyPrefix,
  createRedisClient,
  isClusterClient,
  redisEndpointOf,
  type RedisClient,
  type RedisEndpoint,
} from './redis-connection.ts';
import { StateStoreUnavailableError } from '../../../schemas/state-store/state-store-unavailable.ts';

/** Log sink of the adapters (EngineSettings.log). */
export type StateStoreLog = (
  level: 'debug' | 'info' | 'warn' | 'error',
  message: string,
  extra?: Record<string, unknown>,
) => void;

/** How a Redis client behaves while Redis is down. Times in ms. */
export interface RedisOutageSettings {
  /** Deadline of a command on the request path, ms (default 100). */
  readonly commandTimeoutMs?: number;
  /** Consecutive outage failures that open the breaker (default 3). */
  readonly failureThreshold?: number;
  /** How long the open breaker refuses every command before one trial, ms (default 1000). */
  readonly halfOpenAfterMs?: number;
}

/** Defaults of RedisOutageSettings. */
export const DEFAULT_REDIS_OUTAGE_SETTINGS: Required<RedisOutageSettings> = {
  commandTimeoutMs: 100,
  failureThreshold: 3,
  halfOpenAfterMs: 1000,
};

/** Longest silence on a connection with commands pending before ioredis drops it and reconnects, ms. */
const SOCKET_TIMEOUT_MS = 5000;
/** Longest wait between reconnection attempts, ms (ioredis default: 2000). */
const MAX_RECONNECT_DELAY_MS = 500;

/** Options of openGuardedRedis: the endpoint (one Redis `url`, or a `cluster`) and the behaviour while it is down. */
export interface GuardedRedisOptions extends RedisEndpoint {
  /** What the client serves, in messages and log lines (e.g. `rate limiter`). */
  readonly role: string;
  readonly outage?: RedisOutageSettings;
  readonly log?: StateStoreLog;
}

/** A Redis client whose commands run under a deadline and a circuit breaker. */
export interface GuardedRedis<R extends RedisClient = RedisClient> {
  /** The client, for defineCommand; send commands through `run`. */
  readonly client: R;
  /** The request-path deadline of this client, ms. */
  readonly commandTimeoutMs: number;
  /**
   * Runs `command` on the client within `timeoutMs` (default: the request-path deadline).
   * @throws StateStoreUnavailableError when Redis is unreachable, too slow or the breaker is open
   * @throws whatever `command` rejects with otherwise (e.g. a script's ReplyError)
   */
  run<T>(command: (client: R) => Promise<T>, timeoutMs?: number): Promise<T>;
  /** True while the breaker is closed (Redis answered the last commands). */
  isAvailable(): boolean;
  /** Quits the connection (disconnects when QUIT cannot be sent). */
  close(): Promise<void>;
}

/** A rejection raised inside `run` when the deadline passes. */
class CommandDeadlineError extends Error {}

/** Longest wait of the first commands for the client's first connection, ms (start-up only). */
const FIRST_CONNECTION_TIMEOUT_MS = 2000;

/** `work`, or a CommandDeadlineError after `timeoutMs` (the work is not cancelled: its late answer is ignored). */
async function withDeadline<T>(work: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new CommandDeadlineError(`no answer within ${timeoutMs} ms`)), timeoutMs);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Reply errors that mean "the server cannot serve now" rather than "your command is wrong". */
const UNAVAILABLE_REPLIES = /^(LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN)\b/;

/** Whether a rejection is an outage (counts for the breaker) rather than an answer. */
function isOutageFailure(error: Error): boolean {
  if (error instanceof RangeError || error instanceof TypeError) return false;
  if (error instanceof engineClientLibrary('ioredis').ReplyError) return UNAVAILABLE_REPLIES.test(error.message);
  return true;
}

/**
 * Connects to `options.url` or `options.cluster` (redis-connection.ts; reconnecting on its own, at
 * most every 500 ms) and returns the guarded client. Until it was first connected (start-up), commands wait for that connection up to
 * 2000 ms, and fail at once when the attempt fails (Redis refusing connections).
 */
export function openGuardedRedis<R extends RedisClient = RedisClient>(options: GuardedRedisOptions): GuardedRedis<R> {
  const settings = { ...DEFAULT_REDIS_OUTAGE_SETTINGS, ...options.outage };
  const store = `${options.role} (Redis)`;
  const client = createRedisClient(options, {
    socketTimeoutMs: SOCKET_TIMEOUT_MS,
    reconnectDelayMs: (attempt) => Math.min(attempt * 50, MAX_RECONNECT_DELAY_MS),
  }) as R;
  client.on('error', () => {}); // commands reject with the cause; without a listener ioredis prints to stderr
  const breaker = circuitBreaker(handleWhen(isOutageFailure), {
    halfOpenAfter: settings.halfOpenAfterMs,
    breaker: new ConsecutiveBreaker(settings.failureThreshold),
  });
  let down = false;
  let openedAt = 0;
  breaker.onBreak((failure) => {
    openedAt = Date.now();
    if (down) return; // a failed trial: still the same outage
    down = true;
    const reason = 'error' in failure ? failure.error.message : 'failed';
    options.log?.(
      'warn',
      `${store} unreachable: failing fast, one trial every ${settings.halfOpenAfterMs} ms until it answers`,
      { role: options.role, reason },
    );
  });
  breaker.onReset(() => {
    if (!down) return;
    down = false;
    options.log?.('info', `${store} reachable again`, { role: options.role });
  });
  /** A cluster connects to its nodes lazily: the first ready also opens every master's connection (PING), so that no first command pays for it within its deadline. */
  let warm: Promise<unknown> | undefined;
  const warmUp = (): Promise<unknown> =>
    (warm ??= isClusterClient(client)
      ? Promise.allSettled(client.nodes('master').map((node) => node.ping()))
      : Promise.resolve());
  let everReady = client.status === 'ready' && !isClusterClient(client);
  client.once('ready', () => void warmUp().then(() => (everReady = true)));
  /** Settles when the first connection is ready (resolves) or its attempt failed (rejects); shared by every waiting command. */
  let firstConnection: Promise<void> | undefined;
  const awaitFirstConnection = (): Promise<void> =>
    (firstConnection ??= new Promise<void>((resolve, reject) => {
      const settle = (error?: Error): void => {
        client.off('ready', onReady);
        client.off('close', onClose);
        if (error) {
          firstConnection = undefined; // the next command waits for the next attempt
          reject(error);
        } else resolve();
      };
      const onReady = (): void => void warmUp().then(() => settle());
      const onClose = (): void => settle(new Error('the connection to Redis failed'));
      client.once('ready', onReady);
      client.once('close', onClose);
    }));

  /**
   * Runs one command under the deadline. Until the client was first ready, a command waits for
   * the connection up to FIRST_CONNECTION_TIMEOUT_MS (start-up), failing at once when the attempt fails.
   */
  const attempt = async <T>(command: (redis: R) => Promise<T>, timeoutMs: number): Promise<T> => {
    if (!everReady) {
      const waiting =
        client.status === 'ready'
          ? warmUp()
          : client.status === 'connecting' || client.status === 'connect' || client.status === 'wait'
            ? awaitFirstConnection()
            : undefined;
      if (!waiting) throw new Error(`Redis is not connected (${client.status})`);
      await withDeadline(waiting, Math.max(timeoutMs, FIRST_CONNECTION_TIMEOUT_MS));
    }
    return withDeadline(command(client), timeoutMs);
  };

  return {
    client,
    commandTimeoutMs: settings.commandTimeoutMs,

    async run<T>(command: (redis: R) => Promise<T>, timeoutMs: number = settings.commandTimeoutMs): Promise<T> {
      try {
        return await breaker.execute(() => attempt(command, timeoutMs));
      } catch (error) {
        if (error instanceof BrokenCircuitError) {
          throw new StateStoreUnavailableError(
            store,
            'circuit-open',
            Math.max(0, openedAt + settings.halfOpenAfterMs - Date.now()),
            { cause: error },
          );
        }
        if (!(error instanceof Error) || !isOutageFailure(error)) throw error;
        const reason = error instanceof CommandDeadlineError ? 'timeout' : 'unreachable';
        throw new StateStoreUnavailableError(
          store,
          reason,
          breaker.state === CircuitState.Open ? settings.halfOpenAfterMs : 0,
          { cause: error },
        );
      }
    },

    isAvailable: () => breaker.state === CircuitState.Closed,

    async close(): Promise<void> {
      await client.quit().catch(() => client.disconnect());
    },
  };
}

/** The options every Redis adapter takes: the endpoint, its key prefix, and its behaviour while Redis is down. */
export interface RedisAdapterOptions extends RedisEndpoint {
  /** Starts every key (default `tollgate:`). */
  readonly keyPrefix?: string;
  /** Deadline and circuit breaker while Redis is down (default: 100 ms, open after 3 failures for 1000 ms). */
  readonly outage?: RedisOutageSettings;
  /** Where the outage transitions are logged (once per transition). */
  readonly log?: StateStoreLog;
}

/** An adapter's guarded client, the prefix of its keys, and whether the client is a Redis Cluster's. */
export interface RedisAdapterConnection<R extends RedisClient = RedisClient> {
  readonly guarded: GuardedRedis<R>;
  readonly prefix: string;
  readonly cluster: boolean;
}

/**
 * Opens the guarded client (openGuardedRedis) of the adapter serving `role` (e.g. `rate limiter`)
 * from its options. An adapter whose keys carry hash tags (`hashTagged`) has its prefix checked
 * on a cluster before anything connects (assertClusterKeyPrefix).
 * @throws Error (at once) when `hashTagged`, on a cluster, and `keyPrefix` contains a brace
 */
export function openRedisAdapter<R extends RedisClient = RedisClient>(
  options: RedisAdapterOptions,
  role: string,
  { hashTagged }: { readonly hashTagged: boolean },
): RedisAdapterConnection<R> {
  const prefix = options.keyPrefix ?? 'tollgate:';
  if (hashTagged && options.cluster) assertClusterKeyPrefix(prefix);
  const guarded = openGuardedRedis<R>({
    ...redisEndpointOf(options),
    role,
    ...(options.outage ? { outage: options.outage } : {}),
    ...(options.log ? { log: options.log } : {}),
  });
  return { guarded, prefix, cluster: isClusterClient(guarded.client) };
}
