/**
 * An event log whose subscriptions are group-less reads: `subscribe({ groupId, … })` becomes
 * `read({ name: groupId, … })`, from the first record, with nothing committed or stored. For
 * one-off runs of the consumer pipeline that must leave no consumer group or offsets folder
 * behind (`tollgate replay`): their groups were new anyway, so they read everything either way;
 * only a restart of the process would start over, which such a run never does.
 */
import type { EventLog } from '../../schemas/event-log/event-log.ts';

/**
 * Wraps `log` (which must implement `read`) so that `subscribe` reads without a group.
 * @throws Error when `log` has no `read`.
 */
export function withGrouplessSubscriptions(log: EventLog): EventLog {
  const read = log.read?.bind(log);
  if (!read) throw new Error('this event log cannot read without a consumer group');
  return {
    publish: (record) => log.publish(record),
    flush: () => log.flush(),
    status: () => log.status(),
    endOffsets: (topic) => log.endOffsets(topic),
    ...(log.committedOffsets ? { committedOffsets: log.committedOffsets.bind(log) } : {}),
    read,
    subscribe: ({ groupId, ...options }) => read({ ...options, name: groupId }),
    close: () => log.close(),
  };
}
