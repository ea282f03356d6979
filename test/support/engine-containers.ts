/**
 * The test engines as Docker containers (testcontainers), for machines where a Docker engine
 * answers: one container per engine for the whole vitest run, on host ports Docker picks (Kafka's
 * is chosen first, because Kafka advertises its own address). Kafka's host port is bound
 * explicitly, so stopping and starting its container (kafka-control.ts) keeps the address.
 */
import { GenericContainer, Wait, getContainerRuntimeClient, type StartedTestContainer } from 'testcontainers';
import { pinnedKafkaVersion } from '../../infra/services.ts';
import type { EngineName } from './engines.ts';
import { freePort } from './free-port.ts';

/** The Kafka image the tests run: the version infra/kafka/pom.xml pins. */
export const KAFKA_IMAGE = `apache/kafka:${pinnedKafkaVersion()}`;

/** Set by the global setup to the id of the Kafka container, for the outage tests. */
export const KAFKA_CONTAINER_VARIABLE = 'TOLLGATE_TEST_KAFKA_CONTAINER';

/** Containers started for a run: the variables pointing at them, and how to stop them. */
export interface EngineContainers {
  readonly environment: Record<string, string>;
  stop(): Promise<void>;
}

/** Whether a Docker (or compatible) engine answers testcontainers. */
export async function dockerAnswers(): Promise<boolean> {
  try {
    await getContainerRuntimeClient();
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts a container for each named engine.
 * @throws the testcontainers error when an image cannot be pulled or an engine does not become ready
 */
export async function startEngineContainers(names: readonly EngineName[]): Promise<EngineContainers> {
  const containers: StartedTestContainer[] = [];
  const environment: Record<string, string> = {};
  try {
    if (names.includes('REDIS_URL')) {
      const redis = await new GenericContainer('redis:7')
        .withExposedPorts(6379)
        .withWaitStrategy(Wait.forLogMessage('Ready to accept connections'))
        .start();
      containers.push(redis);
      environment.REDIS_URL = `redis://${redis.getHost()}:${redis.getMappedPort(6379)}`;
    }
    if (names.includes('CLICKHOUSE_URL')) {
      const clickhouse = await new GenericContainer('clickhouse/clickhouse-server:24.8')
        .withExposedPorts(8123)
        .withWaitStrategy(Wait.forHttp('/ping', 8123))
        .start();
      containers.push(clickhouse);
      environment.CLICKHOUSE_URL = `http://${clickhouse.getHost()}:${clickhouse.getMappedPort(8123)}`;
    }
    if (names.includes('KAFKA_BROKERS')) {
      const kafka = await startKafkaContainer();
      containers.push(kafka);
      environment.KAFKA_BROKERS = `127.0.0.1:${kafka.getMappedPort(19092)}`;
      environment[KAFKA_CONTAINER_VARIABLE] = kafka.getId();
    }
  } catch (error) {
    await Promise.allSettled(containers.map((container) => container.stop()));
    throw error;
  }
  return {
    environment,
    stop: async () => void (await Promise.allSettled(containers.map((container) => container.stop()))),
  };
}

/** Single-node KRaft Kafka (https://hub.docker.com/r/apache/kafka, "Using environment variables"). */
async function startKafkaContainer(): Promise<StartedTestContainer> {
  const hostPort = await freePort();
  return new GenericContainer(KAFKA_IMAGE)
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
}
