/**
 * Starts and stops Tollgate's production engines as plain processes on loopback — no Docker:
 * Apache Kafka 4 (jars from Maven Central, KRaft single node, the machine's Java 17+), ClickHouse
 * (Debian's `clickhouse-server`) and Redis (Debian's `redis-server`).
 *
 *   npm run infra:up     start what is not running (a second call finds them running); prints the env
 *   npm run infra:down   stop what this script started, by the PIDs it recorded
 *   npm run infra:env    print KAFKA_BROKERS, CLICKHOUSE_URL and REDIS_URL
 *
 * The command line reads its layout from the environment (layoutFromEnvironment): state (PID files,
 * data, logs) in TOLLGATE_INFRA_DIR (default `.tollgate/infra`); ports TOLLGATE_INFRA_KAFKA_PORT
 * (19092), TOLLGATE_INFRA_KAFKA_CONTROLLER_PORT (Kafka's + 1), TOLLGATE_INFRA_CLICKHOUSE_PORT (18123),
 * TOLLGATE_INFRA_CLICKHOUSE_NATIVE_PORT (19000), TOLLGATE_INFRA_REDIS_PORT (16379). Kafka's jars are
 * cached once per Kafka version in TOLLGATE_KAFKA_LIBS_DIR (default `~/.cache/tollgate/kafka-<version>`),
 * shared by every layout. Callers such as the test setup pass their own layout (free ports, a
 * state directory per run) to startEngines/stopEngines and hand layoutVariables() to children.
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ephemeralRedisServerArgs } from './redis-server-args.ts';

const INFRA = dirname(fileURLToPath(import.meta.url));

/** The engines this script manages. */
export type EngineName = 'redis' | 'clickhouse' | 'kafka';
export const ENGINE_NAMES: readonly EngineName[] = ['redis', 'clickhouse', 'kafka'];

/** Where one set of engines keeps its files and which loopback ports it listens on. */
export interface EngineLayout {
  /** PID files, data and logs of this set (absolute path). */
  readonly stateDir: string;
  /** Kafka's jars, downloaded once by Maven and shared by every set (absolute path). */
  readonly kafkaLibsDir: string;
  readonly ports: {
    readonly kafka: number;
    readonly kafkaController: number;
    readonly clickhouse: number;
    readonly clickhouseNative: number;
    readonly redis: number;
  };
}

/** The environment that points Tollgate at a set of engines. */
export type EngineUrls = Record<'KAFKA_BROKERS' | 'CLICKHOUSE_URL' | 'REDIS_URL', string>;

/** The Kafka version infra/kafka/pom.xml pins, e.g. `4.1.2`. */
export function pinnedKafkaVersion(): string {
  const pom = readFileSync(join(INFRA, 'kafka', 'pom.xml'), 'utf8');
  const version = /<artifactId>kafka_2\.13<\/artifactId><version>([^<]+)<\/version>/.exec(pom)?.[1];
  if (!version) throw new Error('infra/kafka/pom.xml does not pin org.apache.kafka:kafka_2.13');
  return version;
}

/** The layout the command line uses: TOLLGATE_INFRA_* variables, else the developer defaults. */
export function layoutFromEnvironment(env: NodeJS.ProcessEnv = process.env): EngineLayout {
  const kafka = Number(env.TOLLGATE_INFRA_KAFKA_PORT ?? 19092);
  const cache = env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  return {
    stateDir: resolve(env.TOLLGATE_INFRA_DIR ?? join(INFRA, '..', '.tollgate', 'infra')),
    kafkaLibsDir: resolve(env.TOLLGATE_KAFKA_LIBS_DIR ?? join(cache, 'tollgate', `kafka-${pinnedKafkaVersion()}`)),
    ports: {
      kafka,
      kafkaController: Number(env.TOLLGATE_INFRA_KAFKA_CONTROLLER_PORT ?? kafka + 1),
      clickhouse: Number(env.TOLLGATE_INFRA_CLICKHOUSE_PORT ?? 18123),
      clickhouseNative: Number(env.TOLLGATE_INFRA_CLICKHOUSE_NATIVE_PORT ?? 19000),
      redis: Number(env.TOLLGATE_INFRA_REDIS_PORT ?? 16379),
    },
  };
}

/** The TOLLGATE_INFRA_* variables that make a child `services.ts` act on this layout. */
export function layoutVariables(layout: EngineLayout): Record<string, string> {
  return {
    TOLLGATE_INFRA_DIR: layout.stateDir,
    TOLLGATE_KAFKA_LIBS_DIR: layout.kafkaLibsDir,
    TOLLGATE_INFRA_KAFKA_PORT: String(layout.ports.kafka),
    TOLLGATE_INFRA_KAFKA_CONTROLLER_PORT: String(layout.ports.kafkaController),
    TOLLGATE_INFRA_CLICKHOUSE_PORT: String(layout.ports.clickhouse),
    TOLLGATE_INFRA_CLICKHOUSE_NATIVE_PORT: String(layout.ports.clickhouseNative),
    TOLLGATE_INFRA_REDIS_PORT: String(layout.ports.redis),
  };
}

/** KAFKA_BROKERS, CLICKHOUSE_URL and REDIS_URL of a layout (default: the command line's). */
export function infraEnvironment(layout: EngineLayout = layoutFromEnvironment()): EngineUrls {
  return {
    KAFKA_BROKERS: `127.0.0.1:${layout.ports.kafka}`,
    CLICKHOUSE_URL: `http://127.0.0.1:${layout.ports.clickhouse}`,
    REDIS_URL: `redis://127.0.0.1:${layout.ports.redis}`,
  };
}

/** What each engine needs on PATH, and the Debian package that provides it. */
const PREREQUISITES: Record<EngineName, ReadonlyArray<readonly [binary: string, debianPackage: string]>> = {
  redis: [['redis-server', 'redis-server']],
  clickhouse: [['clickhouse-server', 'clickhouse-server']],
  kafka: [
    ['java', 'openjdk-17-jre-headless'],
    ['mvn', 'maven'],
  ],
};

const PREREQUISITES_BY_BINARY = new Map(Object.values(PREREQUISITES).flat());
const onPath = (binary: string): string =>
  spawnSync('sh', ['-c', `command -v ${binary}`], { encoding: 'utf8' }).stdout.trim();

/**
 * The Debian packages missing for these engines (empty when every binary is on PATH). Maven is
 * not needed once the layout's Kafka jars are cached.
 */
export function missingPackages(
  names: readonly EngineName[],
  layout: EngineLayout = layoutFromEnvironment(),
): string[] {
  const jarsCached = existsSync(join(layout.kafkaLibsDir, '.complete'));
  const needed = (binary: string): boolean => !(binary === 'mvn' && jarsCached) && !onPath(binary);
  return names.flatMap((name) =>
    PREREQUISITES[name].filter(([binary]) => needed(binary)).map(([, debianPackage]) => debianPackage),
  );
}

function requireBinary(binary: string): string {
  const found = onPath(binary);
  if (!found)
    throw new Error(
      `${binary} not found on PATH: install it (Debian: \`apt-get install -y ${PREREQUISITES_BY_BINARY.get(binary) ?? binary}\`)`,
    );
  return found;
}

function render(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, key: string) => String(values[key] ?? ''));
}

/** Writes the engine's files under the layout's state dir and returns the command line to run in the foreground. */
type Prepare = (layout: EngineLayout) => { command: string; args: string[] };

const PREPARE: Record<EngineName, Prepare> = {
  redis: (layout) => ({
    command: requireBinary('redis-server'),
    args: ephemeralRedisServerArgs('127.0.0.1', layout.ports.redis, join(layout.stateDir, 'redis')),
  }),
  clickhouse: (layout) => {
    const command = requireBinary('clickhouse-server');
    const dir = join(layout.stateDir, 'clickhouse');
    for (const sub of ['log', 'data', 'tmp', 'user_files', 'format_schemas'])
      mkdirSync(join(dir, sub), { recursive: true });
    const template = readFileSync(join(INFRA, 'clickhouse', 'config.xml.template'), 'utf8');
    writeFileSync(
      join(dir, 'config.xml'),
      render(template, { DIR: dir, HTTP_PORT: layout.ports.clickhouse, TCP_PORT: layout.ports.clickhouseNative }),
    );
    writeFileSync(join(dir, 'users.xml'), readFileSync(join(INFRA, 'clickhouse', 'users.xml')));
    return { command, args: [`--config-file=${join(dir, 'config.xml')}`] };
  },
  kafka: prepareKafka,
};

/**
 * Kafka 4 in KRaft mode: the storage is formatted once (`kafka.tools.StorageTool format` with a
 * cluster id and the static controller.quorum.voters of server.properties), logging is log4j2.
 * See https://kafka.apache.org/documentation/#kraft_storage and #upgrade_servers_400_notable.
 */
function prepareKafka(layout: EngineLayout): { command: string; args: string[] } {
  const java = requireBinary('java');
  const classpath = `${ensureKafkaJars(layout.kafkaLibsDir)}/*`;
  const dir = join(layout.stateDir, 'kafka');
  mkdirSync(join(dir, 'data'), { recursive: true });
  const properties = join(dir, 'server.properties');
  const template = readFileSync(join(INFRA, 'kafka', 'server.properties.template'), 'utf8');
  writeFileSync(
    properties,
    render(template, { DIR: dir, PORT: layout.ports.kafka, CONTROLLER_PORT: layout.ports.kafkaController }),
  );
  const log4j = `-Dlog4j2.configurationFile=${join(INFRA, 'kafka', 'log4j2.xml')}`;
  if (!existsSync(join(dir, 'data', 'meta.properties'))) {
    const clusterId = kafkaClusterId();
    const format = spawnSync(
      java,
      ['-cp', classpath, log4j, 'kafka.tools.StorageTool', 'format', '--cluster-id', clusterId, '--config', properties],
      { encoding: 'utf8' },
    );
    if (format.status !== 0) throw new Error(`kafka storage format failed: ${format.stderr || format.stdout}`);
  }
  return { command: java, args: ['-Xms256m', '-Xmx768m', '-cp', classpath, log4j, 'kafka.Kafka', properties] };
}

/** A random KRaft cluster id (16 bytes, base64url); one starting with '-' would read as an option, as Kafka's own Uuid.randomUuid avoids. */
function kafkaClusterId(): string {
  for (;;) {
    const id = randomBytes(16).toString('base64url');
    if (!id.startsWith('-')) return id;
  }
}

/**
 * Copies the broker's jars (infra/kafka/pom.xml) from Maven into `libs` once: into a temporary
 * sibling first, renamed into place, so runs starting at the same time never see half a copy.
 * @throws Error when Maven is missing or the download fails
 */
function ensureKafkaJars(libs: string): string {
  if (existsSync(join(libs, '.complete'))) return libs;
  const mvn = requireBinary('mvn');
  const partial = `${libs}.partial-${process.pid}`;
  const result = spawnSync(
    mvn,
    [
      '-q',
      '-B',
      '-f',
      join(INFRA, 'kafka', 'pom.xml'),
      'dependency:copy-dependencies',
      `-DoutputDirectory=${partial}`,
      '-DincludeScope=runtime',
    ],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] },
  );
  if (result.status !== 0) throw new Error(`downloading Kafka jars failed:\n${result.stdout}\n${result.stderr}`);
  writeFileSync(join(partial, '.complete'), new Date().toISOString());
  mkdirSync(dirname(libs), { recursive: true });
  try {
    renameSync(partial, libs);
  } catch (error) {
    rmSync(partial, { recursive: true, force: true });
    if (!existsSync(join(libs, '.complete'))) throw error;
  }
  return libs;
}

const ENGINE_PORT: Record<EngineName, (layout: EngineLayout) => number> = {
  redis: (l) => l.ports.redis,
  clickhouse: (l) => l.ports.clickhouse,
  kafka: (l) => l.ports.kafka,
};
/** How long each engine may take to accept connections, ms. */
const START_TIMEOUT_MS: Record<EngineName, number> = { redis: 15_000, clickhouse: 60_000, kafka: 90_000 };

const pidFile = (layout: EngineLayout, name: EngineName): string => join(layout.stateDir, `${name}.pid`);
const logFile = (layout: EngineLayout, name: EngineName): string => join(layout.stateDir, `${name}.log`);

function recordedPid(layout: EngineLayout, name: EngineName): number | undefined {
  if (!existsSync(pidFile(layout, name))) return undefined;
  const pid = Number(readFileSync(pidFile(layout, name), 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function portOpen(port: number): Promise<boolean> {
  return new Promise((resolvePort) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => (socket.destroy(), resolvePort(true)));
    socket.once('error', () => resolvePort(false));
  });
}

async function waitForPort(layout: EngineLayout, name: EngineName, pid: number): Promise<void> {
  const port = ENGINE_PORT[name](layout);
  const deadline = Date.now() + START_TIMEOUT_MS[name];
  while (Date.now() < deadline) {
    if (await portOpen(port)) return;
    if (!isAlive(pid)) throw new Error(`${name} exited during start-up; see ${logFile(layout, name)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(
    `${name} did not open port ${port} within ${START_TIMEOUT_MS[name]} ms; see ${logFile(layout, name)}`,
  );
}

/** Starts one engine unless its recorded process runs; returns whether it started one. */
async function up(layout: EngineLayout, name: EngineName): Promise<boolean> {
  const port = ENGINE_PORT[name](layout);
  const pid = recordedPid(layout, name);
  if (pid !== undefined && isAlive(pid) && (await portOpen(port))) {
    process.stderr.write(`${name}: already running (pid ${pid}, port ${port})\n`);
    return false;
  }
  if (await portOpen(port)) throw new Error(`${name}: port ${port} is taken by a process this script did not start`);
  mkdirSync(join(layout.stateDir, name), { recursive: true });
  const { command, args } = PREPARE[name](layout);
  const log = openSync(logFile(layout, name), 'a');
  const child = spawn(command, args, { detached: true, stdio: ['ignore', log, log], cwd: join(layout.stateDir, name) });
  if (child.pid === undefined) throw new Error(`${name}: failed to start ${command}`);
  child.unref();
  writeFileSync(pidFile(layout, name), String(child.pid));
  await waitForPort(layout, name, child.pid);
  process.stderr.write(`${name}: started (pid ${child.pid}, port ${port})\n`);
  return true;
}

/** Stops the engine whose PID this layout recorded (SIGTERM, SIGKILL after 20 s). */
async function down(layout: EngineLayout, name: EngineName): Promise<void> {
  const pid = recordedPid(layout, name);
  if (pid === undefined) return;
  if (isAlive(pid)) {
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 20_000;
    while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    process.stderr.write(`${name}: stopped (pid ${pid})\n`);
  }
  rmSync(pidFile(layout, name), { force: true });
}

/**
 * Starts the named engines of a layout, in order, leaving running ones alone.
 * @returns the engines it started (the ones the caller should stop)
 * @throws Error when a binary is missing, a port is held by another program, or an engine does not come up
 */
export async function startEngines(layout: EngineLayout, names: readonly EngineName[]): Promise<EngineName[]> {
  mkdirSync(layout.stateDir, { recursive: true });
  const started: EngineName[] = [];
  for (const name of names) if (await up(layout, name)) started.push(name);
  return started;
}

/** Stops the named engines of a layout by their recorded PIDs, in reverse order. */
export async function stopEngines(layout: EngineLayout, names: readonly EngineName[]): Promise<void> {
  for (const name of [...names].reverse()) await down(layout, name);
}

/**
 * Kills the named engines of a layout at once (SIGKILL, by recorded PID), synchronously: for a
 * process `exit` handler, where nothing asynchronous runs any more. Their data is not flushed.
 */
export function killEnginesNow(layout: EngineLayout, names: readonly EngineName[]): void {
  for (const name of names) {
    const pid = recordedPid(layout, name);
    if (pid !== undefined && isAlive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(pidFile(layout, name), { force: true });
  }
}

/** Runs `up`/`down`/`env` on the command line's layout, for all engines or the ones named after the verb. */
export async function runInfraCommand(verb: string, names: string[]): Promise<void> {
  const layout = layoutFromEnvironment();
  const selected = names.length > 0 ? ENGINE_NAMES.filter((name) => names.includes(name)) : ENGINE_NAMES;
  const printEnvironment = (): void => {
    for (const [name, value] of Object.entries(infraEnvironment(layout)))
      process.stdout.write(`export ${name}=${value}\n`);
  };
  if (verb === 'up') {
    await startEngines(layout, selected);
    printEnvironment();
  } else if (verb === 'down') {
    await stopEngines(layout, selected);
  } else if (verb === 'env') {
    printEnvironment();
  } else {
    throw new Error(`usage: services.ts up|down|env [redis|clickhouse|kafka …]`);
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runInfraCommand(process.argv[2] ?? '', process.argv.slice(3)).catch((error: unknown) => {
    process.stderr.write(`${(error as Error).message}\n`);
    process.exit(1);
  });
}
