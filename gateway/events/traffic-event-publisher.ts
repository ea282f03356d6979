/**
 * Hands traffic events to the event log: Avro single-object encoded, keyed by request id, each
 * on its topic. Off the critical path: EventLog.publish returns at once, and nothing here throws.
 */
import type { EventLog } from '../../schemas/event-log/event-log.ts';
import { encodeTrafficEvent, trafficEventKey } from '../../schemas/events/traffic-event-codec.ts';
import type { TrafficEvent } from '../../schemas/events/traffic-events.ts';
import { TOPICS, type TopicName } from '../../schemas/topics.ts';

/** Topic of each event type: RequestCompleted → tollgate.requests, UsageRecorded → tollgate.usage, FailoverOccurred → tollgate.failovers, BudgetThresholdCrossed (the consumers' alerts) → tollgate.alerts. */
export const TRAFFIC_EVENT_TOPICS: Readonly<Record<TrafficEvent['type'], TopicName>> = {
  RequestCompleted: TOPICS.requests,
  UsageRecorded: TOPICS.usage,
  FailoverOccurred: TOPICS.failovers,
  BudgetThresholdCrossed: TOPICS.alerts,
};

/** Told about an event that could not be published (encoding failed, or the log threw). */
export type PublishErrorHandler = (error: Error, event: TrafficEvent) => void;

/**
 * Encodes each event and publishes it, in order, as `{ topic, key: requestId, value }`.
 * Never throws: an event that fails to encode or publish is reported to `onError` (when given)
 * and the remaining events are still published. An `onError` that throws is ignored.
 */
export function publishTrafficEvents(
  log: EventLog,
  events: ReadonlyArray<TrafficEvent>,
  onError?: PublishErrorHandler,
): void {
  for (const event of events) {
    try {
      log.publish({
        topic: TRAFFIC_EVENT_TOPICS[event.type],
        key: trafficEventKey(event),
        value: encodeTrafficEvent(event),
      });
    } catch (error) {
      try {
        onError?.(error instanceof Error ? error : new Error(String(error)), event);
      } catch {
        // the reporter itself failed: nothing more to do without throwing
      }
    }
  }
}
