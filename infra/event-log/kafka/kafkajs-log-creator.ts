/**
 * Routes kafkajs' own log lines (level WARN and above) to the adapter's logger, quietly:
 *
 * - the warning about the idempotent producer's limited retries is expected (see
 *   kafka-producer-session.ts) and dropped;
 * - `Connection` and `BrokerPool` lines (every error response and socket error, logged before
 *   kafkajs retries or returns it — TOPIC_ALREADY_EXISTS, coordinator loading, ECONNREFUSED) are
 *   demoted to `debug`: failures that matter surface as the adapter's own warn/error lines;
 * - the producer's `Failed to send messages` (a leader election right after a topic is created,
 *   a broker going away) is demoted to `debug` too: the publisher logs the outcome itself, as a
 *   warning when it spools what it could not send (kafka-publisher.ts);
 * - a line repeated within 10 s (digits ignored, e.g. "Restarting the consumer in 229ms" every
 *   half second while Kafka is down) is logged once, the next one carrying `repeated: n`.
 */
import type { logCreator, logLevel } from 'kafkajs';
import { engineClientLibrary } from '../../engine-client-libraries.ts';
import type { EventLogLevel, EventLogLogger } from '../../../schemas/event-log/event-log-logger.ts';

const EXPECTED_WARNING = 'Limiting retries for the idempotent producer';
const DEMOTED_NAMESPACES = new Set(['Connection', 'BrokerPool']);
const DEMOTED_PRODUCER_LINE = 'Failed to send messages';
const REPEAT_WINDOW_MS = 10_000;

/** A kafkajs `logCreator` writing to `logger`; pass `logLevel: logLevel.WARN` to the client too. */
export function createKafkajsLogCreator(logger: EventLogLogger): logCreator {
  const lastSeen = new Map<string, { at: number; repeated: number }>();
  return () => (entry) => {
    const { message, timestamp: _timestamp, ...extra } = entry.log;
    if (message.startsWith(EXPECTED_WARNING)) return;
    const demoted =
      DEMOTED_NAMESPACES.has(entry.namespace) ||
      (entry.namespace === 'Producer' && message.startsWith(DEMOTED_PRODUCER_LINE));
    const level = demoted ? 'debug' : toLevel(entry.level);
    const key = `${level} ${entry.namespace} ${message.replace(/[\d.]+/g, '#')}`;
    const now = Date.now();
    const seen = lastSeen.get(key);
    if (seen && now - seen.at < REPEAT_WINDOW_MS) {
      seen.repeated += 1;
      return;
    }
    if (lastSeen.size > 1000) lastSeen.clear();
    lastSeen.set(key, { at: now, repeated: 0 });
    logger(
      level,
      `kafkajs ${entry.namespace}: ${message}`,
      seen?.repeated ? { ...extra, repeated: seen.repeated } : extra,
    );
  };
}

function toLevel(level: logLevel): EventLogLevel {
  const { logLevel } = engineClientLibrary('kafkajs');
  if (level === logLevel.ERROR || level === logLevel.NOTHING) return 'error';
  if (level === logLevel.WARN) return 'warn';
  return level === logLevel.INFO ? 'info' : 'debug';
}
