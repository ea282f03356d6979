/**
 * The config-topic follower against an in-memory event log that the test delivers by hand:
 * markers of other nodes do not count, a marker settles only after the events before it were
 * applied, timeouts and stop() reject clearly.
 */
import { describe, expect, it } from 'vitest';
import { ControlPlaneProjection } from '../../../gateway/control-plane/control-plane-projection.ts';
import { syncMarkerKey } from '../../../schemas/control-plane/config-follower.ts';
import { startConfigFollower } from '../../../infra/control-plane/config-follower.ts';
import { encodeControlEvent } from '../../../schemas/control-plane/control-event-codec.ts';
import { CONFIG_TOPIC } from '../../../schemas/topics.ts';
import type { BatchHandler, DeliveredRecord, EventLog, LogRecord } from '../../../schemas/event-log/event-log.ts';
import { keyCreated, TEST_MASTER_KEY } from './control-event-fixtures.ts';

/** Records published so far, and `deliver()` to hand the undelivered ones to the subscriber. */
function manualLog(): EventLog & {
  published: LogRecord[];
  deliver(extra?: LogRecord[]): Promise<void>;
  groups: string[];
} {
  const published: LogRecord[] = [];
  const groups: string[] = [];
  let handler: BatchHandler | undefined;
  let delivered = 0;
  const toDelivered = (r: LogRecord, i: number): DeliveredRecord => ({
    ...r,
    partition: 0,
    offset: String(i),
    timestamp: 0,
  });
  return {
    published,
    groups,
    publish: (record) => void published.push(record),
    flush: async () => {},
    endOffsets: async () => [{ partition: 0, offset: String(published.length) }],
    status: () => ({ pending: 0, spooled: 0, connected: true }),
    close: async () => {},
    async subscribe(options) {
      groups.push(options.groupId);
      handler = options.handleBatch;
      return { stop: async () => void (handler = undefined) };
    },
    async deliver(extra = []) {
      published.push(...extra);
      const batch = published.slice(delivered).map((r, i) => toDelivered(r, delivered + i));
      delivered = published.length;
      await handler?.(batch);
    },
  };
}

describe('startConfigFollower (manual log)', () => {
  it('publishes an empty-valued marker and is ready only when its own marker comes back', async () => {
    const log = manualLog();
    const projection = new ControlPlaneProjection(TEST_MASTER_KEY);
    const node = await startConfigFollower({ eventLog: log, projection, log: () => {}, nodeId: 'n1' });
    expect(log.groups).toEqual(['tollgate.config.n1']);
    expect(log.published).toEqual([{ topic: CONFIG_TOPIC, key: 'sync:n1:1', value: Buffer.alloc(0) }]);
    let ready = false;
    void node.ready().then(() => (ready = true));
    // the topic already held an event before the marker: ready means it is applied
    const history = keyCreated();
    log.published.unshift({ topic: CONFIG_TOPIC, key: 'key_abc', value: encodeControlEvent(history) });
    await log.deliver();
    await new Promise((r) => setImmediate(r));
    expect(ready).toBe(true);
    expect(projection.hasApplied(history.event.eventId)).toBe(true);
    await node.stop();
  });

  it('ignores other nodes markers and settles append only after its events were applied', async () => {
    const log = manualLog();
    const projection = new ControlPlaneProjection(TEST_MASTER_KEY);
    const node = await startConfigFollower({ eventLog: log, projection, log: () => {}, nodeId: 'n1' });
    await log.deliver();
    await node.ready();
    const event = keyCreated();
    let appended = false;
    const appending = node.append([event]).then(() => (appended = true));
    await new Promise((r) => setImmediate(r));
    expect(log.published.map((r) => [r.key, r.value.length > 0])).toEqual([
      ['sync:n1:1', false],
      ['key_abc', true],
      ['sync:n1:2', false],
    ]);
    // a foreign marker with a higher number does not settle our append
    const foreign: LogRecord = { topic: CONFIG_TOPIC, key: syncMarkerKey('n10', 99), value: Buffer.alloc(0) };
    log.published.splice(1, 2);
    await log.deliver([foreign]);
    await new Promise((r) => setImmediate(r));
    expect(appended).toBe(false);
    expect(projection.hasApplied(event.event.eventId)).toBe(false);
    await log.deliver([
      { topic: CONFIG_TOPIC, key: 'key_abc', value: encodeControlEvent(event) },
      { topic: CONFIG_TOPIC, key: 'sync:n1:2', value: Buffer.alloc(0) },
    ]);
    await appending;
    expect(projection.hasApplied(event.event.eventId)).toBe(true);
    await node.stop();
  });

  it('rejects an append that is not confirmed in time, and pending calls on stop', async () => {
    const log = manualLog();
    const node = await startConfigFollower({
      eventLog: log,
      projection: new ControlPlaneProjection(TEST_MASTER_KEY),
      log: () => {},
      nodeId: 'slow',
      syncTimeoutMs: 50,
      readyTimeoutMs: 5_000,
    });
    await expect(node.append([keyCreated()])).rejects.toThrow(
      /append of 1 event\(s\) not confirmed within 50 ms .*events handed to the log are kept/,
    );
    const pendingReady = node.ready();
    await node.stop();
    await expect(pendingReady).rejects.toThrow(/stopped/);
    await expect(
      startConfigFollower({
        eventLog: manualLog(),
        projection: new ControlPlaneProjection(TEST_MASTER_KEY),
        log: () => {},
        nodeId: 'bad:id',
      }),
    ).rejects.toThrow(/illegal control-plane node id/);
  });
});
