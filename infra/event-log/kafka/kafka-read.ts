/**
 * EventLog.read for Kafka: reading topics without leaving a consumer group behind.
 *
 * A kafkajs consumer always belongs to a group (https://kafka.js.org/docs/consuming: `groupId` is
 * required; there is no manual partition assignment), so a read runs in a throwaway group
 * `<name>.ephemeral-<12 hex>` that never commits an offset (`autoCommit: false`, nothing resolved
 * is committed: https://kafka.js.org/docs/consuming#manual-committing). Its position lives in
 * memory; after every (re)join it seeks each partition to where it was
 * (https://kafka.js.org/docs/consuming#seek), so a rebalance or a restart after an outage goes on
 * where it stopped instead of from the beginning. What is left behind:
 *
 * - stopped (stop(), the event log's close(), a signal that runs the process's shutdown): the
 *   consumer leaves the group (LeaveGroup), then the group is deleted (admin DeleteGroups,
 *   https://kafka.js.org/docs/admin#delete-groups): nothing remains;
 * - killed (kill -9, a crash that skips shutdown): the dead member stays in the group until its
 *   session times out (10 s, see kafka-subscription.ts), then the group is empty and holds no
 *   offsets. Every later read, in any process, deletes empty `.ephemeral-` groups when it starts
 *   (a live reader's group has a member, and the broker refuses to delete a non-empty group:
 *   NON_EMPTY_GROUP), and the broker itself removes an empty group without offsets at its next
 *   expiry check (`offsets.retention.check.interval.ms`, default 10 minutes:
 *   https://kafka.apache.org/documentation/#brokerconfigs_offsets.retention.check.interval.ms).
 */
import { randomBytes } from 'node:crypto';
import type { Consumer, Kafka } from 'kafkajs';
import type { ReadOptions, Subscription } from '../../../schemas/event-log/event-log.ts';
import type { EventLogLogger } from '../../../schemas/event-log/event-log-logger.ts';
import type { ReaderPositions } from '../reader-positions.ts';
import { runKafkaConsumer } from './kafka-subscription.ts';

/** What marks a group as a read's throwaway group: `<name>.ephemeral-<12 hex>`. */
export const EPHEMERAL_GROUP = /\.ephemeral-[0-9a-f]{12}$/;

/** Where a read runs. */
export interface KafkaReadContext {
  readonly kafka: Kafka;
  readonly ensureTopics: (topics: ReadonlyArray<string>) => Promise<void>;
  readonly logger: EventLogLogger;
  /** Where the read reports its positions (EventLog.committedOffsets of this instance). */
  readonly positions: ReaderPositions;
}

/**
 * Starts a group-less read (see the module doc); deletes dead readers' empty groups first.
 * @throws the kafkajs error when Kafka is unreachable at start.
 */
export async function startKafkaRead(context: KafkaReadContext, options: ReadOptions): Promise<Subscription> {
  const { kafka, logger, positions } = context;
  await deleteEmptyEphemeralGroups(kafka, logger);
  const groupId = `${options.name}.ephemeral-${randomBytes(6).toString('hex')}`;
  const next = new Map<string, { topic: string; partition: number; offset: string }>();
  for (const position of options.from ?? []) next.set(`${position.topic}\u0000${position.partition}`, { ...position });
  positions.open(options.name);
  const seekOnJoin = (consumer: Consumer): void => {
    consumer.on(consumer.events.GROUP_JOIN, ({ payload }) => {
      for (const [topic, partitions] of Object.entries(payload.memberAssignment)) {
        for (const partition of partitions) {
          const at = next.get(`${topic}\u0000${partition}`);
          if (at) consumer.seek({ topic, partition, offset: at.offset });
        }
      }
    });
  };
  let running: Subscription;
  try {
    running = await runKafkaConsumer(kafka, {
      delivery: { ...options, groupId },
      ensureTopics: context.ensureTopics,
      logger,
      onConsumer: seekOnJoin,
      afterChunk: async ({ batch }, lastOffset) => {
        const offset = (BigInt(lastOffset) + 1n).toString();
        next.set(`${batch.topic}\u0000${batch.partition}`, { topic: batch.topic, partition: batch.partition, offset });
        positions.handled(options.name, batch.topic, batch.partition, offset);
      },
    });
  } catch (error) {
    positions.close(options.name);
    await deleteGroup(kafka, groupId, logger);
    throw error;
  }
  let stopped: Promise<void> | undefined;
  return {
    stop: () =>
      (stopped ??= (async () => {
        await running.stop();
        positions.close(options.name);
        await deleteGroup(kafka, groupId, logger);
      })()),
  };
}

/** Deletes `groupId` (after its consumer left); a group that does not exist is fine, other failures are logged. */
async function deleteGroup(kafka: Kafka, groupId: string, logger: EventLogLogger): Promise<void> {
  const failures = await deleteGroups(kafka, [groupId]);
  const failure = failures.find((group) => group.errorType !== 'GROUP_ID_NOT_FOUND');
  if (failure)
    logger(
      'warn',
      'kafka read: its throwaway consumer group was not deleted; it holds no offsets, and the next read or the broker removes it',
      { groupId, error: failure.errorType },
    );
}

/** Deletes every empty `.ephemeral-` group (left by readers that were killed); live readers' groups are refused by the broker and kept. */
async function deleteEmptyEphemeralGroups(kafka: Kafka, logger: EventLogLogger): Promise<void> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    const { groups } = await admin.listGroups();
    const stale = groups.map((group) => group.groupId).filter((groupId) => EPHEMERAL_GROUP.test(groupId));
    if (stale.length === 0) return;
    const failures = await deleteGroups(kafka, stale);
    const removed = stale.length - failures.length;
    if (removed > 0)
      logger('info', 'kafka read: deleted consumer groups of readers that were killed', { groups: removed });
  } catch (error) {
    logger('debug', 'kafka read: listing throwaway consumer groups failed', { error: (error as Error).message });
  } finally {
    await admin.disconnect().catch(() => {});
  }
}

/**
 * admin.deleteGroups, with the per-group failures returned rather than thrown (kafkajs throws
 * KafkaJSDeleteGroupsError carrying `groups` when any group failed); an unreachable Kafka counts
 * as a failure of every group.
 */
async function deleteGroups(
  kafka: Kafka,
  groupIds: ReadonlyArray<string>,
): Promise<Array<{ groupId: string; errorType: string }>> {
  const admin = kafka.admin();
  try {
    await admin.connect();
    await admin.deleteGroups([...groupIds]);
    return [];
  } catch (error) {
    const groups = (error as { groups?: Array<{ groupId: string; error?: { type?: string } }> }).groups;
    if (groups)
      return groups
        .filter((group) => group.error)
        .map((group) => ({ groupId: group.groupId, errorType: group.error?.type ?? 'UNKNOWN' }));
    return groupIds.map((groupId) => ({ groupId, errorType: (error as Error).message }));
  } finally {
    await admin.disconnect().catch(() => {});
  }
}
