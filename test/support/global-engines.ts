/**
 * vitest globalSetup: gives the run its engines. When KAFKA_BROKERS, CLICKHOUSE_URL and REDIS_URL
 * are all set, those are used. Otherwise the missing ones are started for this run only: as
 * Docker containers when a Docker engine answers, else as local processes through
 * infra/services.ts on free ports with a state directory of their own (Kafka's jars come from
 * the shared cache). Their URLs, and the TOLLGATE_INFRA_* layout the outage tests need to stop
 * and start Kafka, are exported to the workers; teardown stops exactly what was started, by PID
 * (or container id); an engine that is installed but does not start fails the run. When no engine
 * can be had (binaries missing, no Docker) it prints ONE line naming what to install and
 * sets TOLLGATE_TEST_ENGINES_MISSING, which makes the engine suites skip; with CI=true it throws.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { infraEnvironment, layoutFromEnvironment, layoutVariables, missingPackages, startEngines, stopEngines, type EngineLayout, type EngineName as InfraEngine } from '../../infra/services.ts';
import { dockerAnswers, startEngineContainers } from './engine-containers.ts';
import { ENGINES_MISSING_VARIABLE, type EngineName } from './engines.ts';
import { freePorts } from './free-port.ts';
import { warmUpGroupCoordinators } from './kafka-warm-up.ts';

const INFRA_ENGINE: Record<EngineName, InfraEngine> = { REDIS_URL: 'redis', CLICKHOUSE_URL: 'clickhouse', KAFKA_BROKERS: 'kafka' };
const VARIABLES = Object.keys(INFRA_ENGINE) as EngineName[];
const JAVA_NOTE = 'openjdk-17-jre-headless';

type Teardown = () => Promise<void>;

/** A layout for this run: a fresh state directory under the system temp dir, free ports. */
async function runLayout(): Promise<EngineLayout> {
  const [kafka, kafkaController, clickhouse, clickhouseNative, redis] = await freePorts(5);
  return {
    stateDir: mkdtempSync(join(tmpdir(), 'tollgate-test-engines-')),
    kafkaLibsDir: layoutFromEnvironment().kafkaLibsDir,
    ports: { kafka: kafka!, kafkaController: kafkaController!, clickhouse: clickhouse!, clickhouseNative: clickhouseNative!, redis: redis! },
  };
}

/** Prints why the engine suites are skipped and tells the workers; with CI=true it throws instead. */
function engineSuitesSkipped(reason: string): undefined {
  const line = `engine tests skipped: ${reason}`;
  if (process.env.CI === 'true') throw new Error(`${line} (CI=true: the engine tests must run)`);
  process.stderr.write(`${line}\n`);
  process.env[ENGINES_MISSING_VARIABLE] = line;
  return undefined;
}

async function startProcesses(missing: EngineName[]): Promise<Teardown | undefined> {
  const names = missing.map((variable) => INFRA_ENGINE[variable]);
  const packages = missingPackages(names, layoutFromEnvironment());
  if (packages.length > 0) {
    const java = packages.includes(JAVA_NOTE) ? ' (Java 17 or newer)' : '';
    return engineSuitesSkipped(`no Docker engine answers and ${packages.join(', ')} ${packages.length > 1 ? 'are' : 'is'} missing: run \`apt-get install -y ${packages.join(' ')}\`${java}, or start Docker`);
  }
  const layout = await runLayout();
  let started: InfraEngine[] = [];
  const teardown = async (): Promise<void> => {
    await stopEngines(layout, started);
    rmSync(layout.stateDir, { recursive: true, force: true });
  };
  try {
    started = await startEngines(layout, names);
    if (started.includes('kafka')) await warmUpGroupCoordinators([infraEnvironment(layout).KAFKA_BROKERS]);
  } catch (error) {
    started = names;
    await teardown();
    throw error;
  }
  const urls = infraEnvironment(layout);
  for (const variable of missing) process.env[variable] = urls[variable];
  Object.assign(process.env, layoutVariables(layout));
  return teardown;
}

export default async function setup(): Promise<Teardown | undefined> {
  const missing = VARIABLES.filter((variable) => !process.env[variable]?.trim());
  if (missing.length === 0) return undefined;
  if (await dockerAnswers()) {
    const containers = await startEngineContainers(missing);
    Object.assign(process.env, containers.environment);
    if (containers.environment.KAFKA_BROKERS) await warmUpGroupCoordinators(containers.environment.KAFKA_BROKERS.split(','));
    return containers.stop;
  }
  return startProcesses(missing);
}
