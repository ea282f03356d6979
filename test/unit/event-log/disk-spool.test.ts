/**
 * The Kafka adapter's disk spool on the real file system, and the adapter spooling against a
 * broker address that refuses connections (no Kafka needed): publish returns at once, flush
 * resolves once the records are fsync'ed in the spool, and a new instance finds them.
 */
import { appendFile, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDiskSpool } from '../../../infra/event-log/kafka/disk-spool.ts';
import { createKafkaEventLog } from '../../../infra/event-log/kafka/kafka-event-log.ts';
import { createKafkajsLogCreator } from '../../../infra/event-log/kafka/kafkajs-log-creator.ts';
import { logLevel } from 'kafkajs';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tollgate-spool-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const record = (i: number) => ({
  topic: `topic-${i % 2}`,
  key: `key-${i}`,
  value: Buffer.from(`value-${i}`),
  timestamp: 1_700_000_000_000 + i,
});
const silent = (): void => {};

describe('disk spool', () => {
  it('drains in order across reopenings, cuts a torn tail and truncates when empty', async () => {
    const spool = await openDiskSpool(dir, silent);
    await spool.append([0, 1, 2, 3, 4].map(record));
    await spool.append([5, 6].map(record));
    const first = await spool.peek(3);
    expect(first.records.map((r) => r.key)).toEqual(['key-0', 'key-1', 'key-2']);
    expect(first.records[0]).toEqual(record(0));
    await spool.commit(first);
    expect(spool.count()).toBe(4);
    await spool.close();
    await appendFile(join(dir, 'spool.log'), Buffer.from([0, 0, 0, 40, 1, 2]));

    const lines: string[] = [];
    const reopened = await openDiskSpool(dir, (level, message) => void lines.push(`${level} ${message}`));
    expect(reopened.count()).toBe(4);
    expect(lines).toEqual([
      'warn kafka spool: cut off a partially written last record',
      'warn kafka spool: records left by a previous run will be sent first',
    ]);
    await reopened.append([record(7)]);
    const rest = await reopened.peek(100);
    expect(rest.records.map((r) => r.key)).toEqual(['key-3', 'key-4', 'key-5', 'key-6', 'key-7']);
    await reopened.commit(rest);
    expect(reopened.count()).toBe(0);
    expect((await stat(join(dir, 'spool.log'))).size).toBe(0);
    expect(await readFile(join(dir, 'spool.pos'), 'utf8')).toBe('0');
    await reopened.close();
  });
});

describe('kafka event log with Kafka unreachable', () => {
  it('returns from publish at once and resolves flush once the records are spooled', async () => {
    const port = await closedPort();
    const log = createKafkaEventLog({ brokers: [`127.0.0.1:${port}`], spoolDir: dir });
    const started = performance.now();
    for (let i = 0; i < 1000; i += 1)
      log.publish({ topic: 'tollgate.requests', key: `r${i}`, value: Buffer.from(String(i)) });
    const publishMs = performance.now() - started;
    expect(publishMs).toBeLessThan(50);
    const flushStarted = Date.now();
    await log.flush();
    expect(Date.now() - flushStarted).toBeLessThan(5000);
    expect(log.status()).toEqual({ pending: 0, spooled: 1000, connected: false });
    log.publish({ topic: 'bad topic/..', key: 'k', value: Buffer.alloc(1) });
    await log.close();
    log.publish({ topic: 'tollgate.requests', key: 'late', value: Buffer.alloc(1) });

    const spool = await openDiskSpool(dir, silent);
    expect(spool.count()).toBe(1000);
    const chunk = await spool.peek(1000);
    expect(chunk.records.map((r) => r.value.toString())).toEqual(Array.from({ length: 1000 }, (_, i) => String(i)));
    await spool.close();
  });
});

describe('kafkajs log creator', () => {
  it('drops the expected warning, demotes connection noise and collapses repeats', () => {
    const lines: Array<[string, string, unknown]> = [];
    const log = createKafkajsLogCreator((level, message, extra) => void lines.push([level, message, extra]))(
      logLevel.WARN,
    );
    const entry = (namespace: string, level: logLevel, message: string) => ({
      namespace,
      level,
      label: 'x',
      log: { timestamp: 't', message },
    });
    log(entry('Producer', logLevel.WARN, 'Limiting retries for the idempotent producer may invalidate EoS guarantees'));
    log(entry('Connection', logLevel.ERROR, 'Connection error: connect ECONNREFUSED'));
    log(entry('Consumer', logLevel.ERROR, 'Restarting the consumer in 229.5ms'));
    log(entry('Consumer', logLevel.ERROR, 'Restarting the consumer in 231ms'));
    log(
      entry(
        'Producer',
        logLevel.ERROR,
        'Failed to send messages: This server is not the leader for that topic-partition',
      ),
    );
    log(entry('Producer', logLevel.ERROR, 'Producer disconnected'));
    expect(lines.map(([level, message]) => `${level} ${message}`)).toEqual([
      'debug kafkajs Connection: Connection error: connect ECONNREFUSED',
      'error kafkajs Consumer: Restarting the consumer in 229.5ms',
      'debug kafkajs Producer: Failed to send messages: This server is not the leader for that topic-partition',
      'error kafkajs Producer: Producer disconnected',
    ]);
  });
});

function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}
