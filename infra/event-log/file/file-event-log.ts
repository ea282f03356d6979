/**
 * The embedded event log, used when KAFKA_BROKERS is absent so `npm start` needs no
 * infrastructure. Layout under `dataDir`:
 *
 *   events/<topic>.log                  append-only record frames (record-frame-codec.ts), one partition (0)
 *   events/<topic>.log.clean            size at the last clean close (lets start-up skip the torn-tail scan)
 *   offsets/<groupId>/<topic>.offset    next byte position to deliver to that consumer group
 *
 * Group-less reads (EventLog.read: the config follower, `tollgate events`, `tollgate replay`)
 * read the topic files directly and keep their positions in memory: they create nothing under
 * `offsets/`, so a killed process leaves nothing behind either.
 *
 * A record's offset is the byte position of its frame. One gateway process writes a data dir;
 * consumers may run in the same process (woken by each write; in another thread through a shared
 * write signal, file-log-write-signal.ts) or another one (they poll). Writing: file-topic-appender.ts
 * (one write per topic per event-loop turn, fdatasync every second and on flush). Reading:
 * file-subscription.ts. End offsets (the last record's position + 1): file-end-offsets.ts. There
 * is no retention: the files grow until removed by the operator.
 */
import { join } from 'node:path';
import type {
  EventLog,
  LogRecord,
  PublisherStatus,
  ReadOptions,
  SubscribeOptions,
  Subscription,
} from '../../../schemas/event-log/event-log.ts';
import { silentLogger, type EventLogLogger } from '../../../schemas/event-log/event-log-logger.ts';
import {
  announceWrites,
  watchWrites,
  type FileLogWriteSignalSide,
  type TopicsWritten,
} from './file-log-write-signal.ts';
import { createFileAppender } from './file-topic-appender.ts';
import { startFileSubscription } from './file-subscription.ts';
import { fileEndOffsets, type FramesTailCache } from './file-end-offsets.ts';
import { fileCommittedOffsets } from './file-committed-offsets.ts';
import { isSafeLogName } from '../is-safe-log-name.ts';
import { ReaderPositions } from '../reader-positions.ts';
import { encodeRecordFrame } from '../record-frame-codec.ts';

/** Options of the embedded log. */
export interface FileEventLogOptions {
  /** The gateway's data directory (created when missing). */
  readonly dataDir: string;
  /** Max time written records may stay un-synced, ms (default 1000). */
  readonly syncIntervalMs?: number;
  /** Poll period of subscriptions when no local write wakes them, ms (default 50). */
  readonly pollIntervalMs?: number;
  /**
   * Shared with the log of another thread of this process over the same data directory
   * (file-log-write-signal.ts): the `writer` side's writes wake the `reader` side's subscriptions
   * instead of their next poll.
   */
  readonly writeSignal?: FileLogWriteSignalSide;
  readonly logger?: EventLogLogger;
}

/**
 * Creates the embedded file event log. `publish` drops (and logs) records whose topic is not a
 * legal Kafka topic name or whose key/value is too large to frame; `subscribe` rejects an illegal
 * group id or topic and a second subscription of the same group in this process.
 */
export function createFileEventLog(options: FileEventLogOptions): EventLog {
  const logger = options.logger ?? silentLogger;
  const appender = createFileAppender({
    eventsDir: join(options.dataDir, 'events'),
    syncIntervalMs: options.syncIntervalMs ?? 1000,
    logger,
  });
  const subscriptions = new Map<string, Subscription>();
  const reads = new Set<Subscription>();
  const readers = new ReaderPositions();
  const tails: FramesTailCache = new Map();
  const announcer = options.writeSignal?.side === 'writer' ? announceWrites(options.writeSignal.signal) : undefined;
  const watcher = options.writeSignal?.side === 'reader' ? watchWrites(options.writeSignal.signal) : undefined;
  if (announcer) appender.onWritten((topics) => announcer.written(topics));
  /** This log's writes and the writer thread's both wake a subscription, with the topics written. */
  const onWritten = (listener: (topics?: TopicsWritten) => void): (() => void) => {
    const local = appender.onWritten(listener);
    const elsewhere = watcher?.onWritten(listener);
    return () => {
      local();
      elsewhere?.();
    };
  };

  return {
    publish(record: LogRecord): void {
      if (!isSafeLogName(record.topic)) {
        logger('error', 'event log: record dropped, illegal topic name', { topic: record.topic });
        return;
      }
      try {
        appender.append(
          record.topic,
          encodeRecordFrame({ topic: '', key: record.key, value: record.value, timestamp: Date.now() }),
        );
      } catch (error) {
        logger('error', 'event log: record dropped', { topic: record.topic, error: (error as Error).message });
      }
    },
    flush: () => appender.flush(),
    async subscribe(subscription: SubscribeOptions): Promise<Subscription> {
      const { groupId, topics } = subscription;
      if (!isSafeLogName(groupId)) throw new Error(`illegal consumer group id: ${JSON.stringify(groupId)}`);
      const badTopic = topics.find((topic) => !isSafeLogName(topic));
      if (badTopic !== undefined) throw new Error(`illegal topic name: ${JSON.stringify(badTopic)}`);
      if (subscriptions.has(groupId)) throw new Error(`consumer group ${groupId} already subscribed in this process`);
      const starting = startFileSubscription({
        dataDir: options.dataDir,
        subscription,
        pollIntervalMs: options.pollIntervalMs ?? 50,
        onWritten,
        logger,
      });
      const handle: Subscription = {
        async stop() {
          await (await starting).stop();
          if (subscriptions.get(groupId) === handle) subscriptions.delete(groupId);
        },
      };
      subscriptions.set(groupId, handle);
      try {
        await starting;
      } catch (error) {
        subscriptions.delete(groupId);
        throw error;
      }
      return handle;
    },
    async read(read: ReadOptions): Promise<Subscription> {
      const badName = [read.name, ...read.topics].find((name) => !isSafeLogName(name));
      if (badName !== undefined) throw new Error(`illegal reader or topic name: ${JSON.stringify(badName)}`);
      const startAt = new Map(
        read.from
          ?.filter((position) => position.partition === 0)
          .map((position) => [position.topic, Number(position.offset)]),
      );
      readers.open(read.name);
      const subscription: SubscribeOptions = { ...read, groupId: read.name };
      const running = await startFileSubscription({
        dataDir: options.dataDir,
        subscription,
        pollIntervalMs: options.pollIntervalMs ?? 50,
        onWritten,
        logger,
        startAt,
        onHandled: (topic, next) => readers.handled(read.name, topic, 0, String(next)),
      });
      const handle: Subscription = {
        async stop() {
          reads.delete(handle);
          await running.stop();
          readers.close(read.name);
        },
      };
      reads.add(handle);
      return handle;
    },
    async endOffsets(topic: string) {
      if (!isSafeLogName(topic)) throw new Error(`illegal topic name: ${JSON.stringify(topic)}`);
      return fileEndOffsets(options.dataDir, topic, tails);
    },
    async committedOffsets(groupId: string, topic: string) {
      if (!isSafeLogName(groupId) || !isSafeLogName(topic))
        throw new Error(
          `illegal consumer group id or topic name: ${JSON.stringify(groupId)}, ${JSON.stringify(topic)}`,
        );
      return readers.positions(groupId, topic) ?? fileCommittedOffsets(options.dataDir, groupId, topic);
    },
    status: (): PublisherStatus => ({ pending: appender.pendingCount(), spooled: 0, connected: true }),
    async close() {
      await appender.flush();
      await Promise.all([...subscriptions.values(), ...reads].map((subscription) => subscription.stop()));
      await appender.close();
      announcer?.close();
      watcher?.close();
    },
  };
}
