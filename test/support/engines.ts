/**
 * Real engines for integration tests. CI (and `npm run infra:up` here) provides them through
 * KAFKA_BROKERS, CLICKHOUSE_URL and REDIS_URL; when such a variable is absent and a Docker engine
 * answers, a testcontainers container is started instead (once per test process). Otherwise the
 * test fails with a message saying what to set — integration tests never skip silently.
 */
import { GenericContainer, Wait, getContainerRuntimeClient, type StartedTestContainer } from 'testcontainers';
import { freePort } from './free-port.ts';

/** The engines a test may need, by the environment variable that points at them. */
export type EngineName = 'KAFKA_BROKERS' | 'CLICKHOUSE_URL' | 'REDIS_URL';

const started = new Map<EngineName, Promise<string>>();

/**
 * Returns the engine's address: `host:port[,host:port]` for KAFKA_BROKERS, `http://host:port`
 * for CLICKHOUSE_URL, `redis://host:port` for REDIS_URL.
 * @throws Error when the variable is absent and no Docker engine answers (message names the fix).
 */
export async function requireEngineUrl(name: EngineName): Promise<string> {
  const fromEnv = process.env[name]?.trim();
  if (fromEnv) return fromEnv;
  let url = started.get(name);
  if (!url) {
    url = startContainer(name);
    started.set(name, url);
  }
  return url;
}

async function startContainer(name: EngineName): Promise<string> {
  try {
    await getContainerRuntimeClient();
  } catch (error) {
    throw new Error(
      `${name} is not set and no Docker engine answers (${(error as Error).message}). ` +
        `Run \`npm run infra:up\` and export the variables it prints (\`eval "$(npm run -s infra:env)"\`).`,
    );
  }
  if (name === 'KAFKA_BROKERS') return startKafka();
  if (name === 'CLICKHOUSE_URL') {
    const container = await new GenericContainer('clickhouse/clickhouse-server:latest').withExposedPorts(8123).withWaitStrategy(Wait.forHttp('/ping', 8123)).start();
    return `http://${container.getHost()}:${container.getMappedPort(8123)}`;
  }
  const redis = await new GenericContainer('redis:7').withExposedPorts(6379).withWaitStrategy(Wait.forLogMessage('Ready to accept connections')).start();
  return `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`;
}

/** Kafka advertises its own address, so the host port is chosen first and bound explicitly. */
async function startKafka(): Promise<string> {
  const hostPort = await freePort();
  const container: StartedTestContainer = await new GenericContainer('apache/kafka:3.9.1')
    .withExposedPorts({ container: 19092, host: hostPort })
    .withEnvironment({
      KAFKA_NODE_ID: '1',
      KAFKA_PROCESS_ROLES: 'broker,controller',
      KAFKA_LISTENERS: 'PLAINTEXT://:19092,CONTROLLER://:9093',
      KAFKA_ADVERTISED_LISTENERS: `PLAINTEXT://127.0.0.1:${hostPort}`,
      KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
      KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
      KAFKA_CONTROLLER_QUORUM_VOTERS: '1@localhost:9093',
      KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
      KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
      KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
      KAFKA_NUM_PARTITIONS: '3',
    })
    .withWaitStrategy(Wait.forListeningPorts())
    .start();
  return `127.0.0.1:${container.getMappedPort(19092)}`;
}

