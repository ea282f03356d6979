/**
 * Namespaces an event log: every topic name gets `prefix` on the way in and loses it on the way
 * out, and every consumer group id gets it too, so several Tollgate deployments (or test runs) can
 * share one Kafka cluster without seeing each other's events or groups. Set with TOLLGATE_TOPIC_PREFIX (e.g. `staging.` → `staging.tollgate.requests`).
 */
import type { EventLog, ReadOptions } from '../../schemas/event-log/event-log.ts';

/** Wraps `log` so that topic `t` is stored as `${prefix}${t}`. An empty prefix returns `log` itself. */
export function withTopicPrefix(log: EventLog, prefix: string): EventLog {
  if (prefix === '') return log;
  const committedOf = log.committedOffsets?.bind(log);
  const readOf = log.read?.bind(log);
  return {
    publish: (record) => log.publish({ ...record, topic: prefix + record.topic }),
    flush: () => log.flush(),
    status: () => log.status(),
    endOffsets: (topic) => log.endOffsets(prefix + topic),
    ...(committedOf
      ? { committedOffsets: (groupId: string, topic: string) => committedOf(prefix + groupId, prefix + topic) }
      : {}),
    close: () => log.close(),
    ...(readOf
      ? {
          read: (options: ReadOptions) =>
            readOf({
              ...options,
              name: prefix + options.name,
              topics: options.topics.map((topic) => prefix + topic),
              ...(options.from
                ? { from: options.from.map((position) => ({ ...position, topic: prefix + position.topic })) }
                : {}),
              handleBatch: (records) =>
                options.handleBatch(
                  records.map((r) => ({
                    ...r,
                    topic: r.topic.startsWith(prefix) ? r.topic.slice(prefix.length) : r.topic,
                  })),
                ),
            }),
        }
      : {}),
    subscribe: (options) =>
      log.subscribe({
        ...options,
        // Groups are namespaced too: kafkajs group leaders assign only their own topics, so two
        // deployments sharing a group id would starve each other.
        groupId: prefix + options.groupId,
        topics: options.topics.map((topic) => prefix + topic),
        handleBatch: (records) =>
          options.handleBatch(
            records.map((r) => ({ ...r, topic: r.topic.startsWith(prefix) ? r.topic.slice(prefix.length) : r.topic })),
          ),
      }),
  };
}
