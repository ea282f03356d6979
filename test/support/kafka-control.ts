/**
 * Stops and starts the run's Kafka for the outage tests: the container the global setup started
 * (TOLLGATE_TEST_KAFKA_CONTAINER), else the infra/services.ts Kafka of the TOLLGATE_INFRA_*
 * layout (the run's own, or the developer's `npm run infra:up` one when the caller's
 * KAFKA_BROKERS point at it). A Kafka neither started is never touched.
 */
import { execFile } from 'node:child_process';
import { connect } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { getContainerRuntimeClient } from 'testcontainers';
import { infraEnvironment } from '../../infra/services.ts';
import { KAFKA_CONTAINER_VARIABLE } from './engine-containers.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/** Whether `brokers` (KAFKA_BROKERS split on commas) is a Kafka this helper may stop and start. */
export function kafkaIsControllable(brokers: readonly string[]): boolean {
  if (process.env[KAFKA_CONTAINER_VARIABLE]) return brokers.length === 1 && brokers[0] === process.env.KAFKA_BROKERS;
  return brokers.length === 1 && brokers[0] === infraEnvironment().KAFKA_BROKERS;
}

function portOpen(address: string): Promise<boolean> {
  const [host, port] = address.split(':');
  return new Promise((resolve) => {
    const socket = connect({ host, port: Number(port) });
    socket.once('connect', () => (socket.destroy(), resolve(true)));
    socket.once('error', () => resolve(false));
  });
}

async function setContainerRunning(id: string, running: boolean): Promise<void> {
  const client = await getContainerRuntimeClient();
  const container = client.container.getById(id);
  if (!running) return client.container.stop(container, { timeout: 20 });
  await client.container.start(container);
  const deadline = Date.now() + 90_000;
  while (!(await portOpen(process.env.KAFKA_BROKERS ?? ''))) {
    if (Date.now() > deadline) throw new Error(`Kafka container ${id} did not open its port within 90000 ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/**
 * Stops (`running = false`) or starts the run's Kafka and waits until it is down or accepts connections.
 * @returns how long that took, ms
 * @throws Error when the engine could not be stopped or started (the message carries its stderr)
 */
export async function setKafkaRunning(running: boolean): Promise<number> {
  const started = Date.now();
  const container = process.env[KAFKA_CONTAINER_VARIABLE];
  if (container) await setContainerRunning(container, running);
  else
    await run(process.execPath, ['--import', 'tsx', 'infra/services.ts', running ? 'up' : 'down', 'kafka'], {
      cwd: ROOT,
      env: process.env,
      timeout: 120_000,
    });
  return Date.now() - started;
}
