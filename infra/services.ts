/**
 * Starts and stops Tollgate's production engines as plain processes on loopback — no Docker:
 * Apache Kafka 3.9 (jars from Maven Central, KRaft single node, the machine's Java), ClickHouse
 * (Debian's `clickhouse-server`) and Redis (Debian's `redis-server`).
 *
 *   npm run infra:up     start what is not running (a second call finds them running); prints the env
 *   npm run infra:down   stop what this script started, by the PIDs it recorded
 *   npm run infra:env    print KAFKA_BROKERS, CLICKHOUSE_URL and REDIS_URL
 *
 * State (PID files, data, logs, Kafka jars) lives in TOLLGATE_INFRA_DIR (default `.tollgate/infra`).
 * Ports: TOLLGATE_INFRA_KAFKA_PORT (19092, controller +1), TOLLGATE_INFRA_CLICKHOUSE_PORT (18123,
 * native 19000), TOLLGATE_INFRA_REDIS_PORT (16379).
 */
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const INFRA = dirname(fileURLToPath(import.meta.url));
const STATE = resolve(process.env.TOLLGATE_INFRA_DIR ?? join(INFRA, '..', '.tollgate', 'infra'));
const PORTS = {
  kafka: Number(process.env.TOLLGATE_INFRA_KAFKA_PORT ?? 19092),
  clickhouse: Number(process.env.TOLLGATE_INFRA_CLICKHOUSE_PORT ?? 18123),
  clickhouseNative: Number(process.env.TOLLGATE_INFRA_CLICKHOUSE_NATIVE_PORT ?? 19000),
  redis: Number(process.env.TOLLGATE_INFRA_REDIS_PORT ?? 16379),
};

/** One engine this script manages. */
interface Service {
  readonly name: 'redis' | 'clickhouse' | 'kafka';
  readonly port: number;
  /** How long to wait for it to accept connections, ms. */
  readonly startTimeoutMs: number;
  /** Prepares files and returns the command line to run in the foreground. */
  prepare(): { command: string; args: string[] };
}

function render(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{\{(\w+)\}\}/g, (_, key: string) => String(values[key] ?? ''));
}

function requireBinary(name: string, hint: string): string {
  const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).stdout.trim();
  if (!found) throw new Error(`${name} not found on PATH: ${hint}`);
  return found;
}

const SERVICES: Service[] = [
  {
    name: 'redis',
    port: PORTS.redis,
    startTimeoutMs: 15_000,
    prepare: () => {
      const bin = requireBinary('redis-server', 'install it with `apt-get install -y redis-server`');
      return { command: bin, args: ['--port', String(PORTS.redis), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--dir', join(STATE, 'redis')] };
    },
  },
  {
    name: 'clickhouse',
    port: PORTS.clickhouse,
    startTimeoutMs: 60_000,
    prepare: () => {
      const bin = requireBinary('clickhouse-server', 'install it with `apt-get install -y clickhouse-server`');
      const dir = join(STATE, 'clickhouse');
      for (const sub of ['log', 'data', 'tmp', 'user_files', 'format_schemas']) mkdirSync(join(dir, sub), { recursive: true });
      const template = readFileSync(join(INFRA, 'clickhouse', 'config.xml.template'), 'utf8');
      writeFileSync(join(dir, 'config.xml'), render(template, { DIR: dir, HTTP_PORT: PORTS.clickhouse, TCP_PORT: PORTS.clickhouseNative }));
      writeFileSync(join(dir, 'users.xml'), readFileSync(join(INFRA, 'clickhouse', 'users.xml')));
      return { command: bin, args: [`--config-file=${join(dir, 'config.xml')}`] };
    },
  },
  {
    name: 'kafka',
    port: PORTS.kafka,
    startTimeoutMs: 90_000,
    prepare: () => {
      const java = requireBinary('java', 'install a JDK 17 (Debian: openjdk-17-jre-headless)');
      const libs = ensureKafkaJars();
      const dir = join(STATE, 'kafka');
      mkdirSync(join(dir, 'data'), { recursive: true });
      const properties = join(dir, 'server.properties');
      writeFileSync(properties, render(readFileSync(join(INFRA, 'kafka', 'server.properties.template'), 'utf8'), { DIR: dir, PORT: PORTS.kafka, CONTROLLER_PORT: PORTS.kafka + 1 }));
      const classpath = `${libs}/*`;
      const log4j = `-Dlog4j.configuration=file:${join(INFRA, 'kafka', 'log4j.properties')}`;
      if (!existsSync(join(dir, 'data', 'meta.properties'))) {
        const clusterId = randomBytes(16).toString('base64url');
        const format = spawnSync(java, ['-cp', classpath, log4j, 'kafka.tools.StorageTool', 'format', '-t', clusterId, '-c', properties], { encoding: 'utf8' });
        if (format.status !== 0) throw new Error(`kafka storage format failed: ${format.stderr || format.stdout}`);
      }
      return { command: java, args: ['-Xms256m', '-Xmx768m', '-cp', classpath, log4j, 'kafka.Kafka', properties] };
    },
  },
];

/** Downloads the Kafka broker's jars from Maven Central once (infra/kafka/pom.xml pins the version). */
function ensureKafkaJars(): string {
  const libs = join(STATE, 'kafka-libs');
  if (existsSync(join(libs, '.complete'))) return libs;
  requireBinary('mvn', 'install Maven (Debian: maven)');
  const result = spawnSync('mvn', ['-q', '-B', '-f', join(INFRA, 'kafka', 'pom.xml'), 'dependency:copy-dependencies', `-DoutputDirectory=${libs}`, '-DincludeScope=runtime'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  if (result.status !== 0) throw new Error(`downloading Kafka jars failed:\n${result.stdout}\n${result.stderr}`);
  writeFileSync(join(libs, '.complete'), new Date().toISOString());
  return libs;
}

const pidFile = (service: Service): string => join(STATE, `${service.name}.pid`);

function recordedPid(service: Service): number | undefined {
  if (!existsSync(pidFile(service))) return undefined;
  const pid = Number(readFileSync(pidFile(service), 'utf8').trim());
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
    socket.once('connect', () => {
      socket.destroy();
      resolvePort(true);
    });
    socket.once('error', () => resolvePort(false));
  });
}

async function waitForPort(service: Service, pid: number): Promise<void> {
  const deadline = Date.now() + service.startTimeoutMs;
  while (Date.now() < deadline) {
    if (await portOpen(service.port)) return;
    if (!isAlive(pid)) throw new Error(`${service.name} exited during start-up; see ${join(STATE, `${service.name}.log`)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${service.name} did not open port ${service.port} within ${service.startTimeoutMs} ms; see ${join(STATE, `${service.name}.log`)}`);
}

async function up(service: Service): Promise<void> {
  const pid = recordedPid(service);
  if (pid !== undefined && isAlive(pid) && (await portOpen(service.port))) {
    process.stderr.write(`${service.name}: already running (pid ${pid}, port ${service.port})\n`);
    return;
  }
  if (await portOpen(service.port)) throw new Error(`${service.name}: port ${service.port} is taken by a process this script did not start`);
  mkdirSync(join(STATE, service.name), { recursive: true });
  const { command, args } = service.prepare();
  const log = openSync(join(STATE, `${service.name}.log`), 'a');
  const child = spawn(command, args, { detached: true, stdio: ['ignore', log, log], cwd: join(STATE, service.name) });
  if (child.pid === undefined) throw new Error(`${service.name}: failed to start ${command}`);
  child.unref();
  writeFileSync(pidFile(service), String(child.pid));
  await waitForPort(service, child.pid);
  process.stderr.write(`${service.name}: started (pid ${child.pid}, port ${service.port})\n`);
}

async function down(service: Service): Promise<void> {
  const pid = recordedPid(service);
  if (pid === undefined) return;
  if (isAlive(pid)) {
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + 20_000;
    while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
    process.stderr.write(`${service.name}: stopped (pid ${pid})\n`);
  }
  rmSync(pidFile(service), { force: true });
}

/** The environment that points Tollgate at these engines. */
export function infraEnvironment(): Record<'KAFKA_BROKERS' | 'CLICKHOUSE_URL' | 'REDIS_URL', string> {
  return {
    KAFKA_BROKERS: `127.0.0.1:${PORTS.kafka}`,
    CLICKHOUSE_URL: `http://127.0.0.1:${PORTS.clickhouse}`,
    REDIS_URL: `redis://127.0.0.1:${PORTS.redis}`,
  };
}

function printEnvironment(): void {
  for (const [name, value] of Object.entries(infraEnvironment())) process.stdout.write(`export ${name}=${value}\n`);
}

/** Runs `up`/`down`/`env` for all services or the ones named after the verb. */
export async function runInfraCommand(verb: string, names: string[]): Promise<void> {
  const selected = names.length > 0 ? SERVICES.filter((s) => names.includes(s.name)) : SERVICES;
  mkdirSync(STATE, { recursive: true });
  if (verb === 'up') {
    for (const service of selected) await up(service);
    printEnvironment();
  } else if (verb === 'down') {
    for (const service of [...selected].reverse()) await down(service);
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
