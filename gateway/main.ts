/**
 * `npm start`: loads configuration, starts the mock upstream when a mock channel needs it, builds
 * the app with an undici Agent, listens on HOST:PORT, and shuts down cleanly on SIGINT/SIGTERM.
 * Invalid configuration stops start-up with every problem listed (exit code 2).
 */
import { Agent } from 'undici';
import { buildApp } from './app.ts';
import { ConfigError, DEMO_KEY, loadConfig } from './config/load-config.ts';
import { startMockUpstream } from './mock/mock-upstream-server.ts';

async function main(): Promise<void> {
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  const needsMock = config.channels.some((c) => c.provider === 'mock' && !c.baseUrl);
  const mock = needsMock ? await startMockUpstream() : undefined;
  const dispatcher = new Agent({ keepAliveTimeout: 30_000, connections: 256, pipelining: 1 });
  const app = await buildApp(config, { dispatcher, ...(mock ? { mockBaseUrl: mock.baseUrl } : {}) });
  await app.listen({ host: config.host, port: config.port });
  const address = `http://${config.host}:${(app.server.address() as { port: number }).port}`;
  app.log.info({ address, channels: config.channels.length }, 'Tollgate listening');
  if (config.demo) {
    process.stdout.write(
      `\nTollgate is running at ${address} with the built-in demo channel (mock provider).\n` +
        `Try it:\n  curl ${address}/v1/chat/completions -H 'Authorization: Bearer ${DEMO_KEY}' -H 'content-type: application/json' \\\n` +
        `    -d '{"model":"mock-1","messages":[{"role":"user","content":"Hello"}]}'\n\n`,
    );
  }
  const shutdown = async (): Promise<void> => {
    await app.close();
    await mock?.close();
    await dispatcher.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

void main();
