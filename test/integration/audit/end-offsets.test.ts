/**
 * EventLog.endOffsets on both adapters and through the topic-prefix wrapper: for every partition,
 * the last delivered record's offset is end - 1 (the rule `tollgate events` and `tollgate replay`
 * stop by), empty partitions report '0', a topic that does not exist has no partitions (and is
 * not created), and the file log ignores a partially written last record.
 */
import { appendFile, mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeliveredRecord, EventLog } from '../../../schemas/event-log/event-log.ts';
import { createFileEventLog } from '../../../infra/event-log/file/file-event-log.ts';
import { createKafkaEventLog } from '../../../infra/event-log/kafka/kafka-event-log.ts';
import { withTopicPrefix } from '../../../infra/event-log/prefixed-event-log.ts';
import { encodeRecordFrame } from '../../../infra/event-log/record-frame-codec.ts';
import { TOPIC_PARTITIONS } from '../../../schemas/topics.ts';
import { requireEngineUrl, withoutEngines } from '../../support/engines.ts';

const RUN = `${Date.now().toString(36)}${process.pid}`;
let groups = 0;

/** Reads `topic` from its first record (a new group) until `expected` records arrived. */
async function readAll(log: EventLog, topic: string, expected: number): Promise<DeliveredRecord[]> {
  const records: DeliveredRecord[] = [];
  groups += 1;
  const subscription = await log.subscribe({
    groupId: `end-offsets-${RUN}-${groups}`,
    topics: [topic],
    handleBatch: async (batch) => void records.push(...batch),
  });
  const deadline = Date.now() + 20_000;
  while (records.length < expected && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
  await subscription.stop();
  expect(records).toHaveLength(expected);
  return records;
}

/** The end each partition must report: the highest delivered offset + 1, '0' where nothing was delivered. */
function expectedEnds(
  records: ReadonlyArray<DeliveredRecord>,
  partitions: number,
): Array<{ partition: number; offset: string }> {
  return Array.from({ length: partitions }, (_, partition) => {
    const offsets = records.filter((record) => record.partition === partition).map((record) => BigInt(record.offset));
    return {
      partition,
      offset: offsets.length === 0 ? '0' : (offsets.reduce((a, b) => (a > b ? a : b)) + 1n).toString(),
    };
  });
}

describe('file event log endOffsets', () => {
  let dataDir: string;
  let log: EventLog;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tollgate-end-offsets-'));
    log = createFileEventLog({ dataDir, pollIntervalMs: 20 });
  });
  afterAll(async () => {
    await log?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('has no partitions for a topic never written, and rejects an illegal name', async () => {
    expect(await log.endOffsets('audit.none')).toEqual([]);
    await expect(log.endOffsets('no/such')).rejects.toThrow(/illegal topic name/);
  });

  it('reports the last record position + 1, and follows later appends', async () => {
    for (let i = 0; i < 5; i += 1)
      log.publish({ topic: 'audit.file', key: `k${i}`, value: Buffer.from(`value-${i}`.repeat(i + 1)) });
    await log.flush();
    const first = await readAll(log, 'audit.file', 5);
    expect(await log.endOffsets('audit.file')).toEqual(expectedEnds(first, 1));
    log.publish({ topic: 'audit.file', key: 'k5', value: Buffer.from('one more') });
    await log.flush();
    const second = await readAll(log, 'audit.file', 6);
    expect(await log.endOffsets('audit.file')).toEqual(expectedEnds(second, 1));
    // Another instance (another process) walks the file itself and agrees.
    const other = createFileEventLog({ dataDir });
    expect(await other.endOffsets('audit.file')).toEqual(expectedEnds(second, 1));
    await other.close();
  });

  it('ignores a partially written last record and reports 0 for a file without a whole record', async () => {
    await mkdir(join(dataDir, 'events'), { recursive: true });
    const path = join(dataDir, 'events', 'audit.torn.log');
    const frame = (i: number): Buffer =>
      encodeRecordFrame({ topic: '', key: `k${i}`, value: Buffer.from(`v${i}`), timestamp: 1 });
    await appendFile(path, frame(0).subarray(0, 7));
    expect(await log.endOffsets('audit.torn')).toEqual([{ partition: 0, offset: '0' }]);
    await rm(path);
    await appendFile(path, Buffer.concat([frame(0), frame(1), frame(2).subarray(0, 9)]));
    expect(await log.endOffsets('audit.torn')).toEqual([{ partition: 0, offset: String(frame(0).length + 1) }]);
  });
});

describe.skipIf(withoutEngines)('kafka event log endOffsets', () => {
  let spoolDir: string;
  let log: EventLog;

  beforeAll(async () => {
    spoolDir = await mkdtemp(join(tmpdir(), 'tollgate-end-offsets-spool-'));
    log = createKafkaEventLog({
      brokers: (await requireEngineUrl('KAFKA_BROKERS')).split(','),
      spoolDir,
      clientId: `end-offsets-${RUN}`,
    });
  });
  afterAll(async () => {
    await log?.close();
    await rm(spoolDir, { recursive: true, force: true });
  });

  it('has no partitions for a topic that does not exist, and does not create it', async () => {
    expect(await log.endOffsets(`audit.none.${RUN}`)).toEqual([]);
    expect(await log.endOffsets(`audit.none.${RUN}`)).toEqual([]);
  });

  it('reports the high watermark of every partition, 0 for empty ones', async () => {
    const topic = `audit.kafka.${RUN}`;
    // One key: every record in one partition, so the other partitions stay empty.
    for (let i = 0; i < 7; i += 1) log.publish({ topic, key: 'one-key', value: Buffer.from(String(i)) });
    await log.flush();
    const records = await readAll(log, topic, 7);
    const ends = await log.endOffsets(topic);
    expect(ends).toEqual(expectedEnds(records, TOPIC_PARTITIONS));
    expect(ends.filter((end) => end.offset === '0')).toHaveLength(TOPIC_PARTITIONS - 1);
  });

  it('asks for the prefixed topic through withTopicPrefix', async () => {
    const prefixed = withTopicPrefix(log, `p${RUN}.`);
    for (let i = 0; i < 12; i += 1)
      prefixed.publish({ topic: 'audit.prefixed', key: `key-${i}`, value: Buffer.from(String(i)) });
    await prefixed.flush();
    const records = await readAll(prefixed, 'audit.prefixed', 12);
    expect(await prefixed.endOffsets('audit.prefixed')).toEqual(expectedEnds(records, TOPIC_PARTITIONS));
    expect(await log.endOffsets(`p${RUN}.audit.prefixed`)).toEqual(await prefixed.endOffsets('audit.prefixed'));
    expect(await log.endOffsets('audit.prefixed')).toEqual([]);
  });
});
