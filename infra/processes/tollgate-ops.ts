/**
 * The composition root of the operators' commands that read the engines directly (the other
 * `tollgate` commands call the admin API):
 *
 *   tollgate events [--topic requests|usage|failovers|alerts|config|<full name>]... [--from ISO] [--to ISO]
 *                   [--request-id ID] [--key-id ID] [--type NAME]... [--follow]
 *   tollgate replay [--database NAME] [--keep] [--limit N | --details]
 *
 * It parses argv (node:util parseArgs: https://nodejs.org/api/util.html#utilparseargsconfig),
 * opens the adapters the environment selects (infra/open-adapters.ts: KAFKA_BROKERS,
 * CLICKHOUSE_URL, CLICKHOUSE_DATABASE, TOLLGATE_DATA_DIR, TOLLGATE_TOPIC_PREFIX) and hands them to
 * consumers/audit/. Both read the topics without consumer groups (EventLog.read; the replay's
 * pipeline through withGrouplessSubscriptions), so they leave no Kafka group and no offsets folder
 * behind however they stop (infra/event-log/kafka/kafka-read.ts says what a kill -9 leaves, and
 * for how long). Exit codes: 0 ok, 1 differences found or an engine failed, 2 usage error (the
 * message names the bad value and the valid ones), 130 interrupted before the end.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { EVENT_TYPES, type EventFilter } from '../../consumers/audit/event-filter.ts';
import { describeReconciliation } from '../../consumers/audit/describe-reconciliation.ts';
import { printEvents } from '../../consumers/audit/print-events.ts';
import { replayTraffic } from '../../consumers/audit/replay-traffic.ts';
import { CONSUMER_PIPELINE_RUNNERS } from './consumer-pipeline-runners.ts';
import type { AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import type { EventLog } from '../../schemas/event-log/event-log.ts';
import { TOPICS, CONFIG_TOPIC } from '../../schemas/topics.ts';
import { withGrouplessSubscriptions } from '../event-log/groupless-event-log.ts';
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
  events:
    'usage: tollgate events [--topic requests|usage|failovers|alerts|config|<full name>]... [--from ISO] [--to ISO] [--request-id ID] [--key-id ID] [--type NAME]... [--follow]',
  replay: 'usage: tollgate replay [--database NAME] [--keep] [--limit N | --details]',
} as const;

const SHORT_TOPICS: Readonly<Record<string, string>> = {
  requests: TOPICS.requests,
  usage: TOPICS.usage,
  failovers: TOPICS.failovers,
  alerts: TOPICS.alerts,
  config: CONFIG_TOPIC,
};
/** Request ids listed per kind of difference unless `--limit` or `--details` says otherwise. */
const DEFAULT_REQUEST_LIMIT = 20;
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** ISO 8601 date or date-time; a date-time without an offset is read as UTC. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** A usage error: its message names the flag; exit code 2. */
class UsageError extends Error {}

/**
 * Runs `events` or `replay`; resolves with the exit code, or undefined when argv names another
 * command (the caller then runs the admin CLI). Never throws: failures are written to stderr.
 * Usage errors (exit 2): an unknown flag, topic or event type, a malformed or impossible date, a
 * bad `--limit`; the message names the value and what is accepted.
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
  const settings = engineSettings(io);
  const topics = (values.topic ?? Object.keys(SHORT_TOPICS)).map((value) =>
    topicName(value, settings.topicPrefix ?? ''),
  );
  const filter = eventFilter(values);
  const log = await openOpsEventLog(settings);
  const readerName = `tollgate.events.${randomBytes(6).toString('hex')}`;
  const stop = stopSignal(io);
  try {
    const result = await printEvents({
      eventLog: log.eventLog,
      topics,
      filter,
      readerName,
      follow: values.follow,
      signal: stop.signal,
      stdout: io.stdout,
      stderr: io.stderr,
    });
    return result.interrupted ? 130 : 0;
  } finally {
    await log.close();
    stop.release();
  }
}

async function runReplay(args: ReadonlyArray<string>, io: OpsIo): Promise<number> {
  const { values } = parseArgs({
    args: [...args],
    options: {
      database: { type: 'string' },
      keep: { type: 'boolean', default: false },
      limit: { type: 'string' },
      details: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
    },
    strict: true,
    allowPositionals: false,
  });
  if (values.help) return (io.stdout(USAGE.replay), 0);
  const settings = engineSettings(io);
  const liveDatabase = settings.clickhouseDatabase ?? (settings.clickhouseUrl ? 'tollgate' : 'default');
  const replayDatabase = values.database ?? `${liveDatabase}_replay`;
  if (!IDENTIFIER.test(replayDatabase))
    throw new UsageError(
      `--database: not a plain identifier (letters, digits, "_"): ${JSON.stringify(replayDatabase)}`,
    );
  if (replayDatabase === liveDatabase)
    throw new UsageError(`--database: ${replayDatabase} is the live database; the replay needs another one`);
  const requestLimit = requestLimitOf(values);
  const stores = await openReplayStores(settings, replayDatabase);
  const log = await openOpsEventLog(settings);
  const state = createMemoryStateStore();
  const replayId = randomBytes(6).toString('hex');
  const groupPrefix = `tollgate.replay.${replayId}.`;
  const configFollowerId = `replay-${replayId}`;
  const stop = stopSignal(io);
  try {
    io.stderr(
      `replaying ${TOPICS.requests} and ${TOPICS.usage} into database ${replayDatabase}, reconciling with ${liveDatabase}`,
    );
    const eventLog = withGrouplessSubscriptions(log.eventLog);
    const { reconciliation } = await replayTraffic({
      runners: CONSUMER_PIPELINE_RUNNERS,
      eventLog,
      ...stores,
      liveDatabase,
      replayDatabase,
      keep: values.keep,
      state,
      groupPrefix,
      configFollowerId,
      log: pipelineLog(io),
      signal: stop.signal,
      progress: io.stderr,
    });
    if (!reconciliation) return (io.stderr('replay interrupted before the end: nothing reconciled'), 130);
    for (const line of describeReconciliation(reconciliation, requestLimit)) io.stdout(line);
    return reconciliation.differenceCount === 0 ? 0 : 1;
  } finally {
    await log.close();
    stop.release();
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
async function openReplayStores(
  settings: EngineSettings,
  replayDatabase: string,
): Promise<{ replayAnalytics: AnalyticsStore; adminAnalytics: AnalyticsStore }> {
  const replayAnalytics = openAnalyticsStore({ ...settings, clickhouseDatabase: replayDatabase });
  const adminAnalytics = settings.clickhouseUrl ? openAnalyticsStore(settings) : replayAnalytics;
  try {
    await adminAnalytics.version();
  } catch (error) {
    await replayAnalytics.close();
    if (adminAnalytics !== replayAnalytics) await adminAnalytics.close();
    const message = (error as Error).message;
    // chdb refuses a data directory another process holds ("Cannot lock file …/status"), and says so only on stderr.
    if (!settings.clickhouseUrl && /cannot open chdb|lock/i.test(message))
      throw new Error(
        `${message}\nIs a gateway (or \`npm run consumers\`) running on ${settings.dataDir}? chdb allows one process per data directory: stop it while the replay runs.`,
      );
    throw error;
  }
  return { replayAnalytics, adminAnalytics };
}

/**
 * `requests` → `tollgate.requests`; a full name (`tollgate.requests`, or with the deployment's
 * `prefix`, `staging.tollgate.requests`) is taken as it is without the prefix.
 * @throws UsageError naming the value and every accepted name.
 */
function topicName(value: string, prefix: string): string {
  const fullNames = Object.values(SHORT_TOPICS);
  const unprefixed = prefix !== '' && value.startsWith(prefix) ? value.slice(prefix.length) : value;
  const name = SHORT_TOPICS[value] ?? (fullNames.includes(unprefixed) ? unprefixed : undefined);
  if (name === undefined)
    throw new UsageError(
      `--topic: unknown topic ${JSON.stringify(value)} (one of ${[...Object.keys(SHORT_TOPICS), ...fullNames].join(', ')})`,
    );
  return name;
}

/** `--limit N` (a positive integer), `--details` (no limit), else DEFAULT_REQUEST_LIMIT. @throws UsageError */
function requestLimitOf(values: { limit?: string; details?: boolean }): number {
  if (values.details && values.limit !== undefined)
    throw new UsageError('--limit and --details exclude each other (--details lists every request)');
  if (values.details) return Number.POSITIVE_INFINITY;
  if (values.limit === undefined) return DEFAULT_REQUEST_LIMIT;
  const limit = /^\d+$/.test(values.limit) ? Number(values.limit) : Number.NaN;
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new UsageError(
      `--limit: not a positive integer: ${JSON.stringify(values.limit)} (e.g. --limit 100; --details lists every request)`,
    );
  return limit;
}

function eventFilter(values: {
  from?: string;
  to?: string;
  'request-id'?: string;
  'key-id'?: string;
  type?: string[];
}): EventFilter {
  const fromMs = values.from === undefined ? undefined : isoToMs('--from', values.from);
  const toMs = values.to === undefined ? undefined : isoToMs('--to', values.to);
  if (fromMs !== undefined && toMs !== undefined && fromMs >= toMs)
    throw new UsageError(`--from (${values.from}) must be before --to (${values.to})`);
  const unknown = values.type?.find((type) => !EVENT_TYPES.includes(type));
  if (unknown !== undefined)
    throw new UsageError(`--type: unknown event type ${JSON.stringify(unknown)} (one of ${EVENT_TYPES.join(', ')})`);
  return {
    ...(fromMs === undefined ? {} : { fromMs }),
    ...(toMs === undefined ? {} : { toMs }),
    ...(values['request-id'] === undefined ? {} : { requestId: values['request-id'] }),
    ...(values['key-id'] === undefined ? {} : { keyId: values['key-id'] }),
    ...(values.type ? { types: new Set(values.type) } : {}),
  };
}

/**
 * ISO 8601 text → ms since epoch; a date-time without an offset is UTC. Impossible dates and
 * times (`2025-02-30`, `T24:00`) are refused, not rolled over as Date.parse does.
 * @throws UsageError naming `flag`, the text and the accepted forms.
 */
function isoToMs(flag: string, text: string): number {
  const match = ISO_DATE_TIME.exec(text);
  const [year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0] =
    (match ? text.match(/\d+/g)?.slice(0, 6).map(Number) : undefined) ?? [];
  const valid =
    match !== null &&
    hour < 24 &&
    minute < 60 &&
    second < 60 &&
    new Date(Date.UTC(year, month - 1, day)).getUTCDate() === day &&
    month >= 1 &&
    month <= 12;
  const ms = valid ? Date.parse(text.includes('T') && !match[1] ? `${text}Z` : text) : Number.NaN;
  if (Number.isNaN(ms))
    throw new UsageError(
      `${flag}: not an ISO 8601 date or date-time: ${JSON.stringify(text)} (e.g. 2025-01-31 or 2025-01-31T12:00:00Z)`,
    );
  return ms;
}

function engineSettings(io: OpsIo): EngineSettings {
  return {
    ...engineSettingsFromEnv(io.env),
    log: (level, message, extra) =>
      void (level === 'warn' || level === 'error'
        ? io.stderr(`${level}: ${message}${extra ? ` ${JSON.stringify(extra)}` : ''}`)
        : undefined),
  };
}

function pipelineLog(io: OpsIo): NonNullable<EngineSettings['log']> {
  return (level, message, extra) => {
    if (level === 'warn' || level === 'error')
      io.stderr(`replay ${level}: ${message}${extra ? ` ${JSON.stringify(extra)}` : ''}`);
  };
}

/**
 * `io.signal`, or one aborted by SIGINT/SIGTERM until `release()`. The handlers stay installed
 * until then: Ctrl-C signals the whole process group, so a launcher (npm, tsx) relays a second
 * SIGINT right behind the terminal's, and with a `once` handler that second signal would kill the
 * process before it cleaned up (https://nodejs.org/api/process.html#signal-events: with no
 * listener, SIGINT and SIGTERM end the process).
 */
function stopSignal(io: OpsIo): { signal: AbortSignal; release: () => void } {
  if (io.signal) return { signal: io.signal, release: () => {} };
  const controller = new AbortController();
  const abort = (): void => controller.abort();
  process.on('SIGINT', abort);
  process.on('SIGTERM', abort);
  return {
    signal: controller.signal,
    release: () => {
      process.off('SIGINT', abort);
      process.off('SIGTERM', abort);
    },
  };
}
