/**
 * The per-node follower of the config topic against both event-log adapters: the embedded file
 * log (temp dir) and real Kafka (KAFKA_BROKERS, a topic prefix unique to this run). Two nodes on
 * one log: read-your-writes on the appending node, propagation to the other node within 1 s
 * (measured, printed), ready() on a fresh and on a non-empty topic, undecodable records skipped,
 * and — on Kafka — the config topic created with one partition and infinite retention.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ConfigResourceTypes, Kafka, logLevel } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ControlPlaneProjection } from '../../../gateway/control-plane/control-plane-projection.ts';
import type { ConfigFollower } from '../../../schemas/control-plane/config-follower.ts';
import { startConfigFollower } from '../../../infra/control-plane/config-follower.ts';
import { type ControlEvent } from '../../../schemas/control-plane/control-plane-events.ts';
import { CONFIG_TOPIC } from '../../../schemas/topics.ts';
import type { EventLog } from '../../../schemas/event-log/event-log.ts';
import type { EventLogLogger } from '../../../schemas/event-log/event-log-logger.ts';
import { createFileEventLog } from '../../../infra/event-log/file/file-event-log.ts';
import { createKafkaEventLog } from '../../../infra/event-log/kafka/kafka-event-log.ts';
import { withTopicPrefix } from '../../../infra/event-log/prefixed-event-log.ts';
import { requireEngineUrl, withoutEngines } from '../../support/engines.ts';
import {
  channelUpserted,
  keyCreated,
  keyRevoked,
  TEST_MASTER_KEY,
  userCreated,
} from '../../unit/control-plane/control-event-fixtures.ts';

const RUN_ID = `${Date.now().toString(36)}-${process.pid}`;

/** A gateway node as the app will wire it: its projection and its follower. */
interface TestNode {
  readonly projection: ControlPlaneProjection;
  readonly node: ConfigFollower;
}

/** One backend under test: how to get the event log of node `i` (nodes may share one). */
interface Backend {
  readonly name: string;
  logFor(i: number): EventLog;
  readonly logLines: string[];
}

async function startNode(log: EventLog, logger: EventLogLogger, name: string): Promise<TestNode> {
  const projection = new ControlPlaneProjection(TEST_MASTER_KEY);
  const node = await startConfigFollower({
    eventLog: log,
    projection,
    log: logger,
    nodeId: `${name}-${RUN_ID}`.replace(/[^A-Za-z0-9_-]/g, '-'),
  });
  return { projection, node };
}

/** ms from `start` until `node` has applied `eventId` (resolved from its onChange listener). */
function appliedAfter(node: TestNode, eventId: string, start: number, timeoutMs = 5_000): Promise<number> {
  return new Promise((resolve, reject) => {
    if (node.projection.hasApplied(eventId)) return resolve(performance.now() - start);
    const timer = setTimeout(() => {
      off();
      reject(new Error(`event ${eventId} not applied within ${timeoutMs} ms`));
    }, timeoutMs);
    const off = node.projection.onChange(() => {
      if (!node.projection.hasApplied(eventId)) return;
      clearTimeout(timer);
      off();
      resolve(performance.now() - start);
    });
  });
}

/** The shared scenarios, run once per backend. */
function nodeScenarios(backend: () => Backend): void {
  const nodes: TestNode[] = [];
  afterAll(async () => {
    await Promise.all(nodes.map((n) => n.node.stop()));
  });

  it('becomes ready on a fresh topic, appends with read-your-writes, and reaches the other node within 1 s', async () => {
    const b = backend();
    const logger: EventLogLogger = (level, message, extra) =>
      b.logLines.push(`${level} ${message} ${JSON.stringify(extra ?? {})}`);
    const started = performance.now();
    const [a, other] = await Promise.all([startNode(b.logFor(0), logger, 'a'), startNode(b.logFor(1), logger, 'b')]);
    nodes.push(a, other);
    await Promise.all([a.node.ready(), other.node.ready()]);
    const readyMs = performance.now() - started;
    expect(a.projection.version).toBe(0);
    expect(a.node.groupId).toBe(`tollgate.config.a-${RUN_ID}`.replace(/[^A-Za-z0-9._-]/g, '-'));

    const latencies: number[] = [];
    const appendMs: number[] = [];
    for (let i = 0; i < 5; i += 1) {
      const event = keyCreated({ keyId: `key_${i}`, digest: String(i).repeat(64) });
      const start = performance.now();
      const seenByOther = appliedAfter(other, event.event.eventId, start);
      await a.node.append([event]);
      appendMs.push(performance.now() - start);
      expect(a.projection.key(`key_${i}`)?.digest, 'read-your-writes on the appending node').toBe(String(i).repeat(64));
      latencies.push(await seenByOther);
    }
    const effectiveAt = Date.now();
    const revoke = keyRevoked({ keyId: 'key_0', effectiveAt });
    const start = performance.now();
    const revokedOnOther = appliedAfter(other, revoke.event.eventId, start);
    await a.node.append([revoke]);
    latencies.push(await revokedOnOther);
    expect(other.projection.key('key_0')?.revokedAt).toBe(effectiveAt);

    console.log(
      `[${b.name}] control-plane propagation A→B (ms): ${latencies.map((l) => l.toFixed(1)).join(', ')}; append (read-your-writes) ms: ${appendMs.map((l) => l.toFixed(1)).join(', ')}; two nodes ready in ${readyMs.toFixed(0)} ms`,
    );
    expect(Math.max(...latencies)).toBeLessThan(1_000);
    expect(other.projection.version).toBe(6);
    expect(b.logLines.filter((l) => l.startsWith('error'))).toEqual([]);
  });

  it('becomes ready on a non-empty topic with the whole history applied, skipping undecodable records', async () => {
    const b = backend();
    const logger: EventLogLogger = (level, message, extra) =>
      b.logLines.push(`${level} ${message} ${JSON.stringify(extra ?? {})}`);
    const writer = nodes[0];
    if (!writer) throw new Error('the first scenario must run first');
    b.logFor(0).publish({ topic: CONFIG_TOPIC, key: 'garbage', value: Buffer.from('not avro at all') });
    const more: ControlEvent[] = [
      userCreated({ userId: 'usr_late' }),
      channelUpserted({ channelId: 'ch-late' }, 'late-secret'),
    ];
    await writer.node.append(more);
    expect(
      b.logLines.some(
        (l) => l.startsWith('error control plane: undecodable config event skipped') && l.includes('"key":"garbage"'),
      ),
    ).toBe(true);
    expect(b.logLines.join('\n')).not.toContain('late-secret');

    const late = await startNode(b.logFor(2), logger, 'c');
    nodes.push(late);
    await late.node.ready();
    expect(late.projection.version).toBe(8);
    expect(late.projection.key('key_0')?.revokedAt).not.toBeNull();
    expect(late.projection.keys()).toHaveLength(5);
    expect(late.projection.user('usr_late')?.userId).toBe('usr_late');
    expect(late.projection.channel('ch-late')?.config.apiKey).toBe('late-secret');
  });

  it('refuses to append an event that does not encode, publishing nothing, and stops cleanly', async () => {
    const writer = nodes[0];
    if (!writer) throw new Error('the first scenario must run first');
    const before = writer.projection.version;
    await expect(writer.node.append([userCreated({ userId: 'usr_ok' }), userCreated({ rpm: 0.5 })])).rejects.toThrow();
    await writer.node.append([]);
    expect(writer.projection.version).toBe(before);
    expect(writer.projection.user('usr_ok')).toBeUndefined();
    const last = nodes.pop();
    await last?.node.stop();
    await expect(last?.node.append([userCreated()])).rejects.toThrow(/stopped/);
  });
}

describe('control-plane node on the embedded file log', () => {
  let dataDir: string;
  let log: EventLog;
  const logLines: string[] = [];
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'tollgate-control-plane-'));
    log = createFileEventLog({ dataDir, logger: (level, message) => logLines.push(`${level} ${message}`) });
  });
  afterAll(async () => {
    await log?.close();
    await rm(dataDir, { recursive: true, force: true });
  });
  nodeScenarios(() => ({ name: 'file log', logFor: () => log, logLines }));
});

describe.skipIf(withoutEngines)('control-plane node on Kafka', () => {
  const prefix = `cp-${RUN_ID}.`;
  const logs: EventLog[] = [];
  const spoolDirs: string[] = [];
  const logLines: string[] = [];
  let brokers: string[];
  beforeAll(async () => {
    brokers = (await requireEngineUrl('KAFKA_BROKERS')).split(',');
    for (let i = 0; i < 3; i += 1) {
      const spoolDir = await mkdtemp(join(tmpdir(), 'tollgate-control-plane-spool-'));
      spoolDirs.push(spoolDir);
      const kafkaLog = createKafkaEventLog({
        brokers,
        spoolDir,
        clientId: `cp-test-${i}-${RUN_ID}`,
        logger: (level, message) => logLines.push(`${level} kafka ${message}`),
      });
      logs.push(withTopicPrefix(kafkaLog, prefix));
    }
  });
  afterAll(async () => {
    await Promise.all(logs.map((l) => l.close()));
    await Promise.all(spoolDirs.map((d) => rm(d, { recursive: true, force: true })));
    const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    await admin.deleteTopics({ topics: [prefix + CONFIG_TOPIC] }).catch(() => {});
    await admin.disconnect();
  });
  nodeScenarios(() => ({ name: 'kafka', logFor: (i) => logs[i] as EventLog, logLines }));

  it('created the config topic with one partition and infinite retention', async () => {
    const admin = new Kafka({ brokers, logLevel: logLevel.NOTHING }).admin();
    await admin.connect();
    try {
      const topic = prefix + CONFIG_TOPIC;
      const { topics } = await admin.fetchTopicMetadata({ topics: [topic] });
      expect(topics[0]?.partitions).toHaveLength(1);
      const described = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['retention.ms'] }],
      });
      expect(described.resources[0]?.configEntries.find((e) => e.configName === 'retention.ms')?.configValue).toBe(
        '-1',
      );
    } finally {
      await admin.disconnect();
    }
  });
});
