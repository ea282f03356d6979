/**
 * Group-less reads of the embedded file log (EventLog.read): from the first record or a given
 * position, live appends, redelivery of a rejected batch, the reader's position answered by
 * committedOffsets while it runs, and never an `offsets/` folder in the data dir.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DeliveredRecord, EventLog, ReadOptions, Subscription } from '../../../schemas/event-log/event-log.ts';
import { createFileEventLog } from '../../../infra/event-log/file/file-event-log.ts';
import { withTopicPrefix } from '../../../infra/event-log/prefixed-event-log.ts';
import { withGrouplessSubscriptions } from '../../../infra/event-log/groupless-event-log.ts';

let dataDir: string;
const open: Array<EventLog | Subscription> = [];

beforeEach(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'tollgate-file-read-'));
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

async function publish(log: EventLog, topic: string, keys: string[]): Promise<void> {
  for (const key of keys) log.publish({ topic, key, value: Buffer.from(`v-${key}`) });
  await log.flush();
}

async function startRead(
  log: EventLog,
  options: Omit<ReadOptions, 'handleBatch'>,
  reject?: (call: number) => boolean,
): Promise<DeliveredRecord[]> {
  const seen: DeliveredRecord[] = [];
  let calls = 0;
  const read = log.read?.bind(log);
  if (!read) throw new Error('the file log has read()');
  open.push(
    await read({
      ...options,
      handleBatch: async (records) => {
        calls += 1;
        if (reject?.(calls)) throw new Error('sink unavailable (test)');
        seen.push(...records);
      },
    }),
  );
  return seen;
}

const offsetsFolder = (): Promise<string[]> => readdir(join(dataDir, 'offsets')).catch(() => []);

describe('file event log: group-less read', () => {
  it('reads from the first record and follows appends, creating no offsets folder', async () => {
    const log = newLog();
    await publish(log, 't.a', ['k1', 'k2']);
    const seen = await startRead(log, { name: 'reader.one', topics: ['t.a', 't.missing'] });
    await waitFor(() => seen.length === 2);
    await publish(log, 't.a', ['k3']);
    await waitFor(() => seen.length === 3);
    expect(seen.map((record) => record.key)).toEqual(['k1', 'k2', 'k3']);
    expect(await offsetsFolder()).toEqual([]);
  });

  it('starts at a given position, and answers its position through committedOffsets while it runs', async () => {
    const log = newLog();
    await publish(log, 't.a', ['k1', 'k2', 'k3']);
    const all = await startRead(log, { name: 'reader.all', topics: ['t.a'] });
    await waitFor(() => all.length === 3);
    const second = all[1]!;
    const fromSecond = await startRead(log, {
      name: 'reader.from',
      topics: ['t.a'],
      from: [{ topic: 't.a', partition: 0, offset: second.offset }],
    });
    await waitFor(() => fromSecond.length === 2);
    expect(fromSecond.map((record) => record.key)).toEqual(['k2', 'k3']);
    const [end] = await log.endOffsets('t.a');
    const position = await log.committedOffsets?.('reader.all', 't.a');
    expect(BigInt(position?.[0]?.offset ?? '0')).toBeGreaterThanOrEqual(BigInt(end?.offset ?? '1'));
    for (const reader of open.splice(1)) if ('stop' in reader) await reader.stop();
    expect(await log.committedOffsets?.('reader.all', 't.a')).toEqual([]);
    expect(await offsetsFolder()).toEqual([]);
  });

  it('delivers a rejected batch again', async () => {
    const log = newLog();
    await publish(log, 't.a', ['k1', 'k2']);
    const seen = await startRead(log, { name: 'reader.retry', topics: ['t.a'] }, (call) => call === 1);
    await waitFor(() => seen.length === 2, 10_000);
    expect(seen.map((record) => record.key)).toEqual(['k1', 'k2']);
  });

  it('reads under a topic prefix, and turns subscriptions into reads with withGrouplessSubscriptions', async () => {
    const log = newLog();
    const prefixed = withGrouplessSubscriptions(withTopicPrefix(log, 'stage.'));
    await publish(prefixed, 't.a', ['k1']);
    const seen: DeliveredRecord[] = [];
    open.push(
      await prefixed.subscribe({
        groupId: 'tollgate.replay.x.ledger',
        topics: ['t.a'],
        handleBatch: async (records) => void seen.push(...records),
      }),
    );
    await waitFor(() => seen.length === 1);
    expect(seen[0]).toMatchObject({ topic: 't.a', key: 'k1' });
    expect(await offsetsFolder()).toEqual([]);
  });
});
