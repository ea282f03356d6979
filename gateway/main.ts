/**
 * `npm start`: loads configuration, opens the engines (Kafka/Redis/ClickHouse when their URLs are
 * set, else the embedded file log, memory and chdb in TOLLGATE_DATA_DIR), starts the mock upstream
 * when a mock channel needs it, runs the consumers in-process in embedded mode (sharing their
 * analytics store with the console), makes sure the console has an admin, builds the app with an
 * undici Agent and listens on HOST:PORT. SIGINT/SIGTERM shut down in order: stop taking
 * requests, flush events, stop consumers, close engines. Invalid configuration stops start-up with
 * every problem listed (exit code 2).
 */
import { mkdirSync } from 'node:fs';
import { Agent } from 'undici';
import { buildPriceBook } from '../schemas/billing/price-book.ts';
import { engineSettingsFromEnv, openAnalyticsStore, openEventLog, openRateLimiter, openSessionStore, openStateStore, type EngineSettings } from '../infra/open-adapters.ts';
import type { AnalyticsStore } from '../schemas/analytics/analytics-store.ts';
import { bootstrapAdminEvents } from './console/bootstrap-admin.ts';
import { verifyPassword } from './control-plane/password-hash.ts';
import type { EventLog } from '../schemas/event-log/event-log.ts';
import { eventsForConfigFile } from './control-plane/config-file-events.ts';
import { ControlPlaneProjection } from './control-plane/control-plane-projection.ts';
import { startControlPlaneNode } from './control-plane/control-plane-node.ts';
import type { ControlPlane } from './control-plane/local-control-plane.ts';
import { loadControlPlaneSecrets } from './control-plane/load-secrets.ts';
import { buildApp } from './app.ts';
import type { GatewayConfig } from './config/config-schema.ts';
import { ConfigError, DEMO_KEY, loadConfig } from './config/load-config.ts';
import { startMockUpstream } from './mock/mock-upstream-server.ts';

function loadConfigOrExit(): GatewayConfig {
  try {
    return loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
}

/** Engine settings from the environment (the same reader as `npm run consumers`), with the validated data dir. */
function engineSettings(config: GatewayConfig, log: EngineSettings['log']): EngineSettings {
  return { ...engineSettingsFromEnv(), dataDir: config.dataDir, ...(log ? { log } : {}) };
}

/** Starts the consumers inside this process (embedded mode). Loaded lazily: the gateway's code never imports consumers/. */
async function startInProcessConsumers(config: GatewayConfig, deps: { eventLog: ReturnType<typeof openEventLog>; state: ReturnType<typeof openStateStore>; analytics: AnalyticsStore; log: NonNullable<EngineSettings['log']> }) {
  const { analytics } = deps;
  const pipelineModule = '../consumers/start-consumer-pipeline.ts';
  const { startConsumerPipeline } = (await import(pipelineModule)) as typeof import('../consumers/start-consumer-pipeline.ts');
  return startConsumerPipeline({ eventLog: deps.eventLog, state: deps.state, analytics, prices: buildPriceBook(config.prices), log: deps.log });
}

/**
 * Joins the control plane: follows the config topic into a projection, then appends the config
 * file's keys, channels and prices as events where they differ from what the topic holds.
 * With Kafka (several nodes) the secrets must come from the environment, so that every node
 * verifies the same key digests and decrypts the same credentials.
 */
async function joinControlPlane(config: GatewayConfig, eventLog: EventLog, log: NonNullable<EngineSettings['log']>) {
  const secrets = loadControlPlaneSecrets({ env: process.env, dataDir: config.dataDir, requireEnv: Boolean(config.kafkaBrokers) });
  if (secrets.generated) process.stderr.write(`Generated a master key and key-digest secret in ${secrets.file}; set TOLLGATE_MASTER_KEY and TOLLGATE_KEY_HMAC_SECRET to run several nodes.\n`);
  const projection = new ControlPlaneProjection(secrets.masterKey, { onWarning: (message) => log('warn', message) });
  const node = await startControlPlaneNode({ eventLog, projection, log });
  await node.ready();
  await node.append(eventsForConfigFile(config, projection, secrets, Date.now()));
  const consoleAdminNotice = await bootstrapConsoleAdmin(projection, node, { masterKey: secrets.masterKey, hmacSecret: secrets.hmacSecret });
  const controlPlane: ControlPlane = { view: projection, append: (events) => node.append(events), secrets: { masterKey: secrets.masterKey, hmacSecret: secrets.hmacSecret } };
  return { controlPlane, node, consoleAdminNotice };
}

/**
 * Makes sure someone can sign in to the console: the admin of TOLLGATE_ADMIN_USER /
 * TOLLGATE_ADMIN_PASSWORD, or on first start a generated `admin` password, returned as the notice
 * to print once the gateway listens (given the console's URL). An invalid
 * TOLLGATE_ADMIN_PASSWORD stops start-up (exit code 2).
 */
async function bootstrapConsoleAdmin(projection: ControlPlaneProjection, node: { append: ControlPlane['append'] }, secrets: ControlPlane['secrets']): Promise<((consoleUrl: string) => string) | undefined> {
  let bootstrap;
  try {
    bootstrap = bootstrapAdminEvents(projection, process.env, { now: Date.now(), actor: 'bootstrap', secrets });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(2);
  }
  await node.append(bootstrap.events);
  const { login, generatedPassword } = bootstrap;
  if (!generatedPassword || !login) return undefined;
  // Another node starting on the same fresh topic may have set its own password just after ours.
  const stored = projection.userByLogin(login)?.passwordHash;
  if (stored && (await verifyPassword(generatedPassword, stored))) {
    return (url) => `\nConsole admin created. Sign in at ${url} as '${login}' with password: ${generatedPassword}\n(shown once; set TOLLGATE_ADMIN_USER and TOLLGATE_ADMIN_PASSWORD to choose them)\n\n`;
  }
  return () => `\nAnother gateway node created the console admin '${login}' at the same time: use the password that node printed.\n\n`;
}

async function main(): Promise<void> {
  const config = loadConfigOrExit();
  mkdirSync(config.dataDir, { recursive: true });
  const needsMock = config.channels.some((c) => c.provider === 'mock' && !c.baseUrl);
  const mock = needsMock ? await startMockUpstream() : undefined;
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 256, pipelining: 1 });
  let appLog: { [level: string]: (obj: object, msg: string) => void } | undefined;
  const log: NonNullable<EngineSettings['log']> = (level, message, extra) => appLog?.[level]?.(extra ?? {}, message);
  const settings = engineSettings(config, log);
  const eventLog = openEventLog(settings);
  const state = openStateStore(settings);
  const limiter = openRateLimiter(settings);
  const sessionStore = openSessionStore(settings);
  // chdb allows one process per data dir: without CLICKHOUSE_URL only in-process consumers' store can serve the console.
  const analytics = config.consumers === 'in-process' || config.clickhouseUrl ? openAnalyticsStore(settings) : undefined;
  const { controlPlane, node, consoleAdminNotice } = await joinControlPlane(config, eventLog, log);
  const app = await buildApp(config, { dispatcher, eventLog, stateStore: state, limiter, controlPlane, sessionStore, ...(analytics ? { analytics } : {}), ...(mock ? { mockBaseUrl: mock.baseUrl } : {}) });
  appLog = app.log as unknown as typeof appLog;
  const consumers = config.consumers === 'in-process' && analytics ? await startInProcessConsumers(config, { eventLog, state, analytics, log }) : undefined;
  await app.listen({ host: config.host, port: config.port });
  const address = `http://${config.host}:${(app.server.address() as { port: number }).port}`;
  app.log.info({ address, channels: config.channels.length, kafka: Boolean(config.kafkaBrokers), redis: Boolean(config.redisUrl), clickhouse: Boolean(config.clickhouseUrl), consumers: config.consumers }, 'Tollgate listening');
  if (config.demo) {
    process.stdout.write(
      `\nTollgate is running at ${address} with the built-in demo channel (mock provider).\n` +
        `Try it:\n  curl ${address}/v1/chat/completions -H 'Authorization: Bearer ${DEMO_KEY}' -H 'content-type: application/json' \\\n` +
        `    -d '{"model":"mock-1","messages":[{"role":"user","content":"Hello"}]}'\n` +
        `Console: ${address}/console/\n\n`,
    );
  }
  if (consoleAdminNotice) process.stdout.write(consoleAdminNotice(`${address}/console/`));
  const shutdown = async (): Promise<void> => {
    await app.close();
    await eventLog.flush();
    await consumers?.stop();
    await analytics?.close();
    await sessionStore.close();
    await node.stop();
    await eventLog.close();
    await limiter.close();
    await state.close();
    await mock?.close();
    await dispatcher.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

void main();
