/**
 * vitest globalSetup: when KAFKA_BROKERS, CLICKHOUSE_URL and REDIS_URL are not all set and no
 * Docker engine answers, starts the engines with infra/services.ts (as plain processes) and
 * exports their URLs to the test workers, so `npm ci && npm test` works on a machine that has
 * Java, Maven, clickhouse-server and redis-server. At teardown it stops only the engines it
 * started. When the engines cannot start, the tests that need them fail with instructions.
 */
import { connect } from 'node:net';
import { getContainerRuntimeClient } from 'testcontainers';
import { infraEnvironment, runInfraCommand } from '../../infra/services.ts';

const SERVICES = [
  ['kafka', 'KAFKA_BROKERS'],
  ['clickhouse', 'CLICKHOUSE_URL'],
  ['redis', 'REDIS_URL'],
] as const;

function portOpen(address: string): Promise<boolean> {
  const url = new URL(address.includes('://') ? address : `tcp://${address}`);
  return new Promise((resolve) => {
    const socket = connect({ host: url.hostname, port: Number(url.port) });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function dockerAnswers(): Promise<boolean> {
  try {
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

export default async function setup(): Promise<(() => Promise<void>) | undefined> {
  if (SERVICES.every(([, variable]) => process.env[variable])) return undefined;
  if (await dockerAnswers()) return undefined;
  const env = infraEnvironment();
  const wasRunning = new Map<string, boolean>();
  for (const [name, variable] of SERVICES) wasRunning.set(name, await portOpen(env[variable]));
  try {
    await runInfraCommand('up', []);
  } catch (error) {
    process.stderr.write(`Could not start the engines for the integration tests: ${(error as Error).message}\n`);
    return undefined;
  }
  for (const [, variable] of SERVICES) process.env[variable] ??= env[variable];
  const started = SERVICES.filter(([name]) => !wasRunning.get(name)).map(([name]) => name);
  return async () => {
    if (started.length > 0) await runInfraCommand('down', started);
  };
}
