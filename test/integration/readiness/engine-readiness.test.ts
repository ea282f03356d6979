/**
 * The readiness checks of a gateway node (gateway/lifecycle/) against real engines: ready while
 * Redis (REDIS_URL), ClickHouse (CLICKHOUSE_URL) and the embedded event log answer; not ready,
 * naming the failed check and why, when Redis or ClickHouse is an address where nothing listens
 * (the probe answers within its timeout, never stalls); `draining` once the node's drain began.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClickHouseStore } from '../../../infra/analytics/clickhouse-http/clickhouse-http-store.ts';
import { createFileEventLog } from '../../../infra/event-log/file/file-event-log.ts';
import { createRedisStateStore } from '../../../infra/state-store/redis/redis-state-store.ts';
import { engineReadinessChecks } from '../../../gateway/lifecycle/engine-readiness-checks.ts';
import { ReadinessProbe } from '../../../gateway/lifecycle/readiness-probe.ts';
import type { AnalyticsStore } from '../../../schemas/analytics/analytics-store.ts';
import type { EventLog } from '../../../schemas/event-log/event-log.ts';
import type { StateStore } from '../../../schemas/state-store/state-store.ts';
import { requireEngineUrl, withoutEngines } from '../../support/engines.ts';
import { freePort } from '../../support/free-port.ts';

describe.skipIf(withoutEngines)('readiness checks on real engines', () => {
  const opened: Array<{ close(): Promise<void> }> = [];
  let eventLog: EventLog;
  let redis: StateStore;
  let clickhouse: AnalyticsStore;
  let deadRedis: StateStore;
  let deadClickhouse: AnalyticsStore;

  beforeAll(async () => {
    eventLog = createFileEventLog({ dataDir: mkdtempSync(join(tmpdir(), 'tollgate-readiness-')) });
    redis = createRedisStateStore({ url: await requireEngineUrl('REDIS_URL'), keyPrefix: 'tollgate-test:readiness:' });
    clickhouse = createClickHouseStore({ url: await requireEngineUrl('CLICKHOUSE_URL') });
    const [redisPort, clickhousePort] = [await freePort(), await freePort()];
    deadRedis = createRedisStateStore({ url: `redis://127.0.0.1:${redisPort}` });
    deadClickhouse = createClickHouseStore({ url: `http://127.0.0.1:${clickhousePort}`, requestTimeoutMs: 2000 });
    opened.push(eventLog, redis, clickhouse, deadRedis, deadClickhouse);
  });

  afterAll(async () => {
    await Promise.all(opened.map((port) => port.close().catch(() => {})));
  });

  it('is ready when the control plane, the event log, Redis and ClickHouse answer', async () => {
    const probe = new ReadinessProbe(
      engineReadinessChecks({ controlPlaneCaughtUp: () => true, eventLog, redis, clickhouse }),
      () => false,
    );
    expect(await probe.report()).toEqual({
      status: 'ready',
      checks: { controlPlane: { ok: true }, eventLog: { ok: true }, redis: { ok: true }, clickhouse: { ok: true } },
    });
  });

  it('names each engine that does not answer, and why', async () => {
    const probe = new ReadinessProbe(
      engineReadinessChecks({
        controlPlaneCaughtUp: () => true,
        eventLog,
        redis: deadRedis,
        clickhouse: deadClickhouse,
      }),
      () => false,
      { timeoutMs: 1000 },
    );
    const report = await probe.report();
    expect(report.status).toBe('not-ready');
    expect(report.checks.controlPlane).toEqual({ ok: true });
    expect(report.checks.eventLog).toEqual({ ok: true });
    expect(report.checks.redis).toEqual({ ok: false, reason: expect.any(String) });
    expect(report.checks.clickhouse).toEqual({ ok: false, reason: expect.any(String) });
  });

  it('is not ready before the control plane caught up, nor once the drain began', async () => {
    let caughtUp = false;
    let draining = false;
    const probe = new ReadinessProbe(
      engineReadinessChecks({ controlPlaneCaughtUp: () => caughtUp, eventLog }),
      () => draining,
      { cacheMs: 0 },
    );
    expect(await probe.report()).toMatchObject({
      status: 'not-ready',
      checks: { controlPlane: { ok: false, reason: expect.stringContaining('config topic') } },
    });
    caughtUp = true;
    expect((await probe.report()).status).toBe('ready');
    draining = true;
    expect(await probe.report()).toEqual({
      status: 'draining',
      checks: { drain: { ok: false, reason: expect.stringContaining('shutting down') } },
    });
  });
});
