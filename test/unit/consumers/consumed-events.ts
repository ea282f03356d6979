/**
 * Inputs for consumer unit tests: traffic events as the runner hands them over (with log
 * positions), and a price source over a fixed price book.
 */
import type { ConsumedTrafficEvent } from '../../../consumers/traffic-consumer.ts';
import type { PriceSource } from '../../../consumers/control-plane/consumer-control-plane.ts';
import type { Price } from '../../../schemas/billing/price-book.ts';
import type { TrafficEvent } from '../../../schemas/events/traffic-events.ts';
import { TOPICS } from '../../../schemas/topics.ts';

const TOPIC_OF: Readonly<Record<TrafficEvent['type'], string>> = {
  RequestCompleted: TOPICS.requests,
  UsageRecorded: TOPICS.usage,
  FailoverOccurred: TOPICS.failovers,
  BudgetThresholdCrossed: TOPICS.alerts,
};
const offsets = new Map<string, number>();

/**
 * The events with the log positions a topic would give them: partition 0 of their type's topic,
 * an offset fixed per event id on first sight (increasing), so delivering the same events again
 * is a redelivery and new events come after.
 */
export function consumed(events: ReadonlyArray<TrafficEvent>): ConsumedTrafficEvent[] {
  return events.map((item) => {
    let offset = offsets.get(item.event.eventId);
    if (offset === undefined) offsets.set(item.event.eventId, (offset = offsets.size));
    return {
      ...item,
      position: { topic: TOPIC_OF[item.type], partition: 0, offset: String(offset) },
    };
  });
}

/** A price source whose book is `prices` for every revision and time (revision waits resolve at once). */
export function staticPriceSource(prices: ReadonlyArray<Price>): PriceSource {
  return { bookFor: () => prices, awaitRevision: async () => undefined };
}
