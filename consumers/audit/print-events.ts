/**
 * `tollgate events`: a schema-aware console consumer. Reads topics from their first record without
 * a consumer group (EventLog.read: nothing committed, nothing left behind), decodes every record (decode-log-record.ts, secrets dropped), keeps
 * the events the filter selects (event-filter.ts) and prints each as one JSON line:
 *
 *   {"topic":"tollgate.requests","partition":0,"offset":"42","timestamp":1767225600000,"type":"RequestCompleted","event":{…}}
 *
 * `offset` is the log's offset as a decimal string, `timestamp` when the log stored the record
 * (ms since epoch), 64-bit integers (bigint) print as decimal strings. Without `follow` it stops
 * at the end each topic had when it started (end-offset-snapshot.ts); with `follow` it keeps
 * printing until the signal aborts. Undecodable records get one line on stderr and are skipped.
 */
import type { DeliveredRecord, EventLog, Subscription } from '../../schemas/event-log/event-log.ts';
import { decodeLogRecord } from './decode-log-record.ts';
import { takeEndOffsetSnapshot, type EndOffsetSnapshot } from './end-offset-snapshot.ts';
import { matchesEventFilter, type EventFilter } from './event-filter.ts';

/** What to print, from where, and where to. */
export interface PrintEventsOptions {
  readonly eventLog: EventLog;
  /** Topics to read (full names without the deployment's prefix, e.g. `tollgate.requests`). */
  readonly topics: ReadonlyArray<string>;
  readonly filter: EventFilter;
  /** The reader's name, `[A-Za-z0-9._-]+` (e.g. `tollgate.events.<random>`); no group of that name is stored. */
  readonly readerName: string;
  /** Keep reading past the end until `signal` aborts. */
  readonly follow: boolean;
  /** Stops reading (Ctrl-C); without `follow` the output is then incomplete. */
  readonly signal?: AbortSignal;
  /** One JSON line per event. */
  readonly stdout: (line: string) => void;
  /** One line per undecodable record. */
  readonly stderr: (line: string) => void;
}

/** What a run did. */
export interface PrintEventsResult {
  readonly printed: number;
  readonly undecodable: number;
  /** Whether `signal` stopped the run before the end (without `follow`). */
  readonly interrupted: boolean;
}

/**
 * Prints the selected events; resolves after the read stopped.
 * @throws the event log's Error when it cannot be read (e.g. Kafka unreachable at start), or an
 *   Error when the log cannot read without a consumer group (a test double without `read`).
 */
export async function printEvents(options: PrintEventsOptions): Promise<PrintEventsResult> {
  const read = options.eventLog.read?.bind(options.eventLog);
  if (!read) throw new Error('this event log cannot read without a consumer group');
  const snapshot = await takeEndOffsetSnapshot(options.eventLog, options.topics);
  const topics = options.follow ? [...new Set(options.topics)] : snapshot.nonEmptyTopics;
  const counts = { printed: 0, undecodable: 0 };
  if (topics.length === 0) return { ...counts, interrupted: false };
  const subscription: Subscription = await read({
    name: options.readerName,
    topics,
    handleBatch: async (records) => {
      for (const record of records) {
        if (!options.follow && !snapshot.isBeforeEnd(record.topic, record.partition, record.offset)) continue;
        printRecord(record, options, counts);
        snapshot.markSeen(record.topic, record.partition, record.offset);
      }
    },
  });
  const interrupted = await waitForEnd(snapshot, options);
  await subscription.stop();
  return { ...counts, interrupted };
}

/** Resolves true when the signal stopped the run before the snapshot's end, false otherwise. */
async function waitForEnd(snapshot: EndOffsetSnapshot, options: PrintEventsOptions): Promise<boolean> {
  const { signal } = options;
  const aborted = new Promise<'aborted'>((resolve) => {
    if (signal?.aborted) resolve('aborted');
    signal?.addEventListener('abort', () => resolve('aborted'), { once: true });
  });
  if (options.follow) {
    await aborted;
    return false;
  }
  const outcome = await Promise.race([snapshot.caughtUp.then(() => 'done' as const), aborted]);
  return outcome === 'aborted' && !snapshot.isCaughtUp();
}

function printRecord(
  record: DeliveredRecord,
  options: PrintEventsOptions,
  counts: { printed: number; undecodable: number },
): void {
  const decoded = decodeLogRecord(record.topic, record.value);
  if (decoded.kind === 'marker') return;
  if (decoded.kind === 'undecodable') {
    counts.undecodable += 1;
    options.stderr(
      `undecodable record ${record.topic} partition ${record.partition} offset ${record.offset}: ${decoded.reason}`,
    );
    return;
  }
  if (!matchesEventFilter(options.filter, decoded.type, decoded.event)) return;
  const line = {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    timestamp: record.timestamp,
    type: decoded.type,
    event: decoded.event,
  };
  options.stdout(
    JSON.stringify(line, (_key, value: unknown) => (typeof value === 'bigint' ? value.toString() : value)),
  );
  counts.printed += 1;
}
