/**
 * The embedded file event log against the real file system: order, stored offsets resumed by a
 * new instance, redelivery after a rejected batch, a partially written last record, independent
 * consumer groups, a consumer in a second instance (another process) that only polls, one in
 * another thread's instance woken by each write through the shared write signal, batching by
 * time (a partial batch held for its oldest record's wait, a full batch and a backlog at once).
 */
import { appendFile, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveredRecord, EventLog, Subscription } from '../../../schemas/event-log/event-log.ts';
import { createFileEventLog } from '../../../infra/event-log/file/file-event-log.ts';
import { createFileLogWriteSignal } from '../../../infra/event-log/file/file-log-write-signal.ts';
import { encodeRecordFrame } from '../../../infra/event-log/record-frame-codec.ts';

let dataDir: string;
const open: Array<EventLog | Subscription> = [];

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tollgate-file-log-'));
});
afterEach(async () => {
  for (const item of open.splice(0).reverse()) await ('close' in item ? item.close() : item.stop());
  await rm(dataDir, { recursive: true, force: true });
});

function newLog(): EventLog {
  const log = createFileEventLog({ dataDir, pollIntervalMs: 20 });
  open.push(log);
  return log;
}

async function waitFor(predicate: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Subscribes and collects every delivered batch. */
async function consume(
  log: EventLog,
  groupId: string,
  topics: string[],
  options: {
    maxBatchSize?: number;
    maxBatchWaitMs?: number;
    reject?: (batch: ReadonlyArray<DeliveredRecord>, call: number) => boolean;
  } = {},
) {
  const batches: DeliveredRecord[][] = [];
  const deliveredAt: number[] = [];
  let calls = 0;
  const subscription = await log.subscribe({
    groupId,
    topics,
    ...(options.maxBatchSize ? { maxBatchSize: options.maxBatchSize } : {}),
    ...(options.maxBatchWaitMs ? { maxBatchWaitMs: options.maxBatchWaitMs } : {}),
    handleBatch: async (batch) => {
      calls += 1;
      deliveredAt.push(Date.now());
      if (options.reject?.(batch, calls)) throw new Error('sink unavailable');
      batches.push([...batch]);
    },
  });
  open.push(subscription);
  const records = (): DeliveredRecord[] => batches.flat();
  return { subscription, batches, deliveredAt, records, calls: () => calls };
}

const value = (i: number): Buffer => Buffer.from(`event-${i}`);

describe('file event log', () => {
  it('batches by time: records published over 300 ms reach a subscriber with a 600 ms wait as one batch, no sooner than the wait', async () => {
    const log = newLog();
    const { batches, deliveredAt, records } = await consume(log, 'timed', ['t.a'], {
      maxBatchSize: 100,
      maxBatchWaitMs: 600,
    });
    const firstPublishedAt = Date.now();
    for (let i = 0; i < 6; i += 1) {
      log.publish({ topic: 't.a', key: 'k', value: value(i) });
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await waitFor(() => records().length === 6);
    expect(batches.map((b) => b.length)).toEqual([6]);
    expect((deliveredAt[0] ?? 0) - firstPublishedAt).toBeGreaterThanOrEqual(550);
    expect((deliveredAt[0] ?? 0) - firstPublishedAt).toBeLessThan(2000);
  });

  it('batches by time: a full batch and a backlog older than the wait go at once', async () => {
    const log = newLog();
    for (let i = 0; i < 250; i += 1) log.publish({ topic: 't.a', key: 'k', value: value(i) });
    await log.flush();
    const startedAt = Date.now();
    const { batches, deliveredAt, records } = await consume(log, 'full', ['t.a'], {
      maxBatchSize: 100,
      maxBatchWaitMs: 5000,
    });
    await waitFor(() => records().length === 200);
    expect(batches.slice(0, 2).map((b) => b.length)).toEqual([100, 100]);
    expect((deliveredAt[1] ?? 0) - startedAt).toBeLessThan(1000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(records()).toHaveLength(200); // the 50 left are a partial batch younger than 5 s
    const old = await consume(log, 'old', ['t.a'], { maxBatchSize: 1000, maxBatchWaitMs: 200 });
    await new Promise((resolve) => setTimeout(resolve, 250));
    await waitFor(() => old.records().length === 250, 1000);
  });

  it('batches by time: a batch its read budget cut short (256 KiB for 500 records) goes at once, not after the wait', async () => {
    const log = newLog();
    const big = Buffer.alloc(2048, 0x61); // 200 records of 2 KiB: 400 KiB, more than one read of 256 KiB holds
    for (let i = 0; i < 200; i += 1) log.publish({ topic: 't.a', key: 'k', value: big });
    await log.flush();
    const startedAt = Date.now();
    const { batches, deliveredAt, records } = await consume(log, 'bytes', ['t.a'], {
      maxBatchSize: 500,
      maxBatchWaitMs: 5000,
    });
    await waitFor(() => records().length > 0);
    expect((deliveredAt[0] ?? 0) - startedAt).toBeLessThan(1000);
    expect(batches[0]!.length).toBeGreaterThan(100);
    expect(batches[0]!.length).toBeLessThan(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(records().length).toBe(batches[0]!.length); // the rest fit one read: a partial batch younger than 5 s
  });

  it('delivers every record once, in publish order, with byte-position offsets', async () => {
    const log = newLog();
    for (let i = 0; i < 1200; i += 1)
      log.publish({ topic: i % 3 === 0 ? 't.a' : 't.b', key: `req-${i % 7}`, value: value(i) });
    expect(log.status().pending).toBe(1200);
    await log.flush();
    expect(log.status()).toEqual({ pending: 0, spooled: 0, connected: true });
    const { records, batches } = await consume(log, 'g1', ['t.a', 't.b'], { maxBatchSize: 100 });
    await waitFor(() => records().length === 1200);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(records()).toHaveLength(1200);
    expect(Math.max(...batches.map((b) => b.length))).toBe(100);
    const a = records().filter((r) => r.topic === 't.a');
    expect(a.map((r) => r.value.toString())).toEqual(Array.from({ length: 400 }, (_, k) => `event-${k * 3}`));
    expect(a[0]?.offset).toBe('0');
    const offsets = a.map((r) => Number(r.offset));
    expect(offsets.every((offset, k) => k === 0 || offset > (offsets[k - 1] ?? 0))).toBe(true);
    expect(a.every((r) => r.partition === 0 && r.timestamp > Date.now() - 60_000)).toBe(true);
    expect(
      records()
        .filter((r) => r.topic === 't.b')
        .map((r) => r.key)
        .slice(0, 3),
    ).toEqual(['req-1', 'req-2', 'req-4']);
  });

  it('stores offsets after each batch and a new instance resumes from them', async () => {
    const first = newLog();
    for (let i = 0; i < 10; i += 1) first.publish({ topic: 'orders', key: 'k', value: value(i) });
    const c1 = await consume(first, 'ledger', ['orders'], { maxBatchSize: 4 });
    await waitFor(() => c1.records().length === 10);
    expect(c1.batches.map((b) => b.length)).toEqual([4, 4, 2]);
    await c1.subscription.stop();
    await first.close();
    const stored = Number(await readFile(join(dataDir, 'offsets', 'ledger', 'orders.offset'), 'utf8'));
    expect(stored).toBe((await stat(join(dataDir, 'events', 'orders.log'))).size);

    const second = newLog();
    for (let i = 10; i < 15; i += 1) second.publish({ topic: 'orders', key: 'k', value: value(i) });
    const c2 = await consume(second, 'ledger', ['orders']);
    await waitFor(() => c2.records().length === 5);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(c2.records().map((r) => r.value.toString())).toEqual([
      'event-10',
      'event-11',
      'event-12',
      'event-13',
      'event-14',
    ]);
    expect(Number(c2.records()[0]?.offset)).toBe(stored);
  });

  it('redelivers a rejected batch after a back-off and delivers nothing twice otherwise', async () => {
    const log = newLog();
    for (let i = 0; i < 7; i += 1) log.publish({ topic: 'usage', key: `k${i}`, value: value(i) });
    const attempts: Array<{ at: number; offsets: string[] }> = [];
    const c = await consume(log, 'billing', ['usage'], {
      maxBatchSize: 3,
      reject: (batch, call) => {
        attempts.push({ at: Date.now(), offsets: batch.map((r) => r.offset) });
        return call === 2;
      },
    });
    await waitFor(() => c.records().length === 7);
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(attempts).toHaveLength(4);
    expect(attempts[2]?.offsets).toEqual(attempts[1]?.offsets);
    expect((attempts[2]?.at ?? 0) - (attempts[1]?.at ?? 0)).toBeGreaterThanOrEqual(190);
    expect(c.records().map((r) => r.value.toString())).toEqual(Array.from({ length: 7 }, (_, i) => `event-${i}`));
  });

  it('waits for the rest of a partially written last record, and a writer cuts a torn tail off', async () => {
    const path = join(dataDir, 'events', 'partial.log');
    const whole = encodeRecordFrame({ topic: '', key: 'a', value: value(1), timestamp: 1 });
    const next = encodeRecordFrame({ topic: '', key: 'b', value: value(2), timestamp: 2 });
    await mkdir(join(dataDir, 'events'), { recursive: true });
    await writeFile(path, Buffer.concat([whole, next.subarray(0, 7)]));
    const reader = createFileEventLog({ dataDir, pollIntervalMs: 20 });
    open.push(reader);
    const c = await consume(reader, 'g', ['partial']);
    await waitFor(() => c.records().length === 1);
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(c.records()).toHaveLength(1);
    await appendFile(path, next.subarray(7));
    await waitFor(() => c.records().length === 2);
    expect(c.records().map((r) => [r.key, r.offset, r.timestamp])).toEqual([
      ['a', '0', 1],
      ['b', String(whole.length), 2],
    ]);

    await appendFile(path, next.subarray(0, 5));
    const writer = createFileEventLog({ dataDir });
    open.push(writer);
    writer.publish({ topic: 'partial', key: 'c', value: value(3) });
    await writer.flush();
    expect((await stat(path)).size).toBe(
      whole.length + next.length + encodeRecordFrame({ topic: '', key: 'c', value: value(3), timestamp: 0 }).length,
    );
    await waitFor(() => c.records().length === 3);
    expect(c.records()[2]?.key).toBe('c');
  });

  it('keeps consumer groups independent', async () => {
    const log = newLog();
    for (let i = 0; i < 20; i += 1) log.publish({ topic: 'req', key: 'k', value: value(i) });
    const failing = await consume(log, 'health', ['req'], { maxBatchSize: 5, reject: (_, call) => call <= 3 });
    const healthy = await consume(log, 'ledger', ['req'], { maxBatchSize: 5 });
    await waitFor(() => healthy.records().length === 20);
    expect(failing.records()).toHaveLength(0);
    await waitFor(() => failing.records().length === 20, 6000);
    expect(failing.records().map((r) => r.offset)).toEqual(healthy.records().map((r) => r.offset));
    const offsetOf = (group: string): Promise<string> =>
      readFile(join(dataDir, 'offsets', group, 'req.offset'), 'utf8');
    // Offsets are committed after the handler resolves: the last commit may still be in flight.
    await expect
      .poll(
        async () => (await offsetOf('health')) === (await offsetOf('ledger')) && (await offsetOf('ledger')) !== '',
        { timeout: 5000 },
      )
      .toBe(true);
    await expect(log.subscribe({ groupId: 'ledger', topics: ['req'], handleBatch: async () => {} })).rejects.toThrow(
      /already subscribed/,
    );
  });

  it('lets a consumer in a second instance (another process) follow appends by polling', async () => {
    const writer = newLog();
    const reader = newLog();
    const c = await consume(reader, 'remote', ['live']);
    for (let i = 0; i < 50; i += 1) writer.publish({ topic: 'live', key: 'k', value: value(i) });
    await writer.flush();
    await waitFor(() => c.records().length === 50);
    writer.publish({ topic: 'live', key: 'k', value: value(50) });
    await waitFor(() => c.records().length === 51);
    expect(c.records().map((r) => r.value.toString())).toEqual(Array.from({ length: 51 }, (_, i) => `event-${i}`));
  });

  it("wakes a consumer in another thread's instance through the shared write signal at once, not at its next poll", async () => {
    const signal = createFileLogWriteSignal();
    const writer = createFileEventLog({ dataDir, pollIntervalMs: 20, writeSignal: { signal, side: 'writer' } });
    const reader = createFileEventLog({ dataDir, pollIntervalMs: 30_000, writeSignal: { signal, side: 'reader' } });
    open.push(writer, reader);
    const c = await consume(reader, 'thread', ['live']);
    await new Promise((resolve) => setTimeout(resolve, 100)); // its first poll found nothing: it now waits 30 s
    writer.publish({ topic: 'live', key: 'k', value: value(0) });
    await waitFor(() => c.records().length === 1, 3000);
    writer.publish({ topic: 'live', key: 'k', value: value(1) });
    await waitFor(() => c.records().length === 2, 3000);
  });

  it('stop() waits for the in-flight batch', async () => {
    const log = newLog();
    log.publish({ topic: 'slow', key: 'k', value: value(0) });
    let finished = false;
    let started = false;
    const subscription = await log.subscribe({
      groupId: 'slow',
      topics: ['slow'],
      handleBatch: async () => {
        started = true;
        await new Promise((resolve) => setTimeout(resolve, 150));
        finished = true;
      },
    });
    await waitFor(() => started);
    await subscription.stop();
    expect(finished).toBe(true);
    expect(await readFile(join(dataDir, 'offsets', 'slow', 'slow.offset'), 'utf8')).not.toBe('0');
  });
});
