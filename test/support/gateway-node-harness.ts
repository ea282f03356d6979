/**
 * Starts gateway NODES the way the server root (infra/processes/tollgate-server.ts) does — a control-plane projection following the config
 * topic, the config file applied as events, the shared rate limiter, state store, console
 * session store and response store — on the
 * engines of `settings`, so several nodes can share Kafka and Redis in one test.
 */
import { randomBytes } from 'node:crypto';
import { Agent } from 'undici';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../gateway/app.ts';
import { testAppDeps } from './test-app-deps.ts';
import { parseConfigFile } from '../../gateway/config/load-config.ts';
import { eventsForConfigFile } from '../../gateway/control-plane/config-file-events.ts';
import { ControlPlaneProjection } from '../../gateway/control-plane/control-plane-projection.ts';
import { startConfigFollower } from '../../infra/control-plane/config-follower.ts';
import type { ExchangeOutcome } from '../../gateway/exchange/exchange-outcome.ts';
import {
  openEventLog,
  openRateLimiter,
  openResponseStore,
  openSessionStore,
  openStateStore,
  type EngineSettings,
} from '../../infra/open-adapters.ts';

/** Secrets every node of one deployment shares. */
export interface NodeSecrets {
  readonly masterKey: Buffer;
  readonly hmacSecret: Buffer;
}

export function newNodeSecrets(): NodeSecrets {
  return { masterKey: randomBytes(32), hmacSecret: randomBytes(32) };
}

/** A running gateway node. */
export interface GatewayNode {
  readonly origin: string;
  readonly app: FastifyInstance;
  readonly outcomes: ExchangeOutcome[];
  /** Calls the admin API with the admin token. */
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

export const ADMIN_TOKEN = 'test-admin-token-0123456789';

/** Starts one node; `configFile` is the YAML/JSON document (channels, keys, prices). */
export async function startGatewayNode(options: {
  settings: EngineSettings;
  secrets: NodeSecrets;
  configFile: Record<string, unknown>;
  mockBaseUrl: string;
  healthRefreshMs?: number;
}): Promise<GatewayNode> {
  const config = parseConfigFile(options.configFile, { LOG_LEVEL: 'silent', TOLLGATE_ADMIN_TOKEN: ADMIN_TOKEN });
  const eventLog = openEventLog(options.settings);
  const state = openStateStore(options.settings);
  const limiter = openRateLimiter(options.settings);
  const sessionStore = openSessionStore(options.settings);
  const responseStore = openResponseStore(options.settings);
  const projection = new ControlPlaneProjection(options.secrets.masterKey);
  const node = await startConfigFollower({ eventLog, projection, log: () => undefined });
  await node.ready();
  await node.append(eventsForConfigFile(config, projection, options.secrets, Date.now()));
  const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  const outcomes: ExchangeOutcome[] = [];
  const app = await buildApp(
    config,
    testAppDeps(config, {
      dispatcher,
      logger: false,
      eventLog,
      stateStore: state,
      limiter,
      sessionStore,
      responseStore,
      controlPlane: { view: projection, append: (events) => node.append(events), secrets: options.secrets },
      mockBaseUrl: options.mockBaseUrl,
      healthRefreshMs: options.healthRefreshMs ?? 100,
      onOutcome: (o) => outcomes.push(o),
    }),
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const origin = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
  return {
    origin,
    app,
    outcomes,
    admin: async (method, path, body) => {
      const response = await fetch(`${origin}/admin/api${path}`, {
        method,
        headers: {
          authorization: `Bearer ${ADMIN_TOKEN}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: await response.json().catch(() => undefined) };
    },
    close: async () => {
      await app.close();
      await eventLog.flush();
      await node.stop();
      await eventLog.close();
      await state.close();
      await limiter.close();
      await sessionStore.close();
      await responseStore.close();
      await dispatcher.close();
    },
  };
}
