/**
 * Starts a real gateway for tests: config parsed by the same schema as production, an undici
 * Agent, listening on 127.0.0.1 with an ephemeral port. Outcomes are collected for assertions.
 */
import { Agent } from 'undici';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppDeps } from '../../gateway/app.ts';
import { createMemoryRateLimiter } from '../../infra/state-store/memory/memory-rate-limiter.ts';
import { createMemoryResponseStore } from '../../infra/state-store/memory/memory-response-store.ts';
import { createMemorySessionStore } from '../../infra/state-store/memory/memory-session-store.ts';
import { parseConfigFile } from '../../gateway/config/load-config.ts';
import type { ExchangeOutcome } from '../../gateway/exchange/exchange-outcome.ts';
import { testAppDeps } from './test-app-deps.ts';

export const TEST_KEY = 'sk-test-contract-key-0001';

/** A running test gateway. */
export interface TestGateway {
  readonly app: FastifyInstance;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  readonly outcomes: ExchangeOutcome[];
  close(): Promise<void>;
}

/**
 * Starts a gateway for `configFile` (the YAML/JSON document as an object; `keys` defaults to
 * TEST_KEY). `deps` overrides app dependencies (mock base URL, random source, keep-alive; the
 * response store defaults to a fresh in-process one, the rest as testAppDeps makes them).
 */
export async function startTestGateway(
  configFile: Record<string, unknown>,
  deps: Partial<AppDeps> = {},
  env: Record<string, string> = {},
): Promise<TestGateway> {
  const config = parseConfigFile(
    { keys: [{ name: 'test', key: TEST_KEY }], ...configFile },
    { LOG_LEVEL: 'silent', ...env },
  );
  const dispatcher = new Agent({ keepAliveTimeout: 10_000 });
  const outcomes: ExchangeOutcome[] = [];
  const app = await buildApp(
    config,
    testAppDeps(config, {
      dispatcher,
      logger: false,
      limiter: createMemoryRateLimiter(),
      sessionStore: createMemorySessionStore(),
      responseStore: createMemoryResponseStore(),
      onOutcome: (o) => outcomes.push(o),
      ...deps,
    }),
  );
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as { port: number }).port;
  return {
    app,
    origin: `http://127.0.0.1:${port}`,
    outcomes,
    close: async () => {
      await app.close();
      await dispatcher.close();
    },
  };
}

/** Waits until `predicate` holds (outcomes are emitted just after the response ends). */
export async function waitFor(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('waitFor: condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
