/**
 * The end of every request: one ExchangeOutcome becomes the request's log line, its traffic events
 * (RequestCompleted, UsageRecorded, FailoverOccurred) stamped with the control plane's price
 * revision and published to the event log, and its metrics.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { EventLog } from '../../schemas/event-log/event-log.ts';
import type { ExchangeOutcome, OutcomeSink } from '../exchange/exchange-outcome.ts';
import type { GatewayMetrics } from '../metrics/gateway-metrics.ts';
import { buildTrafficEvents } from './build-traffic-events.ts';
import { publishTrafficEvents } from './traffic-event-publisher.ts';

/** What an outcome is handed to. */
export interface OutcomeSinkDeps {
  /** Gets one `request completed` info line per outcome, and an error line per event that could not be published. */
  readonly log: FastifyBaseLogger;
  /** Where the traffic events go; none: no events are published. */
  readonly eventLog?: EventLog;
  /**
   * The control plane's price revision at the moment the outcome arrives, stamped on every event
   * so the consumers price with that revision of the config topic.
   */
  readonly priceRevision: () => number;
  /** Counts the outcome (requests, tokens, failovers); none: nothing is counted. */
  readonly metrics?: GatewayMetrics;
  /** Told last, after logging, publishing and counting (tests collect outcomes here). */
  readonly onOutcome?: OutcomeSink;
}

/**
 * Makes the sink: per outcome, logs it (failovers left out when there were none), publishes its
 * traffic events (never throws: a failed publish is logged), records its metrics, then calls
 * `deps.onOutcome`.
 */
export function createOutcomeSink(deps: OutcomeSinkDeps): OutcomeSink {
  return (outcome: ExchangeOutcome) => {
    // The line's object is built only when the logger writes info lines (not with LOG_LEVEL silent, warn, …).
    if (logsInfo(deps.log))
      deps.log.info(
        { ...outcome, failovers: outcome.failovers.length > 0 ? outcome.failovers : undefined },
        'request completed',
      );
    if (deps.eventLog) {
      const events = buildTrafficEvents(outcome, {
        keyId: outcome.keyId,
        userId: outcome.userId,
        priceRevision: deps.priceRevision(),
      });
      publishTrafficEvents(deps.eventLog, events, (error) =>
        deps.log.error({ err: error, requestId: outcome.requestId }, 'event publishing failed'),
      );
    }
    deps.metrics?.recordOutcome(outcome);
    deps.onOutcome?.(outcome);
  };
}

/** Levels at which pino writes info lines (https://getpino.io/#/docs/api?id=logger-level). */
const INFO_WRITING_LEVELS: ReadonlySet<string> = new Set(['trace', 'debug', 'info']);

/** True when `log` writes info lines; false for a logger without a level (Fastify's `logger: false`). */
function logsInfo(log: FastifyBaseLogger): boolean {
  return INFO_WRITING_LEVELS.has(String(log.level));
}
