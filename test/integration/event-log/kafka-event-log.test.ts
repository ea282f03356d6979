/**
 * The Kafka adapter against a real broker (KAFKA_BROKERS): per-key order across partitions,
 * redelivery of a rejected batch, offsets committed only after the handler resolved, and batching
 * by time (the fetch held for `maxBatchWaitMs`).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventLog } from '../../../schemas/event-log/event-log.ts';
import { createKafkaEventLog } from '../../../infra/event-log/kafka/kafka-event-log.ts';
import { TOPIC_PARTITIONS } from '../../../schemas/topics.ts';
import { requireEngineUrl, withoutEngines } from '../../support/engines.ts';
import { collect, RUN_ID, waitUntil } from './collect-records.ts';

let brokers: string[];
let spoolDir: string;
let log: EventLog;
const problems: string[] = [];

beforeAll(async () => {
  brokers = (await requireEngineUrl('KAFKA_BROKERS')).split(',');
  spoolDir = await mkdtemp(join(tmpdir(), 'tollgate-kafka-spool-'));
  log = createKafkaEventLog({
    brokers,
    spoolDir,
    clientId: `test-${RUN_ID}`,
    logger: (level, message) => {
      if (level === 'error' || level === 'warn') problems.push(`${level} ${message}`);
    },
  });
});
afterAll(async () => {
  await log?.close();
  await rm(spoolDir, { recursive: true, force: true });
});

describe.skipIf(withoutEngines)('kafka event log', () => {
  it('batches by time: records published 60 ms apart reach a subscriber with maxBatchWaitMs in a few batches, and one without in many', async () => {
    const topic = `test.timed.${RUN_ID}`;
    const timed = await collect(log, `timed-${RUN_ID}`, [topic], { maxBatchWaitMs: 1500 });
    const immediate = await collect(log, `immediate-${RUN_ID}`, [topic]);
    log.publish({ topic, key: 'same', value: Buffer.from('warm-up') });
    await log.flush();
    await waitUntil(
      'both groups fetching',
      () => timed.accepted.length === 1 && immediate.accepted.length === 1,
      60_000,
    );
    const [timedBefore, immediateBefore] = [timed.calls.length, immediate.calls.length];
    for (let i = 0; i < 10; i += 1) {
      log.publish({ topic, key: 'same', value: Buffer.from(String(i)) });
      await log.flush();
      await new Promise((resolve) => setTimeout(resolve, 60));
    }
    await waitUntil('11 records each', () => timed.accepted.length === 11 && immediate.accepted.length === 11);
    await Promise.all([timed.subscription.stop(), immediate.subscription.stop()]);
    const timedBatches = timed.calls.length - timedBefore;
    const immediateBatches = immediate.calls.length - immediateBefore;
    expect(timedBatches).toBeLessThanOrEqual(3);
    expect(immediateBatches).toBeGreaterThan(timedBatches);
    expect(timed.accepted.slice(1).map((r) => r.value.toString())).toEqual(
      Array.from({ length: 10 }, (_, i) => String(i)),
    );
  });

  it('keeps per-key order across partitions and delivers every record once', async () => {
    const topic = `test.order.${RUN_ID}`;
    const started = Date.now();
    for (let i = 0; i < 3000; i += 1) log.publish({ topic, key: `req-${i % 30}`, value: Buffer.from(String(i)) });
    expect(Date.now() - started).toBeLessThan(200);
    await log.flush();
    expect(log.status()).toMatchObject({ pending: 0, spooled: 0, connected: true });
    const consumer = await collect(log, `order-${RUN_ID}`, [topic], { maxBatchSize: 250 });
    await waitUntil('3000 records', () => consumer.accepted.length >= 3000);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await consumer.subscription.stop();
    expect(consumer.accepted).toHaveLength(3000);
    expect(Math.max(...consumer.calls.map((c) => c.size))).toBeLessThanOrEqual(250);
    const byKey = new Map<string, { partitions: Set<number>; values: number[] }>();
    for (const record of consumer.accepted) {
      const entry = byKey.get(record.key) ?? { partitions: new Set(), values: [] };
      entry.partitions.add(record.partition);
      entry.values.push(Number(record.value.toString()));
      byKey.set(record.key, entry);
    }
    expect(byKey.size).toBe(30);
    for (const [key, { partitions, values }] of byKey) {
      expect(partitions.size, key).toBe(1);
      expect(values, key).toEqual([...values].sort((a, b) => a - b));
      expect(values, key).toHaveLength(100);
    }
    expect(new Set(consumer.accepted.map((r) => r.partition)).size).toBe(TOPIC_PARTITIONS);
  });

  it('redelivers a rejected batch to the same consumer after a back-off', async () => {
    const topic = `test.redeliver.${RUN_ID}`;
    for (let i = 0; i < 12; i += 1) log.publish({ topic, key: 'one-key', value: Buffer.from(String(i)) });
    await log.flush();
    const consumer = await collect(log, `redeliver-${RUN_ID}`, [topic], {
      maxBatchSize: 5,
      reject: (call) => call === 2,
    });
    await waitUntil('12 records', () => consumer.accepted.length >= 12);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await consumer.subscription.stop();
    expect(consumer.accepted.map((r) => r.value.toString())).toEqual(Array.from({ length: 12 }, (_, i) => String(i)));
    expect(consumer.calls.map((c) => [c.size, c.rejected])).toEqual([
      [5, false],
      [5, true],
      [5, false],
      [2, false],
    ]);
    expect(consumer.calls[2]?.first).toBe(consumer.calls[1]?.first);
  });

  it('commits only after the handler resolved: a new consumer gets the rejected batch again', async () => {
    const topic = `test.commit.${RUN_ID}`;
    const groupId = `commit-${RUN_ID}`;
    for (let i = 0; i < 10; i += 1) log.publish({ topic, key: 'one-key', value: Buffer.from(String(i)) });
    await log.flush();
    const first = await collect(log, groupId, [topic], { maxBatchSize: 4, reject: (call) => call >= 2 });
    await waitUntil('a rejected batch', () => first.calls.some((c) => c.rejected));
    await first.subscription.stop();
    expect(first.accepted.map((r) => r.value.toString())).toEqual(['0', '1', '2', '3']);

    const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    const [committed] = await admin.fetchOffsets({ groupId, topics: [topic] });
    await admin.disconnect();
    const partition = first.accepted[0]?.partition;
    expect(committed?.partitions.find((p) => p.partition === partition)?.offset).toBe(
      String(Number(first.accepted[3]?.offset) + 1),
    );

    const second = await collect(log, groupId, [topic], { maxBatchSize: 4 });
    await waitUntil('the remaining 6 records', () => second.accepted.length >= 6);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await second.subscription.stop();
    expect(second.accepted.map((r) => r.value.toString())).toEqual(['4', '5', '6', '7', '8', '9']);
    expect(second.calls[0]?.first).toBe(first.calls[1]?.first);
    expect(problems.filter((p) => p.startsWith('error'))).toEqual([]);
  });
});
