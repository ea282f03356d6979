/**
 * `tollgate replay`: re-projects the traffic topics from their first record into a separate
 * analytics database and reconciles it with the live one (reconcile-spend.ts).
 *
 * The replay runs the real pipeline (start-consumer-pipeline.ts: migrations, the config-topic
 * follower for prices, the ledger and billing consumers) on the caller's event log, whose
 * subscriptions should be group-less reads (tollgate-ops.ts wraps it so: nothing committed,
 * nothing left behind), or else under consumer groups nobody used before; either way it starts at
 * the first record and never moves the live groups' offsets; with a fresh
 * in-memory state store, so live spend counters and channel health are never touched; and with
 * an analytics store whose statements run in the replay database. It stops once both consumers
 * have read every partition of their topic up to the end it had at start (end-offset-snapshot.ts).
 * Like every pipeline start, the config follower appends one sync marker (an empty record) to
 * the config topic; it reads without a group (reader `tollgate.config.<configFollowerId>`).
 */
import { sqlLiteral, type AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import { TABLES } from '../../schemas/analytics/tables.ts';
import type { EventLog } from '../../schemas/event-log/event-log.ts';
import type { StateStore } from '../../schemas/state-store/state-store.ts';
import { TOPICS } from '../../schemas/topics.ts';
import type { ConsumerLog } from '../run-consumers.ts';
import { startConsumerPipeline, type ConsumerName, type ConsumerPipelineRunners } from '../start-consumer-pipeline.ts';
import { takeEndOffsetSnapshot, type EndOffsetSnapshot } from './end-offset-snapshot.ts';
import { reconcileSpend, type SpendReconciliation } from './reconcile-spend.ts';

/** The consumers a replay runs, and the topics whose ends it waits for. */
const REPLAYED: ReadonlyArray<ConsumerName> = ['ledger', 'billing'];
const REPLAYED_TOPICS: ReadonlyArray<string> = [TOPICS.requests, TOPICS.usage];

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What a replay runs on. */
export interface ReplayTrafficOptions {
  /** Migrations and the config follower the replayed pipeline runs (the CLI's composition root gives them). */
  readonly runners: ConsumerPipelineRunners;
  readonly eventLog: EventLog;
  /** Statements run in the replay database: the replayed pipeline writes here. */
  readonly replayAnalytics: AnalyticsStore;
  /**
   * Reads both databases by qualified names and drops/creates the replay database. May be the same
   * object as `replayAnalytics` (one chdb data directory); with a server, a store on the live database.
   */
  readonly adminAnalytics: AnalyticsStore;
  /** Plain identifiers; they must differ. */
  readonly liveDatabase: string;
  readonly replayDatabase: string;
  /** Keep what the replay database holds instead of dropping and re-creating it first. */
  readonly keep: boolean;
  /** A new, empty state store (memory): billing's spend counters land there and are dropped. */
  readonly state: StateStore;
  /** A consumer group (or group-less reader name) prefix nobody used before, e.g. `tollgate.replay.<random>.`. */
  readonly groupPrefix: string;
  /** Id of the replay's config follower (`[A-Za-z0-9_-]+`): its reader is `tollgate.config.<id>`. */
  readonly configFollowerId: string;
  /** The pipeline's log lines. */
  readonly log: ConsumerLog;
  /** Stops the replay early (nothing is reconciled then). */
  readonly signal?: AbortSignal;
  /** Progress lines (stderr), every `progressEveryMs` (default 5000). */
  readonly progress: (line: string) => void;
  readonly progressEveryMs?: number;
}

/** The outcome: the reconciliation, or undefined when the signal stopped the replay first. */
export interface ReplayTrafficResult {
  readonly reconciliation: SpendReconciliation | undefined;
}

/**
 * Resets the replay database (unless `keep`), replays, stops the pipeline, then reconciles.
 * @throws Error when a database name is not a plain identifier, both names are the same, or the
 *   live database lacks consumption_log or billing_lines; the stores' and the event log's errors.
 */
export async function replayTraffic(options: ReplayTrafficOptions): Promise<ReplayTrafficResult> {
  const { liveDatabase, replayDatabase } = options;
  for (const name of [liveDatabase, replayDatabase])
    if (!IDENTIFIER.test(name)) throw new Error(`invalid database name: ${JSON.stringify(name)}`);
  if (liveDatabase === replayDatabase)
    throw new Error(`the replay database must differ from the live one (${liveDatabase})`);
  await assertLiveTables(options.adminAnalytics, liveDatabase);
  if (!options.keep) {
    await options.adminAnalytics.exec(`DROP DATABASE IF EXISTS ${replayDatabase}`);
    await options.adminAnalytics.exec(`CREATE DATABASE IF NOT EXISTS ${replayDatabase}`);
  }
  const snapshot = await takeEndOffsetSnapshot(options.eventLog, REPLAYED_TOPICS);
  const running = await startConsumerPipeline({
    runners: options.runners,
    eventLog: options.eventLog,
    state: options.state,
    analytics: options.replayAnalytics,
    log: options.log,
    groupPrefix: options.groupPrefix,
    configFollowerId: options.configFollowerId,
    consumers: REPLAYED,
    onBatchDone: (_consumer, records) => {
      for (const record of records) snapshot.markSeen(record.topic, record.partition, record.offset);
    },
  });
  let finished: boolean;
  try {
    finished = await waitUntilCaughtUp(snapshot, options);
  } finally {
    await running.stop();
  }
  if (!finished) return { reconciliation: undefined };
  return { reconciliation: await reconcileSpend({ analytics: options.adminAnalytics, liveDatabase, replayDatabase }) };
}

/** Fails before any replay work when the live side has nothing to reconcile with. @throws Error naming the missing tables. */
async function assertLiveTables(analytics: AnalyticsStore, database: string): Promise<void> {
  const rows = await analytics.query<{ name: string }>(
    `SELECT name FROM system.tables WHERE database = ${sqlLiteral(database)} AND name IN (${sqlLiteral(TABLES.consumptionLog)}, ${sqlLiteral(TABLES.billingLines)})`,
  );
  const missing = [TABLES.consumptionLog, TABLES.billingLines].filter(
    (table) => !rows.some((row) => row.name === table),
  );
  if (missing.length > 0)
    throw new Error(
      `the live database ${database} has no ${missing.join(' or ')}: nothing to reconcile with (have its consumers ever run?)`,
    );
}

/** Resolves true once the snapshot's end is reached, false when the signal aborts first; reports progress meanwhile. */
async function waitUntilCaughtUp(snapshot: EndOffsetSnapshot, options: ReplayTrafficOptions): Promise<boolean> {
  const timer = setInterval(() => options.progress(describeProgress(snapshot)), options.progressEveryMs ?? 5000);
  try {
    const aborted = new Promise<false>((resolve) => {
      if (options.signal?.aborted) resolve(false);
      options.signal?.addEventListener('abort', () => resolve(false), { once: true });
    });
    return await Promise.race([snapshot.caughtUp.then(() => true), aborted]);
  } finally {
    clearInterval(timer);
  }
}

function describeProgress(snapshot: EndOffsetSnapshot): string {
  const parts = snapshot
    .progress()
    .map(({ topic, partition, end, seen }) => `${topic}[${partition}] ${seen ?? '-'}/${end}`);
  return `replaying: ${parts.join(', ')} (offset seen/end)`;
}
