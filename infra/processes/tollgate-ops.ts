/**
 * The composition root of the operators' commands that read the engines directly (the other
 * `tollgate` commands call the admin API):
 *
 *   tollgate events [--topic requests|usage|failovers|config|<full name>]... [--from ISO] [--to ISO]
 *                   [--request-id ID] [--key-id ID] [--type NAME]... [--follow]
 *   tollgate replay [--database NAME] [--keep]
 *
 * It parses argv (node:util parseArgs: https://nodejs.org/api/util.html#utilparseargsconfig),
 * opens the adapters the environment selects (infra/open-adapters.ts: KAFKA_BROKERS,
 * CLICKHOUSE_URL, CLICKHOUSE_DATABASE, TOLLGATE_DATA_DIR, TOLLGATE_TOPIC_PREFIX) and hands them to
 * consumers/audit/. Afterwards it removes the consumer groups the command made: the offsets folder
 * of the file log, or the Kafka group (admin DeleteGroups). Exit codes: 0 ok, 1 differences found
 * or an engine failed, 2 usage error, 130 interrupted before the end.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { EVENT_TYPES, type EventFilter } from '../../consumers/audit/event-filter.ts';
import { printEvents } from '../../consumers/audit/print-events.ts';
import { replayTraffic } from '../../consumers/audit/replay-traffic.ts';
import type { AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import { CONFIG_TOPIC } from '../../schemas/control-plane/control-plane-events.ts';
import type { EventLog } from '../../schemas/event-log/event-log.ts';
import { TOPICS } from '../../schemas/topics.ts';
import { isSafeLogName } from '../event-log/is-safe-log-name.ts';
import { engineSettingsFromEnv, openAnalyticsStore, openEventLog, type EngineSettings } from '../open-adapters.ts';
import { createMemoryStateStore } from '../state-store/memory/memory-state-store.ts';

/** Where a command reads its environment and writes its lines. */
export interface OpsIo {
  readonly env: NodeJS.ProcessEnv;
  /** One line of output (no trailing newline). */
  readonly stdout: (line: string) => void;
  /** One line of diagnostics (no trailing newline). */
  readonly stderr: (line: string) => void;
  /** Stops `events --follow` and interrupts a run; default: SIGINT or SIGTERM. */
  readonly signal?: AbortSignal;
}

const USAGE = {
  events: 'usage: tollgate events [--topic requests|usage|failovers|config|<full name>]... [--from ISO] [--to ISO] [--request-id ID] [--key-id ID] [--type NAME]... [--follow]',
  replay: 'usage: tollgate replay [--database NAME] [--keep]',
} as const;

const SHORT_TOPICS: Readonly<Record<string, string>> = { requests: TOPICS.requests, usage: TOPICS.usage, failovers: TOPICS.failovers, config: CONFIG_TOPIC };
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** ISO 8601 date or date-time; a date-time without an offset is read as UTC. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** A usage error: its message names the flag; exit code 2. */
class UsageError extends Error {}

/**
 * Runs `events` or `replay`; resolves with the exit code, or undefined when argv names another
 * command (the caller then runs the admin CLI). Never throws: failures are written to stderr.
 */
export async function runOpsCommand(argv: ReadonlyArray<string>, io: OpsIo): Promise<number | undefined> {
  const [command, ...args] = argv;
  if (command !== 'events' && command !== 'replay') return undefined;
  try {
    return command === 'events' ? await runEvents(args, io) : await runReplay(args, io);
  } catch (error) {
    if (error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr(`tollgate ${command}: ${(error as Error).message}`);
      io.stderr(USAGE[command]);
      return 2;
    }
    io.stderr(`tollgate ${command} failed: ${(error as Error).message}`);
    return 1;
  }
}

async function runEvents(args: ReadonlyArray<string>, io: OpsIo): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      topic: { type: 'string', multiple: true },
      from: { type: 'string' },
      to: { type: 'string' },
      'request-id': { type: 'string' },
      'key-id': { type: 'string' },
      type: { type: 'string', multiple: true },
      follow: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return (io.stdout(USAGE.events), 0);
  const topics = (values.topic ?? Object.keys(SHORT_TOPICS)).map(topicName);
  const filter = eventFilter(values);
  const settings = engineSettings(io);
  const log = await openOpsEventLog(settings);
  const groupId = `tollgate.events.${randomBytes(6).toString('hex')}`;
  const stop = stopSignal(io);
  let subscribed = true; // until printEvents says otherwise (also when it failed)
  try {
    const result = await printEvents({ eventLog: log.eventLog, topics, filter, groupId, follow: values.follow, signal: stop.signal, stdout: io.stdout, stderr: io.stderr });
    subscribed = result.subscribed;
    return result.interrupted ? 130 : 0;
  } finally {
    stop.release();
    await log.close();
    if (subscribed) await forgetConsumerGroups(settings, [groupId], io);
  }
}

async function runReplay(args: ReadonlyArray<string>, io: OpsIo): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: { database: { type: 'string' }, keep: { type: 'boolean', default: false }, help: { type: 'boolean', short: 'h', default: false } },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return (io.stdout(USAGE.replay), 0);
  const settings = engineSettings(io);
  const liveDatabase = settings.clickhouseDatabase ?? (settings.clickhouseUrl ? 'tollgate' : 'default');
  const replayDatabase = values.database ?? `${liveDatabase}_replay`;
  if (!IDENTIFIER.test(replayDatabase)) throw new UsageError(`--database: not a plain identifier (letters, digits, "_"): ${JSON.stringify(replayDatabase)}`);
  if (replayDatabase === liveDatabase) throw new UsageError(`--database: ${replayDatabase} is the live database; the replay needs another one`);
  const stores = await openReplayStores(settings, replayDatabase);
  const log = await openOpsEventLog(settings);
  const state = createMemoryStateStore();
  const replayId = randomBytes(6).toString('hex');
  const groupPrefix = `tollgate.replay.${replayId}.`;
  const configFollowerId = `replay-${replayId}`;
  const stop = stopSignal(io);
  try {
    io.stderr(`replaying ${TOPICS.requests} and ${TOPICS.usage} into database ${replayDatabase}, reconciling with ${liveDatabase}`);
    const { reconciliation } = await replayTraffic({ eventLog: log.eventLog, ...stores, liveDatabase, replayDatabase, keep: values.keep, state, groupPrefix, configFollowerId, log: pipelineLog(io), signal: stop.signal, progress: io.stderr });
    if (!reconciliation) return (io.stderr('replay interrupted before the end: nothing reconciled'), 130);
    for (const line of reconciliation.summary) io.stdout(line);
    for (const difference of reconciliation.differences) io.stdout(difference.text);
    const count = reconciliation.differences.length;
    io.stdout(`reconciliation: ${count} difference${count === 1 ? '' : 's'}`);
    return count === 0 ? 0 : 1;
  } finally {
    stop.release();
    await log.close();
    await forgetConsumerGroups(settings, [...['ledger', 'billing'].map((name) => groupPrefix + name), `${CONFIG_TOPIC}.${configFollowerId}`], io);
    await state.close();
    await stores.replayAnalytics.close();
    if (stores.adminAnalytics !== stores.replayAnalytics) await stores.adminAnalytics.close();
  }
}

/**
 * The event log for an ops command, and its idempotent close. Kafka: the adapter's publish spool
 * goes to a temporary directory of its own (removed on close), never the data dir's `spool/`,
 * which belongs to the gateway of this host (one process per spool; an ops command publishes at
 * most a config-topic sync marker). File log: the data dir itself; reading is safe beside a
 * running gateway, but the marker a replay appends makes a second writer, one more reason the
 * gateway is stopped while a replay runs in embedded mode.
 */
async function openOpsEventLog(settings: EngineSettings): Promise<{ eventLog: EventLog; close: () => Promise<void> }> {
  const kafka = Boolean(settings.kafkaBrokers && settings.kafkaBrokers.length > 0);
  const spoolParent = kafka ? await mkdtemp(join(tmpdir(), 'tollgate-ops-')) : undefined;
  const eventLog = openEventLog(spoolParent ? { ...settings, dataDir: spoolParent } : settings);
  let closing: Promise<void> | undefined;
  return {
    eventLog,
    close: () =>
      (closing ??= (async () => {
        await eventLog.close();
        if (spoolParent) await rm(spoolParent, { recursive: true, force: true });
      })()),
  };
}

/**
 * The replay's analytics stores. Server: one on the replay database, one on the live database.
 * Embedded: chdb allows one open data directory per process, so ONE store on the replay database
 * serves both (the live tables are read by qualified name, `default.<table>`), and a gateway
 * holding the data directory makes the open fail: the message says to stop it.
 */
async function openReplayStores(settings: EngineSettings, replayDatabase: string): Promise<{ replayAnalytics: AnalyticsStore; adminAnalytics: AnalyticsStore }> {
  const replayAnalytics = openAnalyticsStore({ ...settings, clickhouseDatabase: replayDatabase });
  const adminAnalytics = settings.clickhouseUrl ? openAnalyticsStore(settings) : replayAnalytics;
  try {
    await adminAnalytics.version();
  } catch (error) {
    await replayAnalytics.close();
    if (adminAnalytics !== replayAnalytics) await adminAnalytics.close();
    const message = (error as Error).message;
    // chdb refuses a data directory another process holds ("Cannot lock file …/status"), and says so only on stderr.
    if (!settings.clickhouseUrl && /cannot open chdb|lock/i.test(message)) throw new Error(`${message}\nIs a gateway (or \`npm run consumers\`) running on ${settings.dataDir}? chdb allows one process per data directory: stop it while the replay runs.`);
    throw error;
  }
  return { replayAnalytics, adminAnalytics };
}

/** `requests` → `tollgate.requests`; a full name is checked against the log's name rules. */
function topicName(value: string): string {
  const name = SHORT_TOPICS[value] ?? value;
  if (!isSafeLogName(name)) throw new UsageError(`--topic: not a topic name: ${JSON.stringify(value)} (use requests, usage, failovers, config or a full name of [A-Za-z0-9._-])`);
  return name;
}

function eventFilter(values: { from?: string; to?: string; 'request-id'?: string; 'key-id'?: string; type?: string[] }): EventFilter {
  const fromMs = values.from === undefined ? undefined : isoToMs('--from', values.from);
  const toMs = values.to === undefined ? undefined : isoToMs('--to', values.to);
  if (fromMs !== undefined && toMs !== undefined && fromMs >= toMs) throw new UsageError(`--from (${values.from}) must be before --to (${values.to})`);
  const unknown = values.type?.find((type) => !EVENT_TYPES.includes(type));
  if (unknown !== undefined) throw new UsageError(`--type: unknown event type ${JSON.stringify(unknown)} (one of ${EVENT_TYPES.join(', ')})`);
  return {
    ...(fromMs === undefined ? {} : { fromMs }),
    ...(toMs === undefined ? {} : { toMs }),
    ...(values['request-id'] === undefined ? {} : { requestId: values['request-id'] }),
    ...(values['key-id'] === undefined ? {} : { keyId: values['key-id'] }),
    ...(values.type ? { types: new Set(values.type) } : {}),
  };
}

/** ISO 8601 text → ms since epoch; a date-time without an offset is UTC. @throws UsageError naming `flag`. */
function isoToMs(flag: string, text: string): number {
  const match = ISO_DATE_TIME.exec(text);
  const ms = match ? Date.parse(text.includes('T') && !match[1] ? `${text}Z` : text) : Number.NaN;
  if (Number.isNaN(ms)) throw new UsageError(`${flag}: not an ISO 8601 date or date-time: ${JSON.stringify(text)} (e.g. 2025-01-31 or 2025-01-31T12:00:00Z)`);
  return ms;
}

function engineSettings(io: OpsIo): EngineSettings {
  return { ...engineSettingsFromEnv(io.env), log: (level, message, extra) => void (level === 'warn' || level === 'error' ? io.stderr(`${level}: ${message}${extra ? ` ${JSON.stringify(extra)}` : ''}`) : undefined) };
}

function pipelineLog(io: OpsIo): NonNullable<EngineSettings['log']> {
  return (level, message, extra) => {
    if (level === 'warn' || level === 'error') io.stderr(`replay ${level}: ${message}${extra ? ` ${JSON.stringify(extra)}` : ''}`);
  };
}

/** `io.signal`, or one aborted by SIGINT/SIGTERM until `release()`. */
function stopSignal(io: OpsIo): { signal: AbortSignal; release: () => void } {
  if (io.signal) return { signal: io.signal, release: () => {} };
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  process.once('SIGINT', abort);
  process.once('SIGTERM', abort);
  return {
    signal: controller.signal,
    release: () => {
      process.off('SIGINT', abort);
      process.off('SIGTERM', abort);
    },
  };
}

/**
 * Removes what the command's consumer groups left behind (ids without the topic prefix; the
 * prefixed event log stores them with it): the file log's `offsets/<group>` folders, or the
 * Kafka groups (admin.deleteGroups: https://kafka.js.org/docs/admin, "Delete groups"). A group
 * that never existed is fine; one Kafka refuses to delete is reported and left (it holds only
 * offsets and expires after the broker's offsets.retention.minutes).
 */
async function forgetConsumerGroups(settings: EngineSettings, groupIds: ReadonlyArray<string>, io: OpsIo): Promise<void> {
  const stored = groupIds.map((groupId) => `${settings.topicPrefix ?? ''}${groupId}`);
  if (!settings.kafkaBrokers || settings.kafkaBrokers.length === 0) {
    for (const groupId of stored) await rm(join(settings.dataDir, 'offsets', groupId), { recursive: true, force: true });
    return;
  }
  const admin = new Kafka({ clientId: 'tollgate-ops', brokers: [...settings.kafkaBrokers], logLevel: logLevel.NOTHING }).admin();
  try {
    await admin.connect();
    await admin.deleteGroups(stored);
  } catch (error) {
    // A group that never committed an offset (the command failed early) does not exist: nothing to remove.
    const failures = (error as { groups?: Array<{ error?: { type?: string } }> }).groups;
    if (failures && failures.every((group) => group.error?.type === 'GROUP_ID_NOT_FOUND')) return;
    io.stderr(`warning: consumer group(s) ${stored.join(', ')} not deleted (${(error as Error).message}); they hold only offsets and expire with the broker's offsets.retention.minutes`);
  } finally {
    await admin.disconnect().catch(() => {});
  }
}
