/**
 * Group-less reads of the Kafka adapter (EventLog.read) on a real broker: every record from the
 * first one (or from given offsets), no committed offset ever (the reader's position comes from
 * committedOffsets of this instance while it runs), its throwaway group deleted when it stops or
 * when the event log closes, and an empty throwaway group of a killed reader deleted by the next
 * read's start while a live reader's group is kept.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveredRecord, EventLog, ReadOptions, Subscription } from '../../../schemas/event-log/event-log.ts';
import { createKafkaEventLog } from '../../../infra/event-log/kafka/kafka-event-log.ts';
import { requireEngineUrl, withoutEngines } from '../../support/engines.ts';
import { waitUntil } from './collect-records.ts';

const RUN = `${Date.now().toString(36)}${process.pid}`;
const TOPIC = `read-test-${RUN}`;

describe.skipIf(withoutEngines)('kafka event log: group-less read', () => {
  let brokers: string[];
  let spoolDir: string;
  let log: EventLog;
  let admin: ReturnType<Kafka['admin']>;

  const groupsOf = async (prefix: string): Promise<string[]> =>
    (await admin.listGroups()).groups.map((group) => group.groupId).filter((id) => id.startsWith(prefix));

  async function startRead(
    target: EventLog,
    options: Omit<ReadOptions, 'handleBatch' | 'topics'>,
  ): Promise<{ seen: DeliveredRecord[]; reading: Subscription }> {
    const seen: DeliveredRecord[] = [];
    const reading = await target.read!({
      ...options,
      topics: [TOPIC],
      handleBatch: async (records) => void seen.push(...records),
    });
    return { seen, reading };
  }

  beforeAll(async () => {
    brokers = (await requireEngineUrl('KAFKA_BROKERS')).split(',');
    spoolDir = await mkdtemp(join(tmpdir(), 'tollgate-kafka-read-'));
    log = createKafkaEventLog({ brokers, spoolDir });
    admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    for (let i = 0; i < 9; i++) log.publish({ topic: TOPIC, key: `key-${i}`, value: Buffer.from(`record ${i}`) });
    await log.flush();
  }, 60_000);

  afterAll(async () => {
    await log?.close();
    await admin?.disconnect();
    if (spoolDir) await rm(spoolDir, { recursive: true, force: true });
  });

  it('reads every record without committing, answers its position, and deletes its group on stop', async () => {
    const name = `reader-${RUN}-a`;
    const { seen, reading } = await startRead(log, { name });
    await waitUntil('all nine records', () => seen.length === 9);
    const [group] = await groupsOf(name);
    expect(group).toMatch(/\.ephemeral-[0-9a-f]{12}$/);
    // Nothing committed in Kafka; the instance answers the reader's in-memory position.
    const committed = await admin.fetchOffsets({ groupId: group!, topics: [TOPIC] });
    expect(committed.flatMap((topic) => topic.partitions).every((partition) => partition.offset === '-1')).toBe(true);
    const ends = await log.endOffsets(TOPIC);
    expect(await log.committedOffsets!(name, TOPIC)).toEqual(ends.filter((end) => end.offset !== '0'));
    await reading.stop();
    expect(await groupsOf(name)).toEqual([]);
  }, 60_000);

  it('starts at given offsets', async () => {
    const ends = await log.endOffsets(TOPIC);
    const from = ends.map(({ partition, offset }) => ({
      topic: TOPIC,
      partition,
      offset: String(Math.max(0, Number(offset) - 1)),
    }));
    const expected = ends.filter((end) => end.offset !== '0').length;
    const { seen, reading } = await startRead(log, { name: `reader-${RUN}-b`, from });
    await waitUntil('the last record of each partition', () => seen.length === expected);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(seen).toHaveLength(expected);
    await reading.stop();
  }, 60_000);

  it('deletes its group when the event log closes', async () => {
    const other = createKafkaEventLog({ brokers, spoolDir: await mkdtemp(join(tmpdir(), 'tollgate-kafka-read-')) });
    const name = `reader-${RUN}-c`;
    const { seen } = await startRead(other, { name });
    await waitUntil('all nine records', () => seen.length === 9);
    await other.close();
    expect(await groupsOf(name)).toEqual([]);
  }, 60_000);

  it("deletes a killed reader's empty group at the next read's start, and keeps a live reader's", async () => {
    // A killed reader: a group that a member joined and left without committing (the member's session already expired).
    const dead = `reader-${RUN}-dead.ephemeral-0123456789ab`;
    const consumer = new Kafka({ brokers, logLevel: logLevel.NOTHING }).consumer({ groupId: dead });
    await consumer.connect();
    await consumer.subscribe({ topics: [TOPIC], fromBeginning: true });
    await consumer.run({ autoCommit: false, eachBatch: async () => {} });
    await waitUntil('the dead reader joined', () => false, 3000).catch(() => {});
    await consumer.disconnect();
    expect(await groupsOf(dead)).toEqual([dead]);
    const live = await startRead(log, { name: `reader-${RUN}-live` });
    expect(await groupsOf(dead)).toEqual([]);
    const next = await startRead(log, { name: `reader-${RUN}-next` });
    expect(await groupsOf(`reader-${RUN}-live`)).toHaveLength(1);
    await next.reading.stop();
    await live.reading.stop();
  }, 60_000);
});
