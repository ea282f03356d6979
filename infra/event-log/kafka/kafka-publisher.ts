/**
 * The Kafka adapter's publishing side. `publish` only enqueues in memory; one background pump
 * sends, in order:
 *
 * - Kafka reachable, spool empty: batches of ≤ 1000 records / 512 KiB go out with one `sendBatch`
 *   when 500 records are waiting, when the oldest has waited `lingerMs` (10 ms), or on flush().
 *   One send at a time, so records keep their acceptance order (hence per-key order).
 * - A send or connect fails: the failed batch and everything behind it are appended, in order, to
 *   the disk spool (disk-spool.ts, fdatasync'ed) and the gateway keeps serving; a reconnect loop
 *   opens a new session after 0.25 s, doubling to 2 s between attempts (a refused connection is cheap).
 * - Kafka back (or a spool left by a previous process at start-up): the spool is sent chunk by
 *   chunk and truncated when empty; while it is not empty, new records are appended behind it,
 *   so nothing newer overtakes anything spooled.
 *
 * `flush()` resolves once every record accepted before the call is acknowledged by Kafka (acks =
 * all) or fsync'ed in the spool — within a second or so even when Kafka has just gone down.
 * Delivery is at-least-once: a send that failed or timed out may still have landed and is sent
 * again from the spool; consumers de-duplicate by event id.
 */
import type { Kafka } from 'kafkajs';
import { backOffMs, sleepUnlessAborted } from '../back-off.ts';
import { openDiskSpool, type DiskSpool } from './disk-spool.ts';
import type { LogRecord, PublisherStatus } from '../../../schemas/event-log/event-log.ts';
import type { EventLogLogger } from '../../../schemas/event-log/event-log-logger.ts';
import { isSafeLogName } from '../is-safe-log-name.ts';
import { openProducerSession, type ProducerSession } from './kafka-producer-session.ts';
import type { FramedRecord } from '../record-frame-codec.ts';
import { RecordQueue } from './record-queue.ts';

/** Options of the publisher. */
export interface KafkaPublisherOptions {
  readonly kafka: Kafka;
  readonly spoolDir: string;
  readonly logger: EventLogLogger;
  /** Max wait of a record before its batch is sent, ms (10). */
  readonly lingerMs: number;
  /** Records waiting that trigger a send at once (500). */
  readonly batchTrigger: number;
  /** Bound on one send including topic creation, ms (10 000). */
  readonly sendTimeoutMs: number;
}

interface QueuedRecord extends FramedRecord {
  /** Acceptance number, 1-based: flush() waits until every number up to its own is settled. */
  readonly seq: number;
  readonly bytes: number;
}

const MAX_SEND_RECORDS = 1000;
const MAX_SEND_BYTES = 512 * 1024;
/** Beyond this many records in memory while the first connection is still pending, spool anyway. */
const MAX_MEMORY_RECORDS = 100_000;
/** Kafka's default max message size is 1 MB: larger records could never be sent, so they are refused. */
const MAX_RECORD_BYTES = 1_000_000;
const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The publishing half of the EventLog port; starts connecting and opening the spool at once.
 * `publish` refuses (logs, drops) records after close(), with an illegal topic name, or larger
 * than 1 MB; it never throws.
 */
export class KafkaPublisher {
  private readonly queue = new RecordQueue<QueuedRecord>();
  private readonly ensuredTopics = new Set<string>();
  private readonly stopSignal = new AbortController();
  private readonly waiters: Array<{ seq: number; resolve: () => void }> = [];
  private spool: DiskSpool | undefined;
  private session: ProducerSession | undefined;
  private kafkaDown = false;
  private closing = false;
  private stopping = false;
  private acceptedSeq = 0;
  private settledSeq = 0;
  private inFlight = 0;
  private firstQueuedAt = 0;
  private wakePump: (() => void) | undefined;
  private reconnecting: Promise<void> | undefined;
  private readonly pumping: Promise<void>;

  constructor(private readonly options: KafkaPublisherOptions) {
    this.startReconnect(false);
    this.pumping = this.pump();
  }

  publish(record: LogRecord): void {
    const keyBytes = Buffer.byteLength(record.key);
    const bytes = record.value.length + keyBytes + record.topic.length + 16;
    if (this.closing || !isSafeLogName(record.topic) || bytes > MAX_RECORD_BYTES || keyBytes > 0xffff) {
      this.options.logger('error', 'kafka: record refused (closed, illegal topic or too large)', {
        topic: record.topic,
        bytes,
        closing: this.closing,
      });
      return;
    }
    this.acceptedSeq += 1;
    this.queue.push({
      topic: record.topic,
      key: record.key,
      value: record.value,
      timestamp: Date.now(),
      seq: this.acceptedSeq,
      bytes,
    });
    const waiting = this.queue.length;
    if (waiting === 1) this.firstQueuedAt = Date.now();
    if (waiting === 1 || waiting === this.options.batchTrigger || waiting === MAX_MEMORY_RECORDS) this.wake();
  }

  /** Resolves when every record accepted so far is acknowledged by Kafka or fsync'ed in the spool. */
  flush(): Promise<void> {
    if (this.settledSeq >= this.acceptedSeq) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.waiters.push({ seq: this.acceptedSeq, resolve });
      this.wake();
    });
  }

  status(): PublisherStatus {
    return {
      pending: this.queue.length + this.inFlight,
      spooled: this.spool?.count() ?? 0,
      connected: this.session !== undefined,
    };
  }

  /** Flushes (to Kafka or the spool), stops the pump and the reconnect loop, closes the spool. */
  async close(): Promise<void> {
    this.closing = true;
    await this.flush();
    this.stopping = true;
    this.stopSignal.abort();
    this.wake();
    await this.pumping;
    await this.reconnecting;
    await this.session?.close();
    this.session = undefined;
    await this.spool?.close();
  }

  private wake(): void {
    this.wakePump?.();
  }

  private settle(records: ReadonlyArray<QueuedRecord>): void {
    this.settledSeq = Math.max(this.settledSeq, records[records.length - 1]?.seq ?? 0);
    for (let i = this.waiters.length - 1; i >= 0; i -= 1) {
      const waiter = this.waiters[i];
      if (waiter && waiter.seq <= this.settledSeq) {
        this.waiters.splice(i, 1);
        waiter.resolve();
      }
    }
  }

  /** Opens a new session in the background: at once, or after a back-off when `waitFirst`. */
  private startReconnect(waitFirst: boolean): void {
    if (this.reconnecting || this.stopping) return;
    this.reconnecting = this.reconnect(waitFirst).finally(() => {
      this.reconnecting = undefined;
    });
  }

  private async reconnect(waitFirst: boolean): Promise<void> {
    const { logger } = this.options;
    for (let attempt = waitFirst ? 0 : -1; !this.stopping; attempt += 1) {
      if (attempt >= 0) await sleepUnlessAborted(backOffMs(attempt, 250, 2000), this.stopSignal.signal);
      if (this.stopping) return;
      try {
        const opened = await openProducerSession(this.options.kafka, this.ensuredTopics, this.options.sendTimeoutMs);
        if (this.stopping) return void (await opened.close());
        if (this.kafkaDown) logger('info', 'kafka: reachable again', { spooled: this.spool?.count() ?? 0 });
        this.session = opened;
        this.kafkaDown = false;
        this.wake();
        return;
      } catch (error) {
        if (!this.kafkaDown)
          logger('warn', 'kafka: unreachable, spooling events to disk', { error: (error as Error).message });
        this.kafkaDown = true;
        this.wake();
      }
    }
  }

  private dropSession(error: unknown): void {
    const failed = this.session;
    this.session = undefined;
    if (!this.kafkaDown)
      this.options.logger('warn', 'kafka: send failed, spooling events to disk', { error: (error as Error).message });
    this.kafkaDown = true;
    void failed?.close();
    this.startReconnect(true);
  }

  /** The single loop that moves records: memory → Kafka, memory → spool, spool → Kafka. */
  private async pump(): Promise<void> {
    const spool = await this.openSpool();
    while (!(this.stopping && this.queue.length === 0)) {
      await this.waitForWork(spool);
      if (this.stopping && this.queue.length === 0) break;
      try {
        await this.step(spool);
      } catch (error) {
        this.options.logger('error', 'kafka publisher: unexpected error, retrying in 1 s', {
          error: (error as Error).message,
        });
        await pause(1000);
      }
    }
  }

  private async openSpool(): Promise<DiskSpool> {
    for (let attempt = 0; ; attempt += 1) {
      try {
        this.spool = await openDiskSpool(this.options.spoolDir, this.options.logger);
        return this.spool;
      } catch (error) {
        this.options.logger('error', 'kafka spool: cannot open, retrying', {
          spoolDir: this.options.spoolDir,
          error: (error as Error).message,
        });
        await pause(backOffMs(attempt, 500, 5000));
      }
    }
  }

  private ready(spool: DiskSpool): boolean {
    if (this.session && spool.count() > 0) return true;
    const waiting = this.queue.length;
    if (waiting === 0) return false;
    if (waiting >= MAX_MEMORY_RECORDS) return true;
    if (!this.session && !this.kafkaDown) return false;
    return (
      this.waiters.length > 0 ||
      waiting >= this.options.batchTrigger ||
      Date.now() >= this.firstQueuedAt + this.options.lingerMs
    );
  }

  private async waitForWork(spool: DiskSpool): Promise<void> {
    while (!this.stopping && !this.ready(spool)) {
      const lingering = this.queue.length > 0 && (this.session !== undefined || this.kafkaDown);
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          this.wakePump = undefined;
          resolve();
        };
        const timer = lingering
          ? setTimeout(done, Math.max(0, this.firstQueuedAt + this.options.lingerMs - Date.now()))
          : undefined;
        this.wakePump = done;
      });
    }
  }

  private async step(spool: DiskSpool): Promise<void> {
    const mustSpool =
      spool.count() > 0 || (!this.session && (this.kafkaDown || this.queue.length >= MAX_MEMORY_RECORDS));
    if (this.queue.length > 0 && mustSpool) await this.spoolMemory(spool);
    if (this.session && spool.count() > 0) await this.drainSpoolChunk(this.session, spool);
    else if (this.session && this.queue.length > 0) await this.sendMemory(this.session);
  }

  private spoolMemory(spool: DiskSpool): Promise<void> {
    const records = this.queue.takeAll();
    return this.writeTaken(
      records,
      () => spool.append(records),
      async (error) => {
        this.options.logger('error', 'kafka spool: append failed, retrying in 1 s', {
          error: (error as Error).message,
          records: records.length,
        });
        await pause(1000);
      },
    );
  }

  private sendMemory(session: ProducerSession): Promise<void> {
    const batch = this.queue.take(MAX_SEND_RECORDS, MAX_SEND_BYTES);
    return this.writeTaken(
      batch,
      () => session.send(batch),
      (error) => this.dropSession(error),
    );
  }

  /**
   * Writes `records`, just taken from the memory queue, with `write` (to the spool or to Kafka):
   * settles them when it resolves; when it rejects, puts them back at the head of the queue and
   * awaits `onFailure` with the error. They count as pending until it returns.
   */
  private async writeTaken(
    records: QueuedRecord[],
    write: () => Promise<void>,
    onFailure: (error: unknown) => Promise<void> | void,
  ): Promise<void> {
    this.inFlight = records.length;
    try {
      await write();
      this.settle(records);
    } catch (error) {
      this.queue.putBack(records);
      await onFailure(error);
    } finally {
      this.inFlight = 0;
    }
  }

  private async drainSpoolChunk(session: ProducerSession, spool: DiskSpool): Promise<void> {
    const chunk = await spool.peek(MAX_SEND_RECORDS);
    if (chunk.records.length === 0) throw new Error(`kafka spool: ${spool.count()} records counted but none readable`);
    try {
      await session.send(chunk.records);
    } catch (error) {
      this.dropSession(error);
      return;
    }
    await spool.commit(chunk);
    if (spool.count() === 0) this.options.logger('info', 'kafka spool: drained');
  }
}
