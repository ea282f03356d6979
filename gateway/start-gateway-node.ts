/**
 * One gateway node on the engines, dispatcher and mock upstream its process's composition root
 * (infra/processes/tollgate-server.ts) opened and chose: joins the control plane (follows the
 * config topic, appends the config file's keys, channels and prices, makes sure the console has
 * an admin), builds the app and listens on HOST:PORT. Reads no environment variable and writes to
 * no stream itself (the root hands over the values start-up needs and prints its notices) and
 * never exits the process (start-up refusals are thrown as StartUpRefusal).
 */
import type { Dispatcher } from 'undici';
import type { AnalyticsStore } from '../schemas/analytics/analytics-store.ts';
import { bootstrapAdminEvents } from './console/bootstrap-admin.ts';
import { verifyPassword } from './control-plane/password-hash.ts';
import type { EventLog } from '../schemas/event-log/event-log.ts';
import type { RateLimiter } from '../schemas/state-store/rate-limiter.ts';
import type { BudgetLedger } from '../schemas/state-store/budget-ledger.ts';
import type { ResponseStore } from '../schemas/state-store/response-store.ts';
import type { SessionStore } from '../schemas/state-store/session-store.ts';
import type { AffinityStore } from '../schemas/state-store/affinity-store.ts';
import type { InFlightRegistry } from '../schemas/state-store/in-flight-registry.ts';
import type { CredentialCooldownStore } from '../schemas/state-store/credential-cooldowns.ts';
import type { StateStore } from '../schemas/state-store/state-store.ts';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { eventsForConfigFile } from './control-plane/config-file-events.ts';
import { ControlPlaneProjection } from './control-plane/control-plane-projection.ts';
import type { StartConfigFollower } from '../schemas/control-plane/config-follower.ts';
import type { ControlPlane } from './control-plane/local-control-plane.ts';
import { loadControlPlaneSecrets } from './control-plane/load-secrets.ts';
import { buildApp } from './app.ts';
import { createChannelLimits } from './policy/channel-limits.ts';
import type { GatewayConfig } from './config/config-schema.ts';
import { DEMO_KEY } from './config/load-config.ts';
import { engineReadinessChecks } from './lifecycle/engine-readiness-checks.ts';
import { NodeDrain, type DrainResult } from './lifecycle/node-drain.ts';
import { ReadinessProbe } from './lifecycle/readiness-probe.ts';
import type { GatewayMetrics } from './metrics/gateway-metrics.ts';
import { CONFIG_TOPIC } from '../schemas/topics.ts';

/** Log sink for start-up and adapter lines (the process's pino logger). */
export type GatewayNodeLog = (
  level: 'debug' | 'info' | 'warn' | 'error',
  message: string,
  extra?: Record<string, unknown>,
) => void;

/**
 * Environment values start-up reads, handed over by the composition root (process.env):
 * TOLLGATE_MASTER_KEY and TOLLGATE_KEY_HMAC_SECRET (control-plane/load-secrets.ts),
 * TOLLGATE_ADMIN_USER and TOLLGATE_ADMIN_PASSWORD (console/bootstrap-admin.ts).
 */
export type StartUpEnv = Readonly<Record<string, string | undefined>>;

/** What joining the control plane needs besides the config and the event log. */
export interface ControlPlaneStartUp {
  /** Start-up and follower log lines. */
  readonly log: GatewayNodeLog;
  /** The secrets and console admin variables (StartUpEnv). */
  readonly env: StartUpEnv;
  /** Follows the config topic (the root's adapter, infra/control-plane/config-follower.ts). */
  readonly startConfigFollower: StartConfigFollower;
  /**
   * Prints a notice for the operator as it is (the root: the process's streams): on `stdout` the
   * demo hint and a generated console password, on `stderr` that secrets were generated.
   */
  readonly print: (stream: 'stdout' | 'stderr', text: string) => void;
}

/**
 * Start-up refused for a mistake of the operator's (an invalid TOLLGATE_ADMIN_USER /
 * TOLLGATE_ADMIN_PASSWORD): the composition root prints the message alone and exits with code 2.
 */
export class StartUpRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartUpRefusal';
  }
}

/** The ports a gateway node runs on, opened by the process's composition root. */
export interface GatewayNodePorts {
  readonly eventLog: EventLog;
  readonly state: StateStore;
  readonly limiter: RateLimiter;
  /** Budget windows and holds (the state store's engine); none: budgets and daily caps are not enforced. */
  readonly budgetLedger?: BudgetLedger;
  readonly sessionStore: SessionStore;
  /** Prompt-cache affinity pins (shared by every node with Redis); none: no affinity. */
  readonly affinityStore?: AffinityStore;
  /** Requests in flight per channel, published by every node (`least-busy`); none: this node's own count. */
  readonly inFlightRegistry?: InFlightRegistry;
  /** Cooldowns of pooled credentials shared by every node (README "Key pools"); none: each node keeps its own. */
  readonly credentialCooldowns?: CredentialCooldownStore;
  /** Stored Responses answers (`store`, `previous_response_id`, `GET /v1/responses/{id}`). */
  readonly responseStore: ResponseStore;
  /** The console's usage pages read it; none: they answer 503. */
  readonly analytics?: AnalyticsStore;
  /** The process's pino logger (its redaction and format chosen by the root); none: the app is silent. */
  readonly logger?: FastifyBaseLogger;
  /** Registers tracing on the app before its routes (AppDeps.instrument); none: nothing is traced. */
  readonly instrument?: (app: FastifyInstance) => Promise<void>;
  /**
   * The node's Prometheus metrics (the root makes them with the process metrics and adds the
   * consumer thread's); undefined when `config.metricsPath` is false.
   */
  readonly metrics: GatewayMetrics | undefined;
  /** undici dispatcher for upstream calls (the root's Agent); the root closes it after stop(). */
  readonly dispatcher: Dispatcher;
  /**
   * Base URL of the mock upstream the root started because a mock channel has no baseUrl; the
   * root closes it after stop(). None: no mock upstream.
   */
  readonly mockBaseUrl?: string;
}

/** A listening gateway node. */
export interface RunningGatewayNode {
  readonly app: FastifyInstance;
  /** `http://host:port` */
  readonly address: string;
  /**
   * Drains, then stops: /readyz turns 503 and new requests are refused with 503 `shutting-down`
   * at once; the requests in flight get `config.drainTimeoutMs` to finish, then are cut
   * (lifecycle/node-drain.ts). Then closes the listener and the connections left, flushes events
   * and stops following the config topic (the ports, the dispatcher and the mock stay open: the
   * root closes them). Resolves with what the drain did; call once.
   */
  stop(): Promise<DrainResult>;
}

/** How long closing the listener may wait for connections other than client requests (console, admin), ms, before they are closed. */
const CLOSE_CONNECTIONS_AFTER_MS = 2000;

/**
 * Starts a node: joins the control plane, builds the app and listens on config.host:config.port;
 * prints the demo hint and the generated console password (once) through `startUp.print`.
 * @throws StartUpRefusal when the console admin variables are invalid
 * @throws Error when the secrets in the environment are malformed, the config topic cannot be
 *   followed (event log unreachable) or listening fails
 */
export async function startGatewayNode(
  config: GatewayConfig,
  ports: GatewayNodePorts,
  startUp: ControlPlaneStartUp,
): Promise<RunningGatewayNode> {
  const { log, print } = startUp;
  const { controlPlane, node, consoleAdminNotice } = await joinControlPlane(config, ports.eventLog, startUp);
  let followingConfig = true;
  const drain = new NodeDrain();
  const readinessChecks = engineReadinessChecks({
    controlPlaneCaughtUp: () => followingConfig,
    eventLog: ports.eventLog,
    ...(config.redisUrl || config.redisClusterNodes ? { redis: ports.state } : {}),
    ...(config.clickhouseUrl && ports.analytics ? { clickhouse: ports.analytics } : {}),
  });
  const readiness = new ReadinessProbe(readinessChecks, () => drain.draining);
  const metrics = config.metricsPath === false ? undefined : ports.metrics;
  metrics?.watchConfigFollower({ eventLog: ports.eventLog, groupId: node.groupId, topic: CONFIG_TOPIC });
  const channelLimits = createChannelLimits({
    limiter: ports.limiter,
    limitsOf: (channelId) => controlPlane.view.channels().find((c) => c.config.id === channelId),
  });
  const app = await buildApp(config, {
    logger: ports.logger ?? false,
    instrument: ports.instrument,
    metrics,
    drain,
    readiness,
    channelLimits,
    dispatcher: ports.dispatcher,
    eventLog: ports.eventLog,
    stateStore: ports.state,
    limiter: ports.limiter,
    ...(ports.budgetLedger ? { budgetLedger: ports.budgetLedger } : {}),
    controlPlane,
    sessionStore: ports.sessionStore,
    ...(ports.affinityStore ? { affinityStore: ports.affinityStore } : {}),
    ...(ports.inFlightRegistry ? { inFlightRegistry: ports.inFlightRegistry } : {}),
    ...(ports.credentialCooldowns ? { credentialCooldowns: ports.credentialCooldowns } : {}),
    responseStore: ports.responseStore,
    ...(ports.analytics ? { analytics: ports.analytics } : {}),
    ...(ports.mockBaseUrl ? { mockBaseUrl: ports.mockBaseUrl } : {}),
  });
  await app.listen({ host: config.host, port: config.port });
  const address = `http://${config.host}:${(app.server.address() as { port: number }).port}`;
  app.log.info(
    {
      address,
      channels: config.channels.length,
      kafka: Boolean(config.kafkaBrokers),
      redis: Boolean(config.redisUrl || config.redisClusterNodes),
      clickhouse: Boolean(config.clickhouseUrl),
      consumers: config.consumers,
    },
    'Tollgate listening',
  );
  if (config.demo) {
    print(
      'stdout',
      `\nTollgate is running at ${address} with the built-in demo channel (mock provider).\n` +
        `Try it:\n  curl ${address}/v1/chat/completions -H 'Authorization: Bearer ${DEMO_KEY}' -H 'content-type: application/json' \\\n` +
        `    -d '{"model":"mock-1","messages":[{"role":"user","content":"Hello"}]}'\n` +
        `Console: ${address}/console/\n\n`,
    );
  }
  if (consoleAdminNotice) print('stdout', consoleAdminNotice(`${address}/console/`));
  return {
    app,
    address,
    async stop() {
      log('info', 'shutdown: draining; new requests are refused', {
        requestsInFlight: drain.requestsInFlight,
        drainTimeoutMs: config.drainTimeoutMs,
      });
      const drained = await drain.drain(config.drainTimeoutMs, (inFlight) =>
        log(
          'warn',
          'shutdown: drain deadline passed; ending the requests still in flight with an error (recorded, usage partial)',
          { requestsInFlight: inFlight, drainTimeoutMs: config.drainTimeoutMs },
        ),
      );
      log('info', 'shutdown: drained', { ...drained });
      await closeListener(app, drained.leftOver > 0);
      followingConfig = false;
      await ports.eventLog.flush();
      await node.stop();
      return drained;
    },
  };
}

/**
 * Closes the listener and idle connections; connections still busy after
 * CLOSE_CONNECTIONS_AFTER_MS (or at once with `closeAllNow`: requests the drain could not end,
 * e.g. a client that stopped reading) are closed too.
 */
async function closeListener(app: FastifyInstance, closeAllNow: boolean): Promise<void> {
  if (closeAllNow) app.server.closeAllConnections();
  const forced = setTimeout(() => app.server.closeAllConnections(), CLOSE_CONNECTIONS_AFTER_MS);
  try {
    await app.close();
  } finally {
    clearTimeout(forced);
  }
}

/**
 * Joins the control plane: follows the config topic into a projection, then appends the config
 * file's keys, channels and prices as events where they differ from what the topic holds.
 * With Kafka (several nodes) the secrets must come from the environment, so that every node
 * verifies the same key digests and decrypts the same credentials.
 * @throws StartUpRefusal when the console admin variables are invalid
 * @throws Error when the secrets in `startUp.env` are malformed or the config topic cannot be followed
 */
export async function joinControlPlane(config: GatewayConfig, eventLog: EventLog, startUp: ControlPlaneStartUp) {
  const { log, env } = startUp;
  const secrets = loadControlPlaneSecrets({ env, dataDir: config.dataDir, requireEnv: Boolean(config.kafkaBrokers) });
  if (secrets.generated)
    startUp.print(
      'stderr',
      `Generated a master key and key-digest secret in ${secrets.file}; set TOLLGATE_MASTER_KEY and TOLLGATE_KEY_HMAC_SECRET to run several nodes.\n`,
    );
  const projection = new ControlPlaneProjection(secrets.masterKey, { onWarning: (message) => log('warn', message) });
  const node = await startUp.startConfigFollower({ eventLog, projection, log });
  await node.ready();
  await node.append(eventsForConfigFile(config, projection, secrets, Date.now()));
  const consoleAdminNotice = await bootstrapConsoleAdmin(projection, node, env, {
    masterKey: secrets.masterKey,
    hmacSecret: secrets.hmacSecret,
  });
  const controlPlane: ControlPlane = {
    view: projection,
    append: (events) => node.append(events),
    secrets: { masterKey: secrets.masterKey, hmacSecret: secrets.hmacSecret },
  };
  return { controlPlane, node, consoleAdminNotice };
}

/**
 * Makes sure someone can sign in to the console: the admin of TOLLGATE_ADMIN_USER /
 * TOLLGATE_ADMIN_PASSWORD, or on first start a generated `admin` password, returned as the notice
 * to print once the gateway listens (given the console's URL). An invalid
 * TOLLGATE_ADMIN_PASSWORD stops start-up: StartUpRefusal (the root exits with code 2).
 */
async function bootstrapConsoleAdmin(
  projection: ControlPlaneProjection,
  node: { append: ControlPlane['append'] },
  env: StartUpEnv,
  secrets: ControlPlane['secrets'],
): Promise<((consoleUrl: string) => string) | undefined> {
  let bootstrap;
  try {
    bootstrap = bootstrapAdminEvents(projection, env, { now: Date.now(), actor: 'bootstrap', secrets });
  } catch (error) {
    throw new StartUpRefusal((error as Error).message);
  }
  await node.append(bootstrap.events);
  const { login, generatedPassword } = bootstrap;
  if (!generatedPassword || !login) return undefined;
  // Another node starting on the same fresh topic may have set its own password just after ours.
  const stored = projection.userByLogin(login)?.passwordHash;
  if (stored && (await verifyPassword(generatedPassword, stored))) {
    return (url) =>
      `\nConsole admin created. Sign in at ${url} as '${login}' with password: ${generatedPassword}\n(shown once; set TOLLGATE_ADMIN_USER and TOLLGATE_ADMIN_PASSWORD to choose them)\n\n`;
  }
  return () =>
    `\nAnother gateway node created the console admin '${login}' at the same time: use the password that node printed.\n\n`;
}
