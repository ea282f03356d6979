/**
 * The reading half of the embedded file log: one consumer-group subscription reading topic files
 * from stored offsets. Offsets (byte positions, decimal) live in
 * `<dataDir>/offsets/<groupId>/<topic>.offset`, written atomically (temp file, fdatasync,
 * rename) only AFTER `handleBatch` resolved; a rejected batch is delivered again after a
 * back-off of 200 ms doubling to 5 s. A new group starts at the beginning of each topic.
 *
 * New data is noticed through the writer's notification at once (a writer in this process, on
 * any thread), or by polling (a writer in another process): every `pollIntervalMs` while records keep coming, backing off
 * (doubling) to once a second while the topics stay idle, so an idle subscription costs next to
 * nothing. With `maxBatchWaitMs`, a partial batch is held until its oldest record (by the
 * timestamp the writer stored) has waited that long. Reading tolerates concurrent appends: only
 * whole frames are delivered; a partially written last record is waited for.
 *
 * A group-less read (EventLog.read, `startAt` given) reads the same way but keeps its positions in
 * memory only: no offsets folder is created and nothing is stored, so nothing is left behind
 * however the process ends.
 */
import type { FileHandle } from 'node:fs/promises';
import { mkdir, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { backOffMs, sleepUnlessAborted } from '../back-off.ts';
import { replaceFileAtomically } from '../../replace-file-atomically.ts';
import type { DeliveredRecord, SubscribeOptions, Subscription } from '../../../schemas/event-log/event-log.ts';
import type { EventLogLogger } from '../../../schemas/event-log/event-log-logger.ts';
import { readFileFrames } from '../read-file-frames.ts';
import type { TopicsWritten } from './file-log-write-signal.ts';

/** Options of one file-log subscription. */
export interface FileSubscriptionOptions {
  readonly dataDir: string;
  readonly subscription: SubscribeOptions;
  /** Poll period when no write notification arrives, ms. */
  readonly pollIntervalMs: number;
  /**
   * Registers a wake-up called after each write, with the topics written when known (a write to
   * none of this subscription's topics is ignored); returns the unsubscribe function.
   */
  readonly onWritten?: (listener: (topics?: TopicsWritten) => void) => () => void;
  readonly logger: EventLogLogger;
  /**
   * Group-less read: the byte position to start at per topic (absent topics: 0). Nothing is read
   * from or written to `offsets/`; `subscription.groupId` only names the reader in log lines.
   */
  readonly startAt?: ReadonlyMap<string, number>;
  /** Told the next position of a topic after each handled batch (group-less reads report their progress). */
  readonly onHandled?: (topic: string, nextPosition: number) => void;
}

/** Read state of one topic. */
interface TopicCursor {
  readonly topic: string;
  readonly logPath: string;
  /** Where the position is stored; undefined for a group-less read. */
  readonly offsetPath: string | undefined;
  /** Byte position of the next record to deliver. */
  position: number;
  handle?: FileHandle;
}

/** Longest poll period of an idle subscription, ms: a writer in another process is noticed within this. */
const IDLE_POLL_MAX_MS = 1000;
const RETRY_INITIAL_MS = 200;
const RETRY_MAX_MS = 5000;

/**
 * Starts consuming; resolves once the stored offsets are loaded (a group-less read: at once).
 * @throws Error when the offsets directory cannot be created.
 */
export async function startFileSubscription(options: FileSubscriptionOptions): Promise<Subscription> {
  const { dataDir, subscription, logger, startAt } = options;
  if (!startAt) await mkdir(join(dataDir, 'offsets', subscription.groupId), { recursive: true });
  const cursors = await Promise.all(
    subscription.topics.map(async (topic): Promise<TopicCursor> =>
      startAt
        ? {
            topic,
            logPath: join(dataDir, 'events', `${topic}.log`),
            offsetPath: undefined,
            position: startAt.get(topic) ?? 0,
          }
        : loadCursor(dataDir, subscription.groupId, topic, logger),
    ),
  );
  const abort = new AbortController();
  let wake: (() => void) | undefined;
  let signalled = false;
  const unsubscribe = options.onWritten?.((topics) => {
    if (topics && !subscription.topics.some((topic) => topics.has(topic))) return;
    signalled = true;
    wake?.();
  });
  // Idle polls back off from pollIntervalMs, doubling to IDLE_POLL_MAX_MS; found data resets it.
  let idlePolls = 0;
  const waitForData = (): Promise<void> => {
    if (signalled || abort.signal.aborted) return Promise.resolve();
    const pollMs = Math.min(IDLE_POLL_MAX_MS, options.pollIntervalMs * 2 ** Math.min(idlePolls++, 16));
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        wake = undefined;
        resolve();
      };
      const timer = setTimeout(done, Math.max(options.pollIntervalMs, pollMs));
      wake = done;
    });
  };
  const loop = (async () => {
    let failures = 0;
    while (!abort.signal.aborted) {
      signalled = false;
      try {
        let delivered = false;
        let holdMs = Number.POSITIVE_INFINITY;
        for (const cursor of cursors) {
          if (abort.signal.aborted) break;
          const outcome = await deliverNext(cursor, subscription, abort.signal, logger);
          if (outcome === 'delivered') options.onHandled?.(cursor.topic, cursor.position);
          if (outcome === 'delivered') delivered = true;
          else if (outcome !== 'empty') holdMs = Math.min(holdMs, outcome.holdMs);
        }
        failures = 0;
        if (delivered) {
          idlePolls = 0;
          continue;
        }
        // A partial batch is held for its oldest record's remaining wait; notifications cannot shorten it.
        if (holdMs !== Number.POSITIVE_INFINITY) await sleepUnlessAborted(holdMs, abort.signal);
        else await waitForData();
      } catch (error) {
        logger('error', 'event log: reading failed, retrying', {
          groupId: subscription.groupId,
          error: (error as Error).message,
        });
        await sleepUnlessAborted(backOffMs(failures++, RETRY_INITIAL_MS, RETRY_MAX_MS), abort.signal);
      }
    }
  })();
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopped ??= (async () => {
        abort.abort();
        wake?.();
        await loop;
        unsubscribe?.();
        await Promise.all(cursors.map(async (cursor) => cursor.handle?.close()));
      })();
      return stopped;
    },
  };
}

/** Where `groupId` stores its position in `topic`: `<dataDir>/offsets/<groupId>/<topic>.offset`. */
export function storedOffsetPath(dataDir: string, groupId: string, topic: string): string {
  return join(dataDir, 'offsets', groupId, `${topic}.offset`);
}

/** A stored offset file's text as a byte position; undefined when it is not a non-negative integer. */
export function parseStoredPosition(text: string): number | undefined {
  const position = Number(text.trim());
  return Number.isSafeInteger(position) && position >= 0 ? position : undefined;
}

async function loadCursor(
  dataDir: string,
  groupId: string,
  topic: string,
  logger: EventLogLogger,
): Promise<TopicCursor> {
  const offsetPath = storedOffsetPath(dataDir, groupId, topic);
  const position = parseStoredPosition(await readFile(offsetPath, 'utf8').catch(() => '0'));
  if (position === undefined)
    logger('warn', 'event log: unreadable stored offset, starting from the beginning', { offsetPath });
  return { topic, logPath: join(dataDir, 'events', `${topic}.log`), offsetPath, position: position ?? 0 };
}

/**
 * What one delivery attempt did: handed a batch over (and stored its offset), found nothing, or
 * found a partial batch to hold `holdMs` more (batching by time, SubscribeOptions.maxBatchWaitMs).
 */
type DeliveryOutcome = 'delivered' | 'empty' | { readonly holdMs: number };

/**
 * Bytes one read of a batch may take: room for `maxBatchSize` frames of 512 bytes (the gateway's
 * request and usage events are 200–300 bytes), at least 256 KiB and at most 8 MiB. A read cut by
 * this budget is a full batch: it is delivered without waiting for more.
 */
function batchReadBytes(maxBatchSize: number): number {
  return Math.min(8 * 1024 * 1024, Math.max(256 * 1024, maxBatchSize * 512));
}

/** Delivers the next batch of one topic unless it is partial and younger than `maxBatchWaitMs`. */
async function deliverNext(
  cursor: TopicCursor,
  subscription: SubscribeOptions,
  signal: AbortSignal,
  logger: EventLogLogger,
): Promise<DeliveryOutcome> {
  cursor.handle ??= await open(cursor.logPath, 'r').catch(() => undefined);
  if (!cursor.handle) return 'empty';
  const maxBatchSize = subscription.maxBatchSize ?? 500;
  const chunk = await readFileFrames(cursor.handle, cursor.position, maxBatchSize, batchReadBytes(maxBatchSize));
  const oldest = chunk.frames[0];
  if (!oldest) return 'empty';
  const waitMs = subscription.maxBatchWaitMs ?? 0;
  if (waitMs > 0 && !chunk.filled) {
    const holdMs = Math.min(waitMs, oldest.record.timestamp + waitMs - Date.now());
    if (holdMs > 0) return { holdMs };
  }
  const records: DeliveredRecord[] = chunk.frames.map(({ position, record }) => ({
    topic: cursor.topic,
    partition: 0,
    offset: String(position),
    key: record.key,
    value: record.value,
    timestamp: record.timestamp,
  }));
  for (let attempt = 0; ; attempt += 1) {
    try {
      await subscription.handleBatch(records);
      break;
    } catch (error) {
      const delayMs = backOffMs(attempt, RETRY_INITIAL_MS, RETRY_MAX_MS);
      logger('warn', 'event log: batch handler failed, redelivering after a back-off', {
        groupId: subscription.groupId,
        topic: cursor.topic,
        records: records.length,
        delayMs,
        error: (error as Error).message,
      });
      await sleepUnlessAborted(delayMs, signal);
      if (signal.aborted) return 'empty';
    }
  }
  if (cursor.offsetPath !== undefined) await replaceFileAtomically(cursor.offsetPath, String(chunk.nextPosition));
  cursor.position = chunk.nextPosition;
  return 'delivered';
}
