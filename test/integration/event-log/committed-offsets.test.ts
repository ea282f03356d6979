/**
 * EventLog.committedOffsets and the consumer lag built on it (measureConsumerLag), on both adapters
 * and through the topic-prefix wrapper: a group that never committed has no positions and lags by
 * the whole topic; while its subscription is stopped the lag grows with every record published, and
 * after it resumed and committed the lag is 0 on every partition.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { EventLog } from '../../../schemas/event-log/event-log.ts';
import { measureConsumerLag } from '../../../schemas/event-log/measure-consumer-lag.ts';
import { createFileEventLog } from '../../../infra/event-log/file/file-event-log.ts';
import { createKafkaEventLog } from '../../../infra/event-log/kafka/kafka-event-log.ts';
import { withTopicPrefix } from '../../../infra/event-log/prefixed-event-log.ts';
import { requireEngineUrl, withoutEngines } from '../../support/engines.ts';

const RUN = `${Date.now().toString(36)}${process.pid}`;
const cleanups: Array<() => Promise<unknown>> = [];

afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** Publishes `count` records with distinct keys (so Kafka spreads them over partitions) and flushes. */
async function publish(log: EventLog, topic: string, count: number, from: number): Promise<void> {
  for (let i = from; i < from + count; i++) log.publish({ topic, key: `key-${i}`, value: Buffer.from(`record ${i}`) });
  await log.flush();
}

/** Subscribes `groupId` until it handled `expected` records, then stops (offsets committed after each batch). */
async function consume(log: EventLog, groupId: string, topic: string, expected: number): Promise<void> {
  let handled = 0;
  const subscription = await log.subscribe({
    groupId,
    topics: [topic],
    handleBatch: async (batch) => void (handled += batch.length),
  });
  const deadline = Date.now() + 30_000;
  while (handled < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  await subscription.stop();
  expect(handled).toBe(expected);
}

const totalLag = async (log: EventLog, groupId: string, topic: string): Promise<number> =>
  (await measureConsumerLag(log, groupId, [topic])).reduce((sum, p) => sum + p.lag, 0);

async function lagFollowsConsumption(log: EventLog, topic: string): Promise<void> {
  const groupId = `lag-${RUN}`;
  await publish(log, topic, 6, 0);
  expect(await log.committedOffsets!(groupId, topic)).toEqual([]);
  expect(await totalLag(log, groupId, topic)).toBeGreaterThan(0);
  await consume(log, groupId, topic, 6);
  expect(await totalLag(log, groupId, topic)).toBe(0);
  expect((await log.committedOffsets!(groupId, topic)).length).toBeGreaterThan(0);
  await publish(log, topic, 3, 6);
  const behind = await totalLag(log, groupId, topic);
  expect(behind).toBeGreaterThan(0);
  await publish(log, topic, 3, 9);
  expect(await totalLag(log, groupId, topic)).toBeGreaterThan(behind);
  await consume(log, groupId, topic, 6);
  expect(await totalLag(log, groupId, topic)).toBe(0);
}

describe('file event log committedOffsets', () => {
  it('reports the stored position, and the lag rises and falls with consumption', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'tollgate-committed-'));
    const log = createFileEventLog({ dataDir, pollIntervalMs: 20 });
    cleanups.push(
      () => rm(dataDir, { recursive: true, force: true }),
      () => log.close(),
    );
    await expect(log.committedOffsets!('no/such', 'lag.topic')).rejects.toThrow(/illegal/);
    await lagFollowsConsumption(log, 'lag.topic');
  });
});

describe.skipIf(withoutEngines)('kafka event log committedOffsets', () => {
  it('reports the committed offsets through the topic prefix, and the lag rises and falls with consumption', async () => {
    const spoolDir = await mkdtemp(join(tmpdir(), 'tollgate-committed-spool-'));
    const kafka = createKafkaEventLog({
      brokers: (await requireEngineUrl('KAFKA_BROKERS')).split(','),
      spoolDir,
      clientId: `committed-${RUN}`,
    });
    cleanups.push(
      () => rm(spoolDir, { recursive: true, force: true }),
      () => kafka.close(),
    );
    const log = withTopicPrefix(kafka, `${RUN}.`);
    expect(await log.committedOffsets!(`lag-${RUN}`, 'lag.none')).toEqual([]);
    await lagFollowsConsumption(log, 'lag.topic');
  }, 120_000);
});
