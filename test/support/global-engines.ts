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
import { constants, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  infraEnvironment,
  killEnginesNow,
  layoutFromEnvironment,
  layoutVariables,
  missingPackages,
  startEngines,
  stopEngines,
  type EngineLayout,
  type EngineName as InfraEngine,
} from '../../infra/services.ts';
import { dockerAnswers, startEngineContainers } from './engine-containers.ts';
import { ENGINES_MISSING_VARIABLE, type EngineName } from './engines.ts';
import { freePorts } from './free-port.ts';
import { warmUpGroupCoordinators } from './kafka-warm-up.ts';

const INFRA_ENGINE: Record<EngineName, InfraEngine> = {
  REDIS_URL: 'redis',
  CLICKHOUSE_URL: 'clickhouse',
  KAFKA_BROKERS: 'kafka',
};
const VARIABLES = Object.keys(INFRA_ENGINE) as EngineName[];
const JAVA_NOTE = 'openjdk-17-jre-headless';
const EXIT_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

type Teardown = () => Promise<void>;

/** A layout for this run: a fresh state directory under the system temp dir, free ports. */
async function runLayout(): Promise<EngineLayout> {
  const [kafka, kafkaController, clickhouse, clickhouseNative, redis] = await freePorts(5);
  return {
    stateDir: mkdtempSync(join(tmpdir(), 'tollgate-test-engines-')),
    kafkaLibsDir: layoutFromEnvironment().kafkaLibsDir,
    ports: {
      kafka: kafka!,
      kafkaController: kafkaController!,
      clickhouse: clickhouse!,
      clickhouseNative: clickhouseNative!,
      redis: redis!,
    },
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

/**
 * Ctrl-C or a kill ends vitest without its teardown: then the layout's engines are killed
 * (SIGKILL by recorded PID) and its directory removed, so they never outlive the run.
 * @returns a function that removes these handlers (for the orderly teardown)
 */
function killOnAbruptExit(layout: EngineLayout, names: readonly InfraEngine[]): () => void {
  const kill = (): void => {
    killEnginesNow(layout, names);
    rmSync(layout.stateDir, { recursive: true, force: true });
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    kill();
    if (process.listenerCount(signal) === 0) process.exit(128 + constants.signals[signal]);
  };
  process.once('exit', kill);
  for (const signal of EXIT_SIGNALS) process.once(signal, onSignal);
  return () => {
    process.off('exit', kill);
    for (const signal of EXIT_SIGNALS) process.off(signal, onSignal);
  };
}

async function startProcesses(missing: EngineName[]): Promise<Teardown | undefined> {
  const names = missing.map((variable) => INFRA_ENGINE[variable]);
  const packages = missingPackages(names, layoutFromEnvironment());
  if (packages.length > 0) {
    const java = packages.includes(JAVA_NOTE) ? ' (Java 17 or newer)' : '';
    return engineSuitesSkipped(
      `no Docker engine answers and ${packages.join(', ')} ${packages.length > 1 ? 'are' : 'is'} missing: run \`apt-get install -y ${packages.join(' ')}\`${java}, or start Docker`,
    );
  }
  // Every engine of this fresh layout is this run's: teardown stops them all by their recorded PIDs.
  const layout = await runLayout();
  const disarm = killOnAbruptExit(layout, names);
  const teardown = async (): Promise<void> => {
    disarm();
    await stopEngines(layout, names);
    rmSync(layout.stateDir, { recursive: true, force: true });
  };
  try {
    await startEngines(layout, names);
    if (names.includes('kafka')) await warmUpGroupCoordinators([infraEnvironment(layout).KAFKA_BROKERS]);
  } catch (error) {
    await teardown();
    throw error;
  }
  const urls = infraEnvironment(layout);
  for (const variable of missing) process.env[variable] = urls[variable];
  Object.assign(process.env, layoutVariables(layout));
  return teardown;
}

/**
 * vitest's global setup hook (see the module comment).
 * @returns the teardown that stops what it started, or undefined when it started nothing
 * @throws Error when an installed engine or a container does not start, or (CI=true) when none can be had
 */
export default async function setup(): Promise<Teardown | undefined> {
  const missing = VARIABLES.filter((variable) => !process.env[variable]?.trim());
  if (missing.length === 0) return undefined;
  if (await dockerAnswers()) {
    const containers = await startEngineContainers(missing);
    Object.assign(process.env, containers.environment);
    if (containers.environment.KAFKA_BROKERS)
      await warmUpGroupCoordinators(containers.environment.KAFKA_BROKERS.split(','));
    return containers.stop;
  }
  return startProcesses(missing);
}
