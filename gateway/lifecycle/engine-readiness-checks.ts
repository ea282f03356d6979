/**
 * The readiness checks of a gateway node (readiness-probe.ts): the control plane has caught up
 * with the config topic, the event log takes events (connected, or spooling to disk while Kafka
 * is away), and the engines the node was configured with answer: Redis (REDIS_URL) and
 * ClickHouse (CLICKHOUSE_URL). Each check is one cheap call through the engine's port.
 */
import type { AnalyticsStore } from '../../schemas/analytics/analytics-store.ts';
import type { EventLog } from '../../schemas/event-log/event-log.ts';
import type { StateStore } from '../../schemas/state-store/state-store.ts';
import type { ReadinessCheck } from './readiness-probe.ts';

/**
 * Records waiting in memory for the log (neither acknowledged nor spooled) beyond which a
 * disconnected event log counts as not taking events: its spool is not keeping up.
 */
export const MAX_PENDING_WHILE_DISCONNECTED = 1000;

/** Key id no API key ever has (key ids are generated): reading its spend is a pure round trip. */
const PROBE_KEY_ID = 'readiness-probe';

/** What the checks look at; `state` and `analytics` only when their engine is a server (REDIS_URL, CLICKHOUSE_URL). */
export interface EngineReadinessSources {
  /** True once the config follower applied the topic's history (and until it stops). */
  readonly controlPlaneCaughtUp: () => boolean;
  readonly eventLog: Pick<EventLog, 'status'>;
  readonly redis?: Pick<StateStore, 'getSpend'>;
  readonly clickhouse?: Pick<AnalyticsStore, 'version'>;
}

/** The checks for `sources`, named `controlPlane`, `eventLog`, and `redis` / `clickhouse` when given. */
export function engineReadinessChecks(sources: EngineReadinessSources): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [
    {
      name: 'controlPlane',
      run: () => {
        if (!sources.controlPlaneCaughtUp())
          throw new Error('the config topic is not followed up to date (the node is starting or stopped following it)');
      },
    },
    { name: 'eventLog', run: () => checkEventLog(sources.eventLog) },
  ];
  const { redis, clickhouse } = sources;
  if (redis) checks.push({ name: 'redis', run: async () => void (await redis.getSpend(PROBE_KEY_ID, null)) });
  if (clickhouse) checks.push({ name: 'clickhouse', run: async () => void (await clickhouse.version()) });
  return checks;
}

/** Passes while the log is connected, or disconnected with its spool taking the events (few waiting in memory). */
function checkEventLog(eventLog: Pick<EventLog, 'status'>): void {
  const status = eventLog.status();
  if (status.connected || status.pending <= MAX_PENDING_WHILE_DISCONNECTED) return;
  throw new Error(
    `the event log is unreachable and ${status.pending} events wait in memory (${status.spooled} spooled to disk): the spool is not taking them`,
  );
}
