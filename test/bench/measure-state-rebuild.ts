/**
 * How long the embedded server takes to rebuild its state store from the file log
 * (infra/processes/open-rebuilt-memory-state.ts), per million requests.
 *
 *   npx tsx test/bench/measure-state-rebuild.ts [--requests 1000000] [--keys 1000] [--failover-every 50]
 *
 * Writes a synthetic log into a temporary data directory with the real file event log and Avro
 * codecs: one PriceSet on the config topic, then per request a RequestCompleted and a priced
 * UsageRecorded (user keys spread over `--keys` keys and 4 channels), and a FailoverOccurred every
 * `--failover-every` requests. Then measures, in this process: the full rebuild (no snapshot), the
 * snapshot write, and a start from that snapshot with nothing after it. Prints one JSON report.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createFileEventLog } from '../../infra/event-log/file/file-event-log.ts';
import { createMemoryStateStore } from '../../infra/state-store/memory/memory-state-store.ts';
import {
  memoryStateSnapshotPath,
  writeMemoryStateSnapshot,
} from '../../infra/state-store/memory/memory-state-snapshot.ts';
import { openRebuiltMemoryState } from '../../infra/processes/open-rebuilt-memory-state.ts';
import { rebuildMemoryState } from '../../infra/processes/rebuild-memory-state.ts';
import { controlEventKey, encodeControlEvent } from '../../schemas/control-plane/control-event-codec.ts';
import { type ControlEvent } from '../../schemas/control-plane/control-plane-events.ts';
import type { EventLog } from '../../schemas/event-log/event-log.ts';
import { encodeTrafficEvent, trafficEventKey } from '../../schemas/events/traffic-event-codec.ts';
import type { TrafficEvent } from '../../schemas/events/traffic-events.ts';
import { TOPICS, CONFIG_TOPIC } from '../../schemas/topics.ts';
import { requestCompleted, usageRecorded } from '../unit/consumers/billing/traffic-event-builders.ts';

const TOPIC_OF: Record<TrafficEvent['type'], string> = {
  RequestCompleted: TOPICS.requests,
  UsageRecorded: TOPICS.usage,
  FailoverOccurred: TOPICS.failovers,
  BudgetThresholdCrossed: TOPICS.alerts,
};
const START = Date.UTC(2026, 0, 1);

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '1000000' },
    keys: { type: 'string', default: '1000' },
    'failover-every': { type: 'string', default: '50' },
  },
});
const requests = Number(values.requests);
const keys = Number(values.keys);
const failoverEvery = Number(values['failover-every']);

/** The events of request `i`: what a gateway node publishes for one served request. */
function eventsOf(i: number): TrafficEvent[] {
  const requestId = randomUUID();
  const keyId = `key_${(i % keys).toString(36).padStart(12, '0')}`;
  const userId = `usr_${(i % Math.max(1, keys / 10)).toString(36).padStart(12, '0')}`;
  const channelId = `channel-${i % 4}`;
  const occurredAt = START + i * 10;
  const shared = {
    requestId,
    keyId,
    userId,
    channelId,
    occurredAt,
    model: 'gpt-4o-mini',
    upstreamModel: 'gpt-4o-mini',
    provider: 'openai',
  };
  const events: TrafficEvent[] = [
    { type: 'RequestCompleted', event: requestCompleted({ ...shared, eventId: randomUUID(), priceRevision: 1 }) },
    {
      type: 'UsageRecorded',
      event: usageRecorded({
        ...shared,
        eventId: randomUUID(),
        priceRevision: 1,
        inputTokens: 800 + (i % 400),
        outputTokens: 200 + (i % 300),
      }),
    },
  ];
  if (failoverEvery > 0 && i % failoverEvery === 0) {
    events.push({
      type: 'FailoverOccurred',
      event: {
        eventId: randomUUID(),
        occurredAt: occurredAt - 5,
        requestId,
        keyId,
        model: 'gpt-4o-mini',
        channelId: `channel-${(i + 1) % 4}`,
        errorKind: 'upstream-unavailable',
        upstreamStatus: 503,
        latencyMs: 40,
        retryAfterMs: null,
        nextChannelId: channelId,
      },
    });
  }
  return events;
}

/** Writes the synthetic log; returns its traffic bytes. */
async function writeLog(eventLog: EventLog, dataDir: string): Promise<number> {
  const price: ControlEvent = {
    type: 'PriceSet',
    event: {
      eventId: randomUUID(),
      occurredAt: 0,
      actor: 'bench',
      priceId: 'gpt-4o-mini|',
      model: 'gpt-4o-mini',
      channel: null,
      inputPerMTok: 0.15,
      outputPerMTok: 0.6,
      cacheReadPerMTok: null,
      cacheWritePerMTok: null,
      effectiveFrom: 0,
    },
  };
  eventLog.publish({ topic: CONFIG_TOPIC, key: controlEventKey(price), value: encodeControlEvent(price) });
  for (let i = 0; i < requests; i++) {
    for (const event of eventsOf(i))
      eventLog.publish({ topic: TOPIC_OF[event.type], key: trafficEventKey(event), value: encodeTrafficEvent(event) });
    if (i % 5000 === 4999) await eventLog.flush();
  }
  await eventLog.flush();
  return Object.values(TOPICS).reduce(
    (sum, topic) => sum + (statSync(join(dataDir, 'events', `${topic}.log`), { throwIfNoEntry: false })?.size ?? 0),
    0,
  );
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tollgate-rebuild-bench-'));
  try {
    const eventLog = createFileEventLog({ dataDir });
    const logBytes = await writeLog(eventLog, dataDir);
    await eventLog.close();
    const store = createMemoryStateStore();
    const warnings: string[] = [];
    let started = performance.now();
    const rebuild = await rebuildMemoryState({
      dataDir,
      topicPrefix: '',
      store,
      from: {},
      onWarning: (message) => warnings.push(message),
    });
    const rebuildMs = performance.now() - started;
    started = performance.now();
    await writeMemoryStateSnapshot(memoryStateSnapshotPath(dataDir), {
      writtenAt: Date.now(),
      covers: rebuild.ends,
      state: store.exportContent(),
    });
    const snapshotWriteMs = performance.now() - started;
    started = performance.now();
    const fromSnapshot = await openRebuiltMemoryState({ dataDir, log: () => {} });
    const snapshotStartMs = performance.now() - started;
    const spendMatches =
      (await fromSnapshot.getSpend('key_000000000000', 'usr_000000000000')).keyNanoUsd ===
      (await store.getSpend('key_000000000000', null)).keyNanoUsd;
    await fromSnapshot.close();
    const perMillion = (ms: number): number => Math.round((ms * 1e6) / requests);
    process.stdout.write(
      `${JSON.stringify(
        {
          machine: { cpu: cpus()[0]?.model, cores: cpus().length, node: process.version },
          requests,
          keys,
          records: rebuild.records,
          logBytes,
          bytesPerRequest: Math.round(logBytes / requests),
          fullRebuildMs: Math.round(rebuildMs),
          fullRebuildMsPerMillionRequests: perMillion(rebuildMs),
          recordsPerSecond: Math.round(rebuild.records / (rebuildMs / 1000)),
          snapshotBytes: statSync(memoryStateSnapshotPath(dataDir)).size,
          snapshotWriteMs: Math.round(snapshotWriteMs),
          startFromSnapshotMs: Math.round(snapshotStartMs),
          spendMatches,
          warnings,
        },
        null,
        2,
      )}\n`,
    );
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main();
